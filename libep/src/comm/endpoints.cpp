// Endpoint communicators: creation, queries, attributes, error handlers, free.
#include <atomic>
#include <cstdio>
#include <vector>

#include "comm/endpoint.hpp"
#include "core/backoff.hpp"
#include "core/error.hpp"
#include "ep/comm.hpp"
#include "p2p/engine.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::raise;
using detail::raise_on;

namespace {

std::atomic<int> next_comm_id{0};

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

// The process's MPI communicators of an endpoint communicator; every call is
// collective over the processes, so all processes run this in the same order.
int duplicate_channels(CommShared& shared) {
  const int channels = shared.map.max_per_process();
  shared.inbox.assign(static_cast<std::size_t>(channels), MPI_COMM_NULL);
  shared.acks.assign(static_cast<std::size_t>(channels), MPI_COMM_NULL);
  for (int l = 0; l < channels; ++l) {
    for (MPI_Comm* channel : {&shared.inbox[static_cast<std::size_t>(l)],
                              &shared.acks[static_cast<std::size_t>(l)]}) {
      int rc = MPI_Comm_dup(shared.mpi_comm, channel);
      if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(*channel, MPI_ERRORS_RETURN);
      if (rc != MPI_SUCCESS) return rc;
    }
  }
  return MPI_SUCCESS;
}

void release_shared(CommShared* shared) {
  for (auto& endpoint : shared->endpoints) {
    while (detail::Incoming* message = endpoint->match.unexpected.pop_front()) {
      // Unreceived remote messages still belong to MPI; receive and drop them.
      if (message->kind == detail::Incoming::Kind::remote) {
        MPI_Mrecv(nullptr, 0, MPI_BYTE, &message->mpi_message, MPI_STATUS_IGNORE);
      }
      delete message;
    }
  }
  for (MPI_Comm& c : shared->inbox) MPI_Comm_free(&c);
  for (MPI_Comm& c : shared->acks) MPI_Comm_free(&c);
  MPI_Comm_free(&shared->mpi_comm);
  delete shared;
}

}  // namespace

int Comm_create_endpoints(MPI_Comm parent, int num_ep, MPI_Info /*info*/, Comm out[]) {
  constexpr const char* fn = "Comm_create_endpoints";
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    std::fputs("libep: ep::Comm_create_endpoints: MPI is not initialised: call "
               "MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) first\n",
               stderr);
    return MPI_ERR_OTHER;
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    return raise_on(parent, MPI_ERR_OTHER, fn,
                    "libep needs MPI_THREAD_MULTIPLE but MPI provides {}: initialise MPI with "
                    "MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), with an MPI "
                    "built with thread support (Open MPI: `ompi_info | grep THREAD_MULTIPLE` "
                    "must say yes)",
                    thread_level_name(provided));
  }
  if (parent == MPI_COMM_NULL) return raise_on(parent, MPI_ERR_COMM, fn, "parent is MPI_COMM_NULL");
  int inter = 0;
  MPI_Comm_test_inter(parent, &inter);
  if (inter) return raise_on(parent, MPI_ERR_COMM, fn, "parent is an inter-communicator");

  auto shared = std::make_unique<CommShared>();
  int rc = MPI_Comm_dup(parent, &shared->mpi_comm);
  if (rc != MPI_SUCCESS) return raise_on(parent, detail::error_class_of(rc), fn, "MPI_Comm_dup failed");
  MPI_Comm_set_errhandler(shared->mpi_comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(shared->mpi_comm, &shared->mpi_rank);
  MPI_Comm_size(shared->mpi_comm, &shared->mpi_size);

  // Every process learns every count, so a bad count anywhere fails the call
  // everywhere instead of leaving the other processes waiting.
  const int mine = (num_ep > 0 && out == nullptr) ? -2 : num_ep;
  std::vector<int> counts(static_cast<std::size_t>(shared->mpi_size));
  rc = MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, shared->mpi_comm);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&shared->mpi_comm);
    return raise_on(parent, detail::error_class_of(rc), fn, "MPI_Allgather failed");
  }
  for (int p = 0; p < shared->mpi_size; ++p) {
    const int count = counts[static_cast<std::size_t>(p)];
    if (count < 0) {
      MPI_Comm_free(&shared->mpi_comm);
      if (count == -2) {
        return raise_on(parent, MPI_ERR_ARG, fn,
                        "process {} passed a null handle array for its endpoints", p);
      }
      return raise_on(parent, MPI_ERR_ARG, fn,
                      "process {} asked for a negative number of endpoints ({})", p, count);
    }
  }
  shared->map = detail::RankMap::from_counts(counts);

  // MPI caches MPI_TAG_UB on MPI_COMM_WORLD; duplicates of other
  // communicators need not carry it (Open MPI's MPI_COMM_SELF does not).
  int* mpi_tag_ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &mpi_tag_ub, &flag);
  const int tag_ub = flag ? *mpi_tag_ub : detail::TagLayout::kMinUserTagUb;
  auto layout = detail::TagLayout::make(tag_ub, shared->map.max_per_process());
  if (!layout) {
    MPI_Comm_free(&shared->mpi_comm);
    return raise_on(parent, MPI_ERR_OTHER, fn,
                    "{} endpoints in one process leave fewer tag bits than MPI requires (the "
                    "MPI's MPI_TAG_UB is {}): use fewer endpoints per process",
                    shared->map.max_per_process(), tag_ub);
  }
  shared->tags = *layout;
  shared->user_tag_ub = layout->user_tag_ub();
  rc = duplicate_channels(*shared);
  if (rc != MPI_SUCCESS) {
    const int error_class = detail::error_class_of(rc);
    release_shared(shared.release());
    return raise_on(parent, error_class, fn, "MPI_Comm_dup failed");
  }

  shared->id = next_comm_id.fetch_add(1);
  for (int local = 0; local < num_ep; ++local) {
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->shared = shared.get();
    endpoint->local = local;
    endpoint->rank = shared->map.rank_of(shared->mpi_rank, local);
    out[local] = endpoint.get();
    shared->endpoints.push_back(std::move(endpoint));
  }
  shared->live.store(num_ep);
  CommShared* created = shared.release();
  // A process without endpoints takes no part in the communicator's traffic.
  if (num_ep == 0) release_shared(created);
  return MPI_SUCCESS;
}

