// Point-to-point for libep's own traffic on a user's communicator, such as
// the group leaders' exchange of Intercomm_create over peer_comm: the engine
// without the public layer above it. The public functions check their
// arguments and report errors through the user's error handler, as calls of
// the user; libep's own messages are not the user's calls. So the callers
// here pass arguments they have checked, and get MPI error codes back, which
// the public call that needed the traffic reports once, as its own error.
#pragma once

#include <mpi.h>

#include "ep/types.hpp"
#include "object/endpoint.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// Starts sending `count` elements of `type` from `buf` to rank `dest` of
/// the endpoint's communicator, with `tag`. `request` is the caller's (on its
/// stack, say) and ends with internal_wait. Returns an MPI error code.
int internal_isend(Endpoint* endpoint, const void* buf, int count, MPI_Datatype type, int dest,
                   int tag, RequestImpl* request);

/// Waits until a message from `source` with `tag` can be received, and
/// describes it in *status without receiving it. Returns an MPI error code.
int internal_probe(Endpoint* endpoint, int source, int tag, Status* status);

/// Receives a message into `count` elements of `type` at `buf`. Returns the
/// receive's error (MPI_ERR_TRUNCATE for a longer message) or an MPI error code.
int internal_recv(Endpoint* endpoint, void* buf, int count, MPI_Datatype type, int source, int tag);

/// Waits for a request of internal_isend to complete; returns its error.
int internal_wait(RequestImpl* request);

/// Lets go of a request with a handle, as Request_free: freed at once if it
/// is complete, else by its endpoint once it completes. Its handle is stale
/// from now on.
void internal_release(RequestImpl* request);

}  // namespace ep::detail
