// The MPI transport: moves messages between endpoints of different processes
// through MPI, and reports each message that arrives to the engine
// (engine.cpp), which matches it. It never looks at an endpoint's queues.
//
// A few MPI communicators, the channels (usually one of each kind:
// ranks/tag_layout.hpp), carry the messages to the local endpoints of a
// process: inbox[c] and bulk[c] (object/endpoint.hpp), with the
// destination's slot on its channel, the sender's local index and the user
// tag in the MPI tag (tag_layout.hpp) and the sending process as the MPI
// source. Every message puts one small message on the inbox, told apart by
// its length:
//  - the packed data itself, for a standard send of at most kCarriedLimit
//    bytes: one eager MPI message, the common case, sent straight from the
//    user's buffer when its data is contiguous;
//  - a notice (the data's length and a number, padded to just over
//    kCarriedLimit bytes), for a larger or synchronous send, which the data
//    follows on bulk[c] as an MPI message of the user's buffer and datatype.
//
// A receive naming one endpoint of another process and a tag names exactly
// one MPI source and tag on the inbox, so unless a receive posted earlier in
// libep could take the same messages, it is posted in MPI directly, into an
// inbox buffer of its own (mpi_post_receive): MPI matches it as it matches
// its own receives. The endpoint tests only the oldest such receive of each
// source and tag, since MPI matches the others after it. Every other receive
// (wildcards, or behind such a receive) is served by taking inbox messages
// off MPI in MPI's order (MPI_Improbe, MPI_Mrecv) into the engine's
// unexpected queues: a probe of a channel takes the messages of every
// endpoint on it, and the engine hands each to its endpoint. The inbox
// never overflows a receive buffer, because inbox buffers hold any inbox
// message; and bulk messages are received whole into scratch memory when
// they exceed the buffer, because Open MPI 4.1.4 writes past the end of a
// buffer that a message longer than its eager size truncates.
//
// A synchronous send must not complete before a receive of the user has
// matched it. Its data is a bulk message sent with MPI_Issend, which MPI
// completes when the receive that takes it starts (not at a matched probe:
// Open MPI 4.1.4 and MPICH 4.0.2 both, and p2p.ssend_* guard it), and libep
// starts that receive only once a receive of the user has matched the notice.
// The order of one sender's messages holds: the notices are in order on the
// inbox, and the bulk messages of one (sender, tag) in order on bulk[c].
#pragma once

#include "object/endpoint.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// Standard sends up to this many bytes travel whole in their inbox message.
/// It stays far below every MPI's eager size, so that such a message never
/// waits for its receiver.
constexpr std::int64_t kCarriedLimit = 1024;

/// Hands the send `s`, addressed to union rank s->target in another process,
/// to MPI. `blocking`: a blocking send, which may complete inside MPI_Send.
/// Returns an MPI error code.
int mpi_send(RequestImpl* s, bool blocking);

/// Sends the data of `s` on the bulk channel as bulk message `number`,
/// after its notice went another way (node/rings.hpp). Returns an
/// MPI error code; s is in_mpi.
int mpi_send_bulk(RequestImpl* s, int number);

/// The number of the next bulk message of `self` (they wrap after
/// MPI_TAG_UB of the communicator).
int next_bulk_number(Endpoint* self);

/// Whether sends of this process have bulk messages that MPI has not
/// completed. MPI moves a large message on only while its sender's process
/// calls into MPI; where no other traffic of a waiting endpoint goes through
/// MPI (node/rings.hpp), its waits call mpi_poke meanwhile.
bool mpi_bulk_in_flight();

/// One call into MPI that finds nothing to do, for MPI's progress.
void mpi_poke(Endpoint* endpoint);

/// Posts the receive `r` in MPI itself: its source is one endpoint of
/// another process and its tag is not a wildcard, and no receive posted
/// earlier in libep may take its messages (the engine checks, and keeps the
/// drains of the endpoint's lane, if it has one, out of the way: object/
/// endpoint.hpp, Lane). It is in_mpi then, and mpi_test completes it.
/// Returns an MPI error code.
int mpi_post_receive(RequestImpl* r);

/// Takes the next inbox message off the channel `endpoint` receives on, in
/// MPI's order: an eager Incoming holding the data, or a remote one (a
/// notice) whose data is still inside MPI, addressed to *to (`endpoint` or
/// another endpoint of the process on the same channel). *arrival is nullptr
/// if there is none. The caller drains the channel's lane if it has one
/// (Endpoint::lane: its lock held, no post under way). Never blocks.
/// Returns an MPI error code.
int mpi_next_arrival(Endpoint* endpoint, Incoming** arrival, Endpoint** to);

/// Whether an inbox message waits in MPI on the channel `endpoint` receives
/// on (*waiting), without taking it: needs no lane. Returns an MPI error code.
int mpi_peek_arrival(Endpoint* endpoint, bool* waiting);

/// Receives the data that the notice `message` announced into the receive
/// `r` that matched it (the engine has set r's status), and frees `message`:
/// at once (`blocking`) or as an MPI request that mpi_test completes. A
/// failure ends up in r's status.
void mpi_receive(Incoming* message, RequestImpl* r, bool blocking);

/// Tests the MPI request of `r` and completes it once done (a receive posted
/// in MPI may go on to its bulk message first). Never blocks. A failure ends
/// up in r's status.
bool mpi_test(RequestImpl* r);

/// Whether `r` is a send that MPI carries and has not completed (in_mpi):
/// what mpi_test_sends tests.
inline bool is_send_in_mpi(const RequestImpl& r) {
  return r.kind == RequestImpl::Kind::send &&
         r.state.load(std::memory_order_relaxed) == RequestImpl::State::in_mpi;
}

/// Tests together, with one MPI call, the sends among `requests` whose MPI
/// request is under way, and completes those done (Waitall's window of
/// sends: one MPI_Test each cost a poll of MPI's transports, and on MPICH a
/// take of its global lock, per message). The others are left alone. Never
/// blocks. A failure ends up in the send's status.
void mpi_test_sends(RequestImpl* const* requests, int count);

/// Tests the receives of `endpoint` posted in MPI that wait for their inbox
/// message, so that a notice's sender is not kept waiting while the endpoint
/// waits for something else. Never blocks.
void mpi_progress(Endpoint* endpoint);

/// Cancels the receive `r`, in_mpi, unless a message has matched it already.
/// Returns whether it was cancelled (complete then); otherwise it goes on as
/// a matched receive.
bool mpi_cancel_receive(RequestImpl* r);

/// Receives and drops the data of the notice `message` of `endpoint` that
/// nobody will receive (its communicator is being freed), and frees
/// `message`. Returns an MPI error code.
int mpi_discard(Incoming* message, Endpoint* endpoint);

}  // namespace ep::detail
