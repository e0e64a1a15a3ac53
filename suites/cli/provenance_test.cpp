// The notes ep-bench prints beside its results, from a run's context alone
// (tools/common/provenance): no MPI is started.
#include "provenance.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using nlohmann::ordered_json;

// The context of a run of `threads` threads per process under `impl`, on the
// MPI that `library_version` names.
ordered_json context(const std::string& impl, int threads, const std::string& library_version) {
  return {{"impl", impl},
          {"threads_per_process", threads},
          {"mpi_implementation", ep::tools::mpi_implementation(library_version)}};
}

const char* const kMpich402 =
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n";

TEST(SharedRankNote, NamesTheLockOnMpich40) {
  const std::string note = ep::tools::shared_rank_note(context("mpi-threads", 2, kMpich402));
  EXPECT_NE(note.find("MPICH 4.0.2"), std::string::npos) << note;
  EXPECT_NE(note.find("--watchdog"), std::string::npos) << note;
}

TEST(SharedRankNote, AnyMpich40) {
  EXPECT_FALSE(
      ep::tools::shared_rank_note(context("mpi-threads", 4, "MPICH Version:\t4.0\n")).empty());
}

TEST(SharedRankNote, SilentElsewhere) {
  // One thread per process holds the lock alone.
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi-threads", 1, kMpich402)), "");
  // Endpoints and plain MPI processes do not wait in MPI's blocking calls
  // from several threads of a process.
  EXPECT_EQ(ep::tools::shared_rank_note(context("ep", 2, kMpich402)), "");
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi", 2, kMpich402)), "");
  // Not seen there.
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi-threads", 2, "MPICH Version:\t3.4.3\n")), "");
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi-threads", 2, "MPICH Version:\t4.1.2\n")), "");
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi-threads", 2, "MPICH Version:\t4.2.0\n")), "");
  EXPECT_EQ(
      ep::tools::shared_rank_note(context("mpi-threads", 2, "Open MPI v4.1.4, package: Debian")),
      "");
  // A version it cannot read says nothing.
  EXPECT_EQ(ep::tools::shared_rank_note(context("mpi-threads", 2, "MPICH Version:\tmain\n")), "");
  EXPECT_EQ(ep::tools::shared_rank_note(ordered_json::object()), "");
}

// libep's own variables, as libep reads them: EP_CHECK_COLLECTIVES of 0 or
// empty is off; the others count when non-empty.
TEST(LibepEnvironmentNote, NamesWhatIsSet) {
  const auto note = [](const ordered_json& env) {
    return ep::tools::libep_environment_note({{"environment", env}});
  };
  const std::string all = note(
      {{"EP_INSPECT", "/tmp/d"}, {"EP_CHECK_COLLECTIVES", "1"}, {"EP_COLL_ALGORITHM", "direct"}});
  EXPECT_NE(all.find("EP_INSPECT=/tmp/d"), std::string::npos) << all;
  EXPECT_NE(all.find("EP_CHECK_COLLECTIVES=1"), std::string::npos) << all;
  EXPECT_NE(all.find("EP_COLL_ALGORITHM=direct"), std::string::npos) << all;
  EXPECT_EQ(note({{"EP_CHECK_COLLECTIVES", "0"}, {"EP_INSPECT", ""}}), "");
  EXPECT_EQ(note({{"LIBEP_ANYTHING", "1"}, {"OMPI_MCA_osc", "ucx"}}), "");
  EXPECT_EQ(ep::tools::libep_environment_note(ordered_json::object()), "");
}

}  // namespace
