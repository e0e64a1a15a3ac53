// ep::Comm_create_endpoints: the communicator every other one derives from.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "comm/build.hpp"
#include "comm/inspect.hpp"
#include "comm/turn.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"
#include "p2p/engine.hpp"

namespace ep {

namespace {

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "an unknown thread level";
  }
}

constexpr const char* fn = "Comm_create_endpoints";

int mpi_failed(MPI_Comm parent, int rc, const char* mpi_call) {
  return detail::raise_on(parent, detail::error_class_of(rc), fn, "{} failed: {}", mpi_call,
                          detail::mpi_error_string(rc));
}

// Checks what can be checked before any process talks to another.
int check_local(MPI_Comm parent) {
  int initialized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized) {
    std::fputs(
        "libep: ep::Comm_create_endpoints: MPI is not initialised: call "
        "MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) first\n",
        stderr);
    return MPI_ERR_OTHER;
  }
  int provided = MPI_THREAD_SINGLE;
  int rc = MPI_Query_thread(&provided);
  if (rc != MPI_SUCCESS) {
    return detail::raise_on(parent, detail::error_class_of(rc), fn, "MPI_Query_thread failed: {}",
                            detail::mpi_error_string(rc));
  }
  if (provided != MPI_THREAD_MULTIPLE) {
    return detail::raise_on(
        parent, MPI_ERR_OTHER, fn,
        "libep needs MPI_THREAD_MULTIPLE but MPI provides {}: initialise MPI with "
        "MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), with an MPI built with "
        "thread support (Open MPI: `ompi_info | grep THREAD_MULTIPLE` must say yes)",
        thread_level_name(provided));
  }
  if (parent == MPI_COMM_NULL) {
    return detail::raise_on(parent, MPI_ERR_COMM, fn, "parent is MPI_COMM_NULL");
  }
  int inter = 0;
  rc = MPI_Comm_test_inter(parent, &inter);
  if (rc != MPI_SUCCESS) {
    return detail::raise_on(parent, detail::error_class_of(rc), fn,
                            "parent is not a valid communicator (MPI_Comm_test_inter: {})",
                            detail::mpi_error_string(rc));
  }
  if (inter) return detail::raise_on(parent, MPI_ERR_COMM, fn, "parent is an inter-communicator");
  return MPI_SUCCESS;
}

}  // namespace

