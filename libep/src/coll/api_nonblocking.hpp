// What the public non-blocking collectives share: api_nonblocking.cpp (the
// barrier, the broadcast and the collectives that move blocks by rank) and
// api_nonblocking_reduce.cpp (the reductions). Each checks that it has a
// request to fill, builds its NonblockingCall (coll/nonblocking.hpp) and
// starts it.
#pragma once

#include <vector>

#include "coll/entry.hpp"
#include "coll/nonblocking.hpp"
#include "object/endpoint.hpp"

namespace ep::detail::icoll {

/// The ranks whose contributions an endpoint takes: every rank of an
/// intra-communicator, in rank order, or the remote group's ranks (union
/// ranks) of an inter-communicator.
std::vector<int> sources(const Endpoint& e);

/// A receive buffer the operation writes after its call returned: its
/// datatype held (a failure noted in c.err).
Typed held(NonblockingCall& c, Typed t);
std::vector<Typed> held(NonblockingCall& c, std::vector<Typed> blocks);

/// The start of every function: MPI_ERR_REQUEST, raised, for a null request
/// pointer.
int need_request(const Entered& in, const Request* request);

/// Starts the call and fills *request.
int start(NonblockingCall&& c, Request* request);

/// Entry of a function without an inter-communicator form (Iscan, Iexscan).
template <class Intra>
int enter_intra(Comm comm, const Entry& entry, Request* request, Intra&& intra) {
  return enter(comm, entry, [&](const Entered& in) {
    const int rc = need_request(in, request);
    return rc != MPI_SUCCESS ? rc : intra(in);
  });
}

/// Entry of a function with both forms.
template <class Intra, class Inter>
int enter_both(Comm comm, const Entry& entry, Request* request, Intra&& intra, Inter&& inter) {
  return enter(
      comm, entry,
      [&](const Entered& in) {
        const int rc = need_request(in, request);
        return rc != MPI_SUCCESS ? rc : intra(in);
      },
      [&](const Entered& in) {
        const int rc = need_request(in, request);
        return rc != MPI_SUCCESS ? rc : inter(in);
      });
}

}  // namespace ep::detail::icoll
