// The MPI transport: moves messages between endpoints of different processes
// through MPI, and reports each message that arrives to the engine
// (engine.cpp), which matches it. It never looks at an endpoint's queues.
//
// A message to local endpoint l of process p goes to MPI rank p on
// inbox[l], the MPI communicator that only endpoint l of each process
// probes, with the sender's local index and the user tag in the MPI tag
// (tag_layout.hpp). The receiver takes messages off its inbox in MPI's order
// with MPI_Improbe, so the data stays inside MPI until MPI_Imrecv or
// MPI_Mrecv places it in the user's buffer: no extra copy, and MPI's
// non-overtaking order per sender carries over to the endpoint.
//
// A synchronous send must not complete before its receive is matched, but
// the matched probe completes an MPI_Issend as soon as the message is taken
// off MPI, which may be long before the user posts the receive. So the
// sender marks the message `sync` and waits for a zero-byte acknowledgement
// that the receiver sends on acks[sender's local] once the user's receive
// (or matched probe) has matched it.
#pragma once

#include "object/endpoint.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// Hands the send `s`, addressed to union rank s->target in another process,
/// to MPI. `blocking`: a blocking send, which may complete inside MPI_Send.
/// Returns an MPI error code.
int mpi_send(RequestImpl* s, bool blocking);

/// Takes the next message addressed to `endpoint` off MPI, in MPI's order,
/// as a remote Incoming whose data stays inside MPI; *arrival is nullptr if
/// there is none. Never blocks. Returns an MPI error code.
int mpi_next_arrival(Endpoint* endpoint, Incoming** arrival);

/// Tells the sender of `message` that a receive or matched probe of
/// `endpoint` matched it, if the sender waits for that (a synchronous send).
/// Returns an MPI error code.
int mpi_acknowledge(Endpoint* endpoint, const Incoming& message);

/// Receives the remote `message` into the receive `r` it matched (the engine
/// has set r's status) and frees `message`: at once (`blocking`) or as an MPI
/// request that mpi_test completes. A failure ends up in r's status.
void mpi_receive(Incoming* message, RequestImpl* r, bool blocking);

/// Tests the MPI requests of `r` and completes it once all are done. Never
/// blocks. A failure ends up in r's status.
bool mpi_test(RequestImpl* r);

/// Receives and drops a remote message that nobody will receive (its
/// communicator is being freed), and frees `message`. Returns an MPI error code.
int mpi_discard(Incoming* message);

}  // namespace ep::detail
