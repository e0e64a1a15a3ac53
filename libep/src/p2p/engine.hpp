// The point-to-point engine: the one place that matches. It owns the
// endpoints' matching state (MatchState: the posted and unexpected queues),
// pairs each message with a receive, and schedules the rest. Below it the
// transports only move bytes: transport_intra (same process: one copy) and
// transport_mpi (other processes: MPI, envelopes in the MPI tag, matched
// probes), which reports each message it takes off MPI back to the engine.
// Above it the public functions (api_*.cpp) check arguments and report
// errors; the engine reports none itself: it returns MPI error codes, or
// leaves them in a request's status.
//
// Threading: each endpoint is driven by one thread at a time, its owner.
// Other threads of the process touch an endpoint only to deliver to it, under
// its MatchState lock, and to complete requests they matched.
#pragma once

#include "object/endpoint.hpp"
#include "object/posted_queue.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// Status of a receive from MPI_PROC_NULL, and of null or inactive requests.
Status proc_null_status();
/// Inline: it is written into every request a receive starts.
inline Status empty_status() { return Status{}; }
/// Gives the user `from` in *out (unless out is STATUS_IGNORE), leaving its
/// MPI_ERROR as the user set it: MPI writes that field only in the statuses
/// of a multiple-completion call that returns MPI_ERR_IN_STATUS.
inline void give_status(Status* out, const Status& from) {
  if (!out) return;
  const int kept = out->MPI_ERROR;
  *out = from;
  out->MPI_ERROR = kept;
}
/// Status of a probe that found `message`.
Status status_of(const Incoming& message);

/// Starts the send described by `r` (endpoint, buffer, peer, tag, mode set).
/// `blocking` lets the remote path block inside MPI instead of returning a
/// request to poll. Returns the MPI error code of the transport.
int start_send(RequestImpl* r, bool blocking);

/// Makes the rings between the processes of `parent` on one node where they
/// have none (node/rings.hpp): collective over `parent`, called by
/// Comm_create_endpoints. Returns an MPI error code; *why says what failed.
int attach_node(MPI_Comm parent, std::string* why);

/// Routes `shared`'s messages to and from the processes of its node through
/// rings where they have them (node/rings.hpp), and delivers those
/// that came before: the constructors call it once the communicator is
/// complete in this process, before its endpoints are handed out.
void register_node_routes(CommShared& shared);

/// Stops delivering `shared`'s messages from rings: it is being freed.
void unregister_node_routes(const CommShared& shared);

/// Starts the receive described by `r`: matches it against the unexpected
/// queue or posts it (`blocking`: a blocking receive, which may wait inside
/// MPI for a message it has matched). Returns the MPI error code of taking
/// messages off MPI (MPI_Improbe); the receive is not posted then.
int start_recv(RequestImpl* r, bool blocking);

/// Looks for the first unexpected message matching (source, tag), taking
/// messages off MPI first where needed. Never blocks. With `take` it unlinks
/// the message (a matched probe) and tells a synchronous sender. *found is
/// the message, or nullptr if none matches. Returns an MPI error code: with
/// *found nullptr, of taking messages off MPI (MPI_Improbe); otherwise of
/// the synchronous sender's acknowledgement (MPI_Isend).
int probe(Endpoint* endpoint, int source, int tag, bool take, Incoming** found);

/// Delivers a message taken by a matched probe to the receive `r`
/// (`blocking`: the remote case may block in MPI_Mrecv). Frees `message`.
void deliver(Incoming* message, RequestImpl* r, bool blocking);

/// Cancels the receive `r` if no message has matched it yet: it completes
/// with a cancelled status. Returns whether it was cancelled.
bool cancel_recv(RequestImpl* r);

/// Makes progress on `r` and reports whether it has completed. Never blocks.
/// A failure to take messages off MPI for a posted receive completes it with
/// the error in its status. `progressed`: the caller has just called
/// progress() on r's endpoint, which tested r if it is a receive posted in
/// MPI that waits for its inbox message; it is not tested again (each test
/// of an unfinished MPI request makes MPI poll its transports).
bool test_request(RequestImpl* r, bool progressed = false);

/// Moves the data an intra-process sender left in the complete receive `r`
/// (RequestImpl::inline_data) into its buffer, if it did; test_request does
/// it when it finds r complete, internal_release before freeing r.
void take_inline(RequestImpl* r);

/// test_request(r, progressed = true) of each of `requests`, except that the
/// sends MPI carries are tested together, with one MPI call (mpi_test_sends).
/// Keeps those still under way at the front of the array, in their order,
/// and returns how many they are. Never blocks. `*sends`: whether any of
/// `requests` may be a send; if not, the sends are not looked for (a window
/// of receives pays nothing for them). Set to whether any kept one is.
int test_requests(RequestImpl** requests, int count, bool* sends);

/// Waits for `r` to complete, giving the core away while it waits.
void wait_request(RequestImpl* r);

/// Moves the other operations of `endpoint` on: takes messages off MPI for
/// its receives posted in libep, and tests its receives posted in MPI that
/// wait for their inbox message. A test or wait in MPI progresses every
/// operation of the process; an endpoint's tests and waits do this, since
/// the operation they look at may wait for a peer that waits for another.
void progress(Endpoint* endpoint);

/// Frees the requests the user released while active, once complete.
/// `progressed` as for test_request: the caller has just run mpi_progress.
void reap_orphans(Endpoint* endpoint, bool progressed = false);

/// Drops the messages nobody received, when the endpoint's communicator is
/// freed. Returns the first failure's MPI error code.
int discard_unexpected(Endpoint* endpoint);

}  // namespace ep::detail
