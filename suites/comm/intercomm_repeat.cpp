// The same inter-communicator created and freed many times in a row, with
// the same groups, leaders and tag, as a benchmark or a solver's setup loop
// does. Every new handle must be a new, working communicator. Where one
// process hosts endpoints of both groups (layouts 1,3,2 with halves, and 2,2
// or 3 with alternate), its two groups' halves of one creation must meet,
// never one half of one creation with one half of the next.
#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

void repeat(Context& t, const char* scheme, int iterations) {
  const bool alternate = std::string(scheme) == "alternate";
  const int half = t.size() / 2;
  const int group = alternate ? t.rank() % 2 : (t.rank() < half ? 0 : 1);
  const int sizes[2] = {alternate ? (t.size() + 1) / 2 : half,
                        alternate ? t.size() / 2 : t.size() - half};
  const int rank_in_group = alternate ? t.rank() / 2 : (group == 0 ? t.rank() : t.rank() - half);
  const int remote_leader = alternate ? 1 - group : (group == 0 ? half : 0);
  api::Comm local = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), group, t.rank(), &local), "Comm_split");
  int bad = 0;
  for (int i = 0; i < iterations && bad < 3; ++i) {
    api::Comm inter = api::COMM_NULL;
    if (!t.check_rc(api::Intercomm_create(local, 0, t.comm(), remote_leader, 55, &inter),
                    "Intercomm_create")) {
      ++bad;
      continue;
    }
    int r = -1, size = -1, remote = -1;
    const int rc = api::Comm_rank(inter, &r) | api::Comm_size(inter, &size) |
                   api::Comm_remote_size(inter, &remote);
    if (!t.check(
            rc == MPI_SUCCESS && r == rank_in_group && size == sizes[group] &&
                remote == sizes[1 - group],
            fmt::format("{} iteration {}: Intercomm_create succeeded but the handle is "
                        "{} (rank {} size {} remote {}, rc {})",
                        scheme, i, rc == MPI_SUCCESS ? "wrong" : "invalid", r, size, remote, rc))) {
      ++bad;
      continue;  // an invalid handle cannot be freed or used
    }
    if (i % 50 == 0) exchange_ids(t, inter, t.rank(), 6);  // it carries traffic
    t.check_rc(api::Comm_free(&inter), "Comm_free");
  }
  t.check_rc(api::Comm_free(&local), "Comm_free");
  t.out("{}: {} creations, {}", scheme, iterations, bad == 0 ? "all good" : "FAILED");
}

}  // namespace

void eptest::run(Context& t) {
  // Errors on invalid handles go to MPI_COMM_WORLD's handler: returned, so
  // that the check above can say which iteration broke.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (t.size() < 2) {
    t.out("one rank: no inter-communicator");
    return;
  }
  const int iterations = t.params().get_int("iterations", 400);
  repeat(t, "halves", iterations);
  repeat(t, "alternate", iterations);
}