namespace detail {

Endpoint* valid_endpoint(Comm comm) { return comm && comm->is_valid() ? comm : nullptr; }

}  // namespace detail

int Comm_rank(Comm comm, int* rank) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, "Comm_rank", "invalid communicator handle");
  if (!rank) return raise(e, MPI_ERR_ARG, "Comm_rank", "rank is a null pointer");
  *rank = e->rank;
  return MPI_SUCCESS;
}

int Comm_size(Comm comm, int* size) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, "Comm_size", "invalid communicator handle");
  if (!size) return raise(e, MPI_ERR_ARG, "Comm_size", "size is a null pointer");
  *size = e->shared->map.size();
  return MPI_SUCCESS;
}

int Comm_free(Comm* comm) {
  constexpr const char* fn = "Comm_free";
  if (!comm) return raise(nullptr, MPI_ERR_ARG, fn, "comm is a null pointer");
  Endpoint* e = detail::valid_endpoint(*comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, fn, "invalid communicator handle (COMM_NULL or freed)");
  // Requests the user released while active must finish before their
  // endpoint goes away.
  detail::Backoff backoff;
  for (detail::reap_orphans(e); !e->orphans.empty(); detail::reap_orphans(e)) backoff.pause();
  e->magic = 0;
  *comm = COMM_NULL;
  CommShared* shared = e->shared;
  // The last endpoint of the process releases the shared state; endpoint
  // objects stay until then because other endpoints may still deliver to them.
  if (shared->live.fetch_sub(1, std::memory_order_acq_rel) == 1) release_shared(shared);
  return MPI_SUCCESS;
}

int Comm_set_errhandler(Comm comm, MPI_Errhandler errhandler) {
  constexpr const char* fn = "Comm_set_errhandler";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, fn, "invalid communicator handle");
  if (errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL) {
    return raise(e, MPI_ERR_ARG, fn,
                 "only MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN are supported on endpoints");
  }
  e->errhandler = errhandler;
  return MPI_SUCCESS;
}

int Comm_get_errhandler(Comm comm, MPI_Errhandler* errhandler) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, "Comm_get_errhandler", "invalid communicator handle");
  if (!errhandler) return raise(e, MPI_ERR_ARG, "Comm_get_errhandler", "errhandler is a null pointer");
  *errhandler = e->errhandler;
  return MPI_SUCCESS;
}

int Comm_get_attr(Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "Comm_get_attr";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return raise(nullptr, MPI_ERR_COMM, fn, "invalid communicator handle");
  if (!attribute_val || !flag) return raise(e, MPI_ERR_ARG, fn, "a result pointer is null");
  if (comm_keyval == MPI_TAG_UB) {
    *static_cast<int**>(attribute_val) = &e->shared->user_tag_ub;
    *flag = 1;
    return MPI_SUCCESS;
  }
  // The other predefined attributes (MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
  // ...) are the hosting process's.
  const int rc = MPI_Comm_get_attr(e->shared->mpi_comm, comm_keyval, attribute_val, flag);
  return detail::check_mpi(rc, e, fn, "MPI_Comm_get_attr");
}

}  // namespace ep
