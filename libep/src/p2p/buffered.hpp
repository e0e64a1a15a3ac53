// Buffered sends (Bsend, Ibsend, Bsend_init): the buffer a program attaches
// with Buffer_attach, and the messages waiting in it.
//
// As in MPI the buffer belongs to the process, here to the endpoint's
// identity (object/endpoint.hpp): one buffer per identity, used by the
// buffered sends on every communicator of that identity (dup, split, ...).
// A buffered send packs its message into the buffer and sends it from there
// as a standard send that no user request stands for (a *buffered message*);
// the user's operation is then complete. Each message takes Pack_size +
// MPI_BSEND_OVERHEAD bytes of the buffer, so a buffer sized as MPI says
// always holds the messages it was sized for; the space comes back when the
// message's send completes.
//
// Threads: endpoints of one identity may be driven by different threads at
// once, so each buffer has a lock, and a buffered message keeps nothing in
// its endpoint once started (see buffered.cpp): any thread of the identity
// may test and reclaim it, also after its communicator was freed.
#pragma once

#include "object/request.hpp"

namespace ep::detail {

/// Starts the buffered send `r` (mode buffered, arguments checked): packs its
/// message into the identity's buffer and sends it from there; `r` is then
/// complete. Raises MPI_ERR_BUFFER through r's endpoint when no buffer is
/// attached or it has no room, and MPI failures. Returns an MPI error code.
int start_buffered(RequestImpl* r, const char* function);

/// Attaches `size` bytes at `buffer` to the identity of `endpoint`, raising
/// MPI_ERR_BUFFER if one is attached already.
int attach_buffer(Endpoint* endpoint, void* buffer, int size, const char* function);

/// Waits until every buffered message of the identity of `endpoint` has been
/// sent, moving the endpoint's other operations on meanwhile, then detaches
/// the buffer: its address and size, or nullptr and 0 if none was attached.
void detach_buffer(Endpoint* endpoint, void** buffer, int* size);

}  // namespace ep::detail
