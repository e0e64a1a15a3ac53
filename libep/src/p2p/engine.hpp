// The point-to-point engine: matching and scheduling, below the public
// functions (which check arguments) and above the two transports, intra
// (same process: one copy, sender matches the receiver's posted queue) and
// remote (other processes: MPI, envelopes in the MPI tag, matched probes).
//
// Threading: each endpoint is driven by one thread at a time, its owner.
// Other threads of the process touch an endpoint only to deliver to it, under
// its MatchState lock, and to complete requests they matched.
#pragma once

#include "object/endpoint.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// A message matches a receive if source and tag agree or are wildcards.
inline bool matches(int want_source, int want_tag, int source, int tag) {
  return (want_source == MPI_ANY_SOURCE || want_source == source) &&
         (want_tag == MPI_ANY_TAG || want_tag == tag);
}

/// Status of a receive from MPI_PROC_NULL, and of null or inactive requests.
Status proc_null_status();
Status empty_status();

/// Starts the send described by `r` (endpoint, buffer, peer, tag, mode set).
/// `blocking` lets the remote path block inside MPI instead of returning a
/// request to poll. Returns an MPI error code (already raised).
int start_send(RequestImpl* r, bool blocking, const char* function);

/// Starts the receive described by `r`: matches it against the unexpected
/// queue or posts it (`blocking`: a blocking receive, which may wait inside
/// MPI for a message it has matched). Returns an MPI error code (already raised).
int start_recv(RequestImpl* r, bool blocking, const char* function);

/// Makes progress on `r` and reports whether it has completed. Never blocks.
bool test_request(RequestImpl* r);

/// Pulls messages off MPI for `endpoint` if it has posted receives.
void progress(Endpoint* endpoint);

/// Waits for `r` to complete, giving the core away while it waits.
void wait_request(RequestImpl* r);

/// Takes messages of other processes addressed to `endpoint` off MPI and
/// matches them against its posted receives, queueing the rest.
int drain_remote(Endpoint* endpoint);

/// Whether a receive or probe for `source` on `endpoint` may be satisfied by
/// a message from another process (and so must look at MPI).
bool may_match_remote(const Endpoint* endpoint, int source);

/// Finds the first unexpected message matching (source, tag), draining MPI
/// first where needed; with `take`, unlinks it (a matched probe). Never blocks.
Incoming* find_unexpected(Endpoint* endpoint, int source, int tag, bool take);

/// Delivers a message taken from the unexpected queue to the receive `r`
/// (`blocking`: the remote case may block in MPI_Mrecv). Frees `message`.
void deliver(Incoming* message, RequestImpl* r, bool blocking);

/// Acknowledges a synchronous remote send once it is matched.
int acknowledge(Endpoint* endpoint, const Incoming& message);

/// Frees the requests the user released while active, once complete.
void reap_orphans(Endpoint* endpoint);

// Transports.
int intra_send(RequestImpl* r);
int remote_send(RequestImpl* r, bool blocking);
void deliver_remote(Incoming* message, RequestImpl* r, bool blocking);
bool test_remote(RequestImpl* r);

}  // namespace ep::detail
