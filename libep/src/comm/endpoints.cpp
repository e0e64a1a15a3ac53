// Endpoint communicators: creation, queries, attributes, error handlers, free.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "base/backoff.hpp"
#include "comm/attributes.hpp"
#include "comm/build.hpp"
#include "ep/comm.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "p2p/engine.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::raise;

int Comm_rank(Comm comm, int* rank) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, "Comm_rank");
  if (!rank) return raise(e, MPI_ERR_ARG, "Comm_rank", "rank is a null pointer");
  *rank = e->rank;
  return MPI_SUCCESS;
}

int Comm_size(Comm comm, int* size) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, "Comm_size");
  if (!size) return raise(e, MPI_ERR_ARG, "Comm_size", "size is a null pointer");
  *size = e->shared->group_size(e->group);
  return MPI_SUCCESS;
}

int Comm_free(Comm* comm) {
  constexpr const char* fn = "Comm_free";
  if (!comm) return raise(nullptr, MPI_ERR_ARG, fn, "comm is a null pointer");
  Endpoint* e = detail::valid_endpoint(*comm);
  if (!e) return detail::invalid_comm(*comm, fn);
  // MPI runs the delete callbacks first; one that fails fails the call, and
  // the handle stays valid.
  if (const int rc = detail::delete_attributes(e, fn); rc != MPI_SUCCESS) return rc;
  *comm = COMM_NULL;
  // When the endpoint was the process's last, it went with the shared state:
  // MPI_COMM_WORLD's handler applies.
  return detail::check_mpi(detail::free_endpoint(e), nullptr, fn,
                           "releasing the communicator's MPI communicators");
}

namespace detail {

namespace {

int release_endpoint(Endpoint* e) {
  CommShared* shared = e->shared;
  // The last endpoint of the process releases the shared state; endpoint
  // objects stay until then because other endpoints may still deliver to them.
  if (shared->live.fetch_sub(1, std::memory_order_acq_rel) == 1) return release_shared(shared);
  return MPI_SUCCESS;
}

// The release of an endpoint that Comm_free left in place, run by the end
// of its last request (drop_held_request), in whatever call freed it.
void release_later(Endpoint* e) {
  const int rc = release_endpoint(e);
  if (rc != MPI_SUCCESS) {
    (void)check_mpi(rc, nullptr, "Comm_free",
                    "releasing the communicator's MPI communicators, once its last pending "
                    "request ended");
  }
}

}  // namespace

int free_endpoint(Endpoint* e) {
  // Requests the user released while active must finish before their
  // endpoint goes away.
  Backoff backoff;
  for (reap_orphans(e); !e->orphans.empty(); reap_orphans(e)) backoff.pause();
  EndpointPool::retire(e);  // stale handles get MPI_ERR_COMM from now
  // Requests the user still holds complete normally (MPI): the endpoint
  // stays until the last of them is freed.
  if (e->requests_held > 0) {
    e->finish_free = release_later;
    return MPI_SUCCESS;
  }
  return release_endpoint(e);
}

}  // namespace detail

int Comm_set_errhandler(Comm comm, MPI_Errhandler errhandler) {
  constexpr const char* fn = "Comm_set_errhandler";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL) {
    return raise(e, MPI_ERR_ARG, fn,
                 "only MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN are supported on endpoints");
  }
  e->errhandler = errhandler;
  return MPI_SUCCESS;
}

int Comm_get_errhandler(Comm comm, MPI_Errhandler* errhandler) {
  constexpr const char* fn = "Comm_get_errhandler";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!errhandler) return raise(e, MPI_ERR_ARG, fn, "errhandler is a null pointer");
  // A new reference, as MPI's: the caller may release it.
  const int rc = detail::errhandler_reference(e->errhandler, errhandler);
  return detail::check_mpi(rc, e, fn, "MPI_Comm_get_errhandler");
}