int Comm_create_endpoints(MPI_Comm parent, int num_ep, MPI_Info /*info*/, Comm out[]) {
  int rc = check_local(parent);
  if (rc != MPI_SUCCESS) return rc;

  // The exchanges below run on `parent` itself (the caller is in a
  // collective call on it); the only MPI communicators made are the
  // communicator's own and its channels, all made from `parent` by one kind
  // of call (make_channels in build.cpp says why).
  int size = 0;
  int rank = 0;
  int world_rank = 0;
  rc = MPI_Comm_size(parent, &size);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(parent, &rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (rc != MPI_SUCCESS) return mpi_failed(parent, rc, "MPI_Comm_size/MPI_Comm_rank");

  // Every process learns every count, so a bad count anywhere fails the call
  // everywhere instead of leaving the other processes waiting; with it come
  // what makes each endpoint's identity (world rank, creation number).
  // And this process's run id (or a candidate for it), for EP_INSPECT dumps.
  static std::atomic<std::int64_t> created{0};
  constexpr std::size_t stride = 3 + detail::run_ints;
  int mine[stride] = {(num_ep > 0 && out == nullptr) ? -2 : num_ep,
                      static_cast<int>(created.fetch_add(std::max(num_ep, 0))), world_rank};
  const std::array<int, detail::run_ints> run = detail::run_to_ints(detail::run_candidate());
  std::copy(run.begin(), run.end(), mine + 3);
  std::vector<int> gathered(stride * static_cast<std::size_t>(size));
  rc = MPI_Allgather(mine, static_cast<int>(stride), MPI_INT, gathered.data(),
                     static_cast<int>(stride), MPI_INT, parent);
  if (rc != MPI_SUCCESS) return mpi_failed(parent, rc, "MPI_Allgather");
  const auto field = [&](int p, std::size_t i) {
    return gathered.data() + stride * static_cast<std::size_t>(p) + i;
  };
  // The run of the lowest rank that has one, else rank 0's candidate: one
  // id for the processes of a run, drawn once, with no exchange of its own.
  int run_source = 0;
  while (run_source < size && !detail::run_from_ints(field(run_source, 3)).known) ++run_source;
  detail::adopt_run(detail::run_from_ints(field(run_source == size ? 0 : run_source, 3)));
  // Host names, for rank maps shown to people (comm/inspect.hpp).
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int name_length = 0;
  rc = MPI_Get_processor_name(name, &name_length);
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  // Every process takes part in the exchange, also one whose name failed.
  const int gather_rc = MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(),
                                      MPI_MAX_PROCESSOR_NAME, MPI_CHAR, parent);
  if (rc != MPI_SUCCESS) return mpi_failed(parent, rc, "MPI_Get_processor_name");
  if (gather_rc != MPI_SUCCESS) return mpi_failed(parent, gather_rc, "MPI_Allgather of host names");
  for (int p = 0; p < size; ++p) {
    const char* host = names.data() + static_cast<std::size_t>(p) * MPI_MAX_PROCESSOR_NAME;
    detail::remember_host(*field(p, 2), std::string(host, strnlen(host, MPI_MAX_PROCESSOR_NAME)));
  }
  std::vector<int> counts;
  std::vector<std::int64_t> identities;
  for (int p = 0; p < size; ++p) {
    const int count = *field(p, 0);
    counts.push_back(count);
    for (int l = 0; l < count; ++l) {
      const std::int64_t host = *field(p, 2);
      identities.push_back(host << 32 | (*field(p, 1) + l));
    }
    if (count >= 0) continue;
    if (count == -2) {
      return detail::raise_on(parent, MPI_ERR_ARG, fn,
                              "process {} passed a null handle array for its endpoints", p);
    }
    return detail::raise_on(parent, MPI_ERR_ARG, fn,
                            "process {} asked for a negative number of endpoints ({})", p, count);
  }

  // The rings between the processes of a node (node/rings.hpp),
  // made once for every pair: collective over the parent, so before the
  // processes that host nothing leave.
  {
    std::string why;
    rc = detail::attach_node(parent, &why);
    if (rc != MPI_SUCCESS) return detail::raise_on(parent, detail::error_class_of(rc), fn, why);
  }

  // The communicator's MPI communicator holds only the processes that host
  // endpoints: its collectives then involve exactly the communicator's
  // processes. Its channels are made the same way.
  MPI_Comm hosts = MPI_COMM_NULL;
  MPI_Group host_group = MPI_GROUP_NULL;
  // For the MPI communicator and its channels (comm/turn.hpp).
  const detail::CreationTurn turn;
  const bool everyone_hosts = std::find(counts.begin(), counts.end(), 0) == counts.end();
  if (everyone_hosts) {
    rc = MPI_Comm_dup(parent, &hosts);
  } else {
    rc = MPI_Comm_split(parent, num_ep > 0 ? 0 : MPI_UNDEFINED, rank, &hosts);
    // The hosting processes as a group of `parent` (MPICH 4.0.2 crashes in
    // MPI_Comm_create_group on `parent` given the group of `hosts`).
    std::vector<int> hosting;
    for (int p = 0; p < size; ++p) {
      if (counts[static_cast<std::size_t>(p)] > 0) hosting.push_back(p);
    }
    MPI_Group everyone = MPI_GROUP_NULL;
    if (rc == MPI_SUCCESS && num_ep > 0) rc = MPI_Comm_group(parent, &everyone);
    if (rc == MPI_SUCCESS && num_ep > 0) {
      rc = MPI_Group_incl(everyone, static_cast<int>(hosting.size()), hosting.data(), &host_group);
    }
    if (everyone != MPI_GROUP_NULL) detail::keep_first_error(&rc, MPI_Group_free(&everyone));
    std::erase(counts, 0);
  }
  if (rc != MPI_SUCCESS) {
    return detail::raise_on(parent, detail::error_class_of(rc), fn,
                            everyone_hosts ? "MPI_Comm_dup failed" : "MPI_Comm_split failed");
  }
  if (num_ep == 0) return MPI_SUCCESS;

  detail::CommShared* shared = nullptr;
  std::string why;
  rc = detail::build_comm(hosts, {parent, host_group, 0}, detail::RankMap::from_counts(counts),
                          std::move(identities), &shared, &why);
  if (host_group != MPI_GROUP_NULL) {
    const int free_rc = MPI_Group_free(&host_group);
    if (rc == MPI_SUCCESS && free_rc != MPI_SUCCESS) {
      rc = free_rc;
      why = "MPI_Group_free of the hosting processes' group failed";
    }
  }
  if (rc != MPI_SUCCESS) return detail::raise_on(parent, detail::error_class_of(rc), fn, why);
  for (int local = 0; local < num_ep; ++local) {
    out[local] = detail::handle_of(shared->endpoints[static_cast<std::size_t>(local)].get());
  }
  return MPI_SUCCESS;
}

}  // namespace ep
