// What the public point-to-point functions share between their argument
// checks (checks.hpp) and the engine: a request filled in from checked
// arguments, and the start and end of an operation, which report failures
// through the endpoint's error handler on behalf of the public `function`.
#pragma once

#include "object/request.hpp"
#include "p2p/checks.hpp"

namespace ep::detail {

/// Fills in the operation's arguments of `r`. Inline: every call makes one.
inline void fill_request(RequestImpl* r, RequestImpl::Kind kind, SendMode mode,
                         const MessageArgs& args, const void* buf, int count, MPI_Datatype type,
                         int peer, int tag) {
  r->kind = kind;
  r->mode = mode;
  r->endpoint = args.endpoint;
  r->buf = const_cast<void*>(buf);  // a send never writes through it
  r->count = count;
  r->type = type;
  r->layout = args.layout;
  r->peer = peer;
  r->tag = tag;
}

/// Makes `r` hold a duplicate of its datatype if that is a derived one, so
/// that the user may free the type while the operation is pending (MPI
/// defers such a free). For requests that outlive the call that made them.
/// Returns an MPI error code.
int hold_type(RequestImpl* r);

/// Starts the send or receive `r` (engine.hpp: start_send, start_recv;
/// buffered.hpp: start_buffered), raising an MPI failure. Returns an MPI
/// error code.
int start_request(RequestImpl* r, bool blocking, const char* function);

/// A fresh request for a non-blocking operation of `endpoint`, in the
/// storage of one it freed earlier when there is one.
RequestImpl* new_request(Endpoint* endpoint);
/// Frees the request `r`, made by new_request or by new: its storage goes to
/// its endpoint for the next one. By the endpoint's thread only.
void free_request(RequestImpl* r);

/// Ends a completed request: copies its status out, frees it (non-persistent:
/// *handle becomes REQUEST_NULL) or makes it inactive (persistent). Returns
/// the request's error code, raising it through the endpoint's handler
/// unless `raise_error` is false (the caller raises MPI_ERR_IN_STATUS).
int finish_request(Request* handle, Status* status, const char* function, bool raise_error = true);

/// Completes a blocking operation's stack request: copies the status out and
/// raises its error, if any.
int conclude(RequestImpl& r, Status* status, const char* function);

}  // namespace ep::detail