namespace {

// The predefined attributes other than MPI_TAG_UB. MPI sets them on
// MPI_COMM_WORLD only, which every endpoint communicator descends from:
// Open MPI 4.1.4 copies most of them to duplicates of MPI_COMM_WORLD but
// none to split communicators, and MPI_LASTUSEDCODE to no communicator, so
// the MPI communicator under an endpoint communicator may lack them.
bool is_world_attribute(int keyval) {
  return keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
         keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}

// Storage for a rank attribute that names no endpoint.
int no_rank = MPI_PROC_NULL;

// MPI_HOST and MPI_IO name a rank of MPI_COMM_WORLD, or MPI_PROC_NULL /
// MPI_ANY_SOURCE; a rank means nothing on an endpoint communicator. The
// hosting process's own rank means every endpoint it hosts: the endpoint's
// own rank (kept in the Endpoint, so the pointer lives as long as the
// communicator). Another process's rank is answered as MPI_PROC_NULL, which
// understates it; Open MPI 4.1.4 and MPICH 4.0.2 name no rank (MPI_HOST is
// MPI_PROC_NULL, MPI_IO MPI_ANY_SOURCE).
int* rank_attribute(Endpoint& e, int* world_value) {
  if (*world_value == MPI_PROC_NULL || *world_value == MPI_ANY_SOURCE) return world_value;
  int world_rank = -1;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &world_rank) == MPI_SUCCESS && world_rank == *world_value) {
    return &e.rank;
  }
  return &no_rank;
}

}  // namespace

int Comm_get_attr(Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "Comm_get_attr";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!attribute_val || !flag) return raise(e, MPI_ERR_ARG, fn, "a result pointer is null");
  if (int rc = MPI_SUCCESS; detail::get_user_attribute(e, comm_keyval, attribute_val, flag, &rc)) {
    return rc;
  }
  if (comm_keyval == MPI_TAG_UB) {
    *static_cast<int**>(attribute_val) = &e->shared->user_tag_ub;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (is_world_attribute(comm_keyval)) {
    const int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, comm_keyval, attribute_val, flag);
    if (rc != MPI_SUCCESS) return detail::check_mpi(rc, e, fn, "MPI_Comm_get_attr");
    if (*flag && (comm_keyval == MPI_HOST || comm_keyval == MPI_IO)) {
      *static_cast<int**>(attribute_val) = rank_attribute(*e, *static_cast<int**>(attribute_val));
    }
    return MPI_SUCCESS;
  }
  const int rc = MPI_Comm_get_attr(e->shared->mpi_comm, comm_keyval, attribute_val, flag);
  return detail::check_mpi(rc, e, fn, "MPI_Comm_get_attr");
}

namespace {

// Identities of a group of `shared`, in rank order.
std::vector<std::int64_t> identities_of(const CommShared& shared, int group) {
  if (!shared.inter) return shared.identities;
  std::vector<std::int64_t> ids;
  for (int u : shared.members(group)) ids.push_back(shared.identities[static_cast<std::size_t>(u)]);
  return ids;
}

// MPI_CONGRUENT if equal in order, MPI_SIMILAR if equal as sets, else MPI_UNEQUAL.
int compare_groups(std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
  if (a == b) return MPI_CONGRUENT;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? MPI_SIMILAR : MPI_UNEQUAL;
}

}  // namespace

int Comm_compare(Comm comm1, Comm comm2, int* result) {
  constexpr const char* fn = "Comm_compare";
  Endpoint* a = detail::valid_endpoint(comm1);
  Endpoint* b = detail::valid_endpoint(comm2);
  if (!a) return detail::invalid_comm(comm1, fn);
  if (!b) return detail::invalid_comm(comm2, fn);
  if (!result) return raise(a, MPI_ERR_ARG, fn, "result is a null pointer");
  const CommShared& x = *a->shared;
  const CommShared& y = *b->shared;
  if (&x == &y) {
    *result = MPI_IDENT;
  } else if (x.inter != y.inter) {
    *result = MPI_UNEQUAL;
  } else if (!x.inter) {
    *result = compare_groups(identities_of(x, 0), identities_of(y, 0));
  } else {
    // Inter-communicators: both the local and the remote groups must match.
    const int local = compare_groups(identities_of(x, a->group), identities_of(y, b->group));
    const int remote =
        compare_groups(identities_of(x, 1 - a->group), identities_of(y, 1 - b->group));
    // The weaker of the two answers.
    auto weakness = [](int r) { return r == MPI_CONGRUENT ? 0 : r == MPI_SIMILAR ? 1 : 2; };
    *result = weakness(local) >= weakness(remote) ? local : remote;
  }
  return MPI_SUCCESS;
}

}  // namespace ep
