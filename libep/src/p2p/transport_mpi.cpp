#include "p2p/transport_mpi.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <vector>

#include "object/error.hpp"

namespace ep::detail {

namespace {

// An inbox message (transport_mpi.hpp) is told apart by its length alone:
// up to kCarriedLimit bytes, the packed data of a carried send; exactly
// kNoticeBytes, a notice: two words (the bulk message's length, then its
// number, its MPI tag on the bulk channel), padded with zeros past any
// carried message. Nothing else rides along with carried data: 8 bytes more
// took an 8-byte message out of Open MPI's fastest shared-memory case
// (docs/design.md, "Point-to-point between processes").
using Word = std::int64_t;
constexpr int kWordBytes = sizeof(Word);
constexpr int kNoticeBytes = static_cast<int>(kCarriedLimit) + 2 * kWordBytes;
constexpr int kWireBytes = kNoticeBytes;  // holds any inbox message

enum class WireKind { carried, notice, invalid };
WireKind wire_kind(int length) {
  if (length == kNoticeBytes) return WireKind::notice;
  if (length >= 0 && length <= kCarriedLimit) return WireKind::carried;
  return WireKind::invalid;  // MPI_UNDEFINED, or not from libep
}

ConstTyped send_data(const RequestImpl& s) { return {s.buf, s.count, s.type, s.layout}; }
Typed receive_target(const RequestImpl& r) { return {r.buf, r.count, r.type, r.layout}; }

Word read_word(const std::byte* wire, int index = 0) {
  Word word = 0;
  std::memcpy(&word, wire + index * kWordBytes, sizeof word);
  return word;
}

// An inbox buffer for the request `r`, a spare one of its endpoint if there
// is one: small messages are the common case, and an allocation would cost
// about as much as MPI's own work on them.
std::byte* wire_of(RequestImpl* r) {
  if (r->wire) return r->wire.get();
  std::vector<std::unique_ptr<std::byte[]>>& spares = r->endpoint->spare_wires;
  if (spares.empty()) {
    r->wire = std::make_unique_for_overwrite<std::byte[]>(kWireBytes);
  } else {
    r->wire = std::move(spares.back());
    spares.pop_back();
  }
  return r->wire.get();
}

// Gives the inbox buffer of the completed request `r` back to its endpoint,
// keeping enough for a window of messages in flight.
void release_wire(RequestImpl* r) {
  constexpr std::size_t kSpares = 64;
  if (!r->wire) return;
  std::vector<std::unique_ptr<std::byte[]>>& spares = r->endpoint->spare_wires;
  if (spares.size() < kSpares) spares.push_back(std::move(r->wire));
  r->wire.reset();
}

// The channels of the messages to local endpoint `local` of a process.
MPI_Comm inbox_of(const CommShared& shared, int local) {
  return shared.inbox[static_cast<std::size_t>(shared.tags.channel_of(local))];
}
MPI_Comm bulk_of(const CommShared& shared, int local) {
  return shared.bulk[static_cast<std::size_t>(shared.tags.channel_of(local))];
}

// The MPI tag of a message from local endpoint `source_local` to local
// endpoint `dest_local` of another process, carrying `tag`.
int wire_tag(const CommShared& shared, int dest_local, int source_local, int tag) {
  return shared.tags.encode({shared.tags.slot_of(dest_local), source_local, tag});
}

// Whether two receives of one endpoint posted in MPI wait for the same MPI
// messages: their MPI source and tag follow from the source and tag.
bool same_envelope(const RequestImpl& a, const RequestImpl& b) {
  return a.peer == b.peer && a.tag == b.tag;
}

// Starts the inbox phase of the receive `r`, being posted in MPI: behind the
// receives of its envelope (Endpoint::inbox_heads), or heading a new queue.
void join_inbox(RequestImpl* r) {
  r->phase = RequestImpl::Phase::inbox;
  r->inbox_next = nullptr;
  std::vector<RequestImpl*>& heads = r->endpoint->inbox_heads;
  for (RequestImpl* head : heads) {
    if (same_envelope(*head, *r)) {
      head->inbox_last->inbox_next = r;
      head->inbox_last = r;
      return;
    }
  }
  r->inbox_slot = static_cast<std::uint32_t>(heads.size());
  r->inbox_last = r;
  heads.push_back(r);
}

// Ends the inbox phase of the receive `r` posted in MPI. A head gives its
// place to the next receive of its envelope, or the last head fills the
// hole (the heads are in no order); a receive behind a head (cancelled, or
// tested on its own) leaves its queue.
void leave_inbox(RequestImpl* r) {
  if (r->phase != RequestImpl::Phase::inbox) return;
  r->phase = RequestImpl::Phase::none;
  std::vector<RequestImpl*>& heads = r->endpoint->inbox_heads;
  const std::uint32_t slot = r->inbox_slot;
  if (slot < heads.size() && heads[slot] == r) {
    if (RequestImpl* next = r->inbox_next) {
      next->inbox_slot = slot;
      next->inbox_last = r->inbox_last;
      heads[slot] = next;
    } else {
      RequestImpl* last = heads.back();
      heads[slot] = last;
      last->inbox_slot = slot;
      heads.pop_back();
    }
  } else {
    for (RequestImpl* head : heads) {
      if (!same_envelope(*head, *r)) continue;
      RequestImpl* before = head;
      while (before->inbox_next != r) before = before->inbox_next;
      before->inbox_next = r->inbox_next;
      if (head->inbox_last == r) head->inbox_last = before;
      break;
    }
  }
  r->inbox_next = nullptr;
}

// Sends of this process whose bulk message MPI carries and has not
// completed (mpi_bulk_in_flight).
std::atomic<int> bulk_in_flight{0};

void complete(RequestImpl* r) {
  if (r->kind == RequestImpl::Kind::send && r->phase == RequestImpl::Phase::bulk)
    bulk_in_flight.fetch_sub(1, std::memory_order_relaxed);
  leave_inbox(r);
  release_wire(r);
  r->mpi = MPI_REQUEST_NULL;
  r->phase = RequestImpl::Phase::none;
  // Release: another endpoint's thread may complete a receive it delivered
  // to (a message it took off a shared channel), and the owner reads the
  // request after seeing the state.
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
}

void fail(RequestImpl* r, int rc) {
  if (r->status.MPI_ERROR == MPI_SUCCESS) r->status.MPI_ERROR = error_class_of(rc);
  complete(r);
}

// A bulk message longer than the receive buffer is received whole into
// scratch memory and only what fits is copied: Open MPI 4.1.4 writes past the
// end of the buffer of a truncated receive beyond its eager size (the MPI
// defects in docs/design.md), and MPI promises nothing about the buffer's tail.
int receive_truncated(MPI_Message* message, std::int64_t bytes, RequestImpl* r) {
  std::vector<std::byte> scratch(static_cast<std::size_t>(bytes));
  const int rc =
      MPI_Mrecv(scratch.data(), static_cast<int>(bytes), MPI_BYTE, message, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS) unpack(scratch.data(), bytes, receive_target(*r));
  return rc;
}

// Receives the bulk message number `number`, of `bytes` bytes, from local
// endpoint `source_local` of MPI rank `source_mpi_rank`, which the notice just
// matched by `r` announced (r's status is set). The sender posted it right
// after the notice, so its envelope is there or on its way: the probe may
// block, the data only if `blocking`.
void receive_bulk(RequestImpl* r, int source_mpi_rank, int source_local, int number,
                  std::int64_t bytes, bool blocking) {
  const CommShared& shared = *r->endpoint->shared;
  MPI_Message message = MPI_MESSAGE_NULL;
  const int local = r->endpoint->local;
  int rc = MPI_Mprobe(source_mpi_rank, wire_tag(shared, local, source_local, number),
                      bulk_of(shared, local), &message, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return fail(r, rc);
  if (r->status.MPI_ERROR == MPI_ERR_TRUNCATE) {
    rc = receive_truncated(&message, bytes, r);
    return rc == MPI_SUCCESS ? complete(r) : fail(r, rc);
  }
  if (blocking) {
    rc = MPI_Mrecv(r->buf, r->count, r->type, &message, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? complete(r) : fail(r, rc);
  }
  rc = MPI_Imrecv(r->buf, r->count, r->type, &message, &r->mpi);
  if (rc != MPI_SUCCESS) return fail(r, rc);
  r->phase = RequestImpl::Phase::bulk;
  r->state.store(RequestImpl::State::in_mpi, std::memory_order_release);
}

}  // namespace

int mpi_send(RequestImpl* s, bool blocking) {
  Endpoint* self = s->endpoint;
  CommShared& shared = *self->shared;
  const Location to = shared.map.at(s->target);
  const int mpi_tag = wire_tag(shared, to.local_rank, self->local, s->tag);
  const ConstTyped data = send_data(*s);
  const std::int64_t bytes = data.bytes();
  const bool sync = s->mode == SendMode::synchronous;
  MPI_Comm inbox = inbox_of(shared, to.local_rank);

  if (!sync && bytes <= kCarriedLimit) {
    // One eager inbox message of the packed data, sent from the user's
    // buffer itself when its data is contiguous. A blocking send completes
    // inside MPI_Send, which for so small a message cannot depend on its
    // receiver.
    const std::byte* packed = data.data_start();
    std::byte stack_wire[kCarriedLimit];
    if (!data.layout.contiguous(data.count)) {
      std::byte* wire = blocking ? stack_wire : wire_of(s);
      const int rc = pack(data, wire);
      if (rc != MPI_SUCCESS) return rc;
      packed = wire;
    }
    const int length = static_cast<int>(bytes);
    if (blocking) {
      const int rc = MPI_Send(packed, length, MPI_BYTE, to.mpi_rank, mpi_tag, inbox);
      s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
      return rc;
    }
    const int rc = MPI_Isend(packed, length, MPI_BYTE, to.mpi_rank, mpi_tag, inbox, &s->mpi);
    s->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
    return rc;
  }
  // The notice, then the data on the bulk channel. MPI completes a
  // synchronous send when the receive that takes its data starts, and libep
  // starts it only once a receive of the user has matched the notice.
  //
  // Receives may take their bulk messages in another order than their
  // notices matched (a receive posted in MPI learns of its notice only when
  // tested), so each bulk message has a number of its own as its tag. The
  // numbers wrap after user_tag_ub sends, far beyond the bulk messages one
  // endpoint can have in flight.
  const int number = next_bulk_number(self);
  std::array<Word, kNoticeBytes / kWordBytes> notice{};
  notice[0] = bytes;
  notice[1] = number;
  const int rc = MPI_Send(notice.data(), kNoticeBytes, MPI_BYTE, to.mpi_rank, mpi_tag, inbox);
  if (rc != MPI_SUCCESS) return rc;
  return mpi_send_bulk(s, number);
}

int next_bulk_number(Endpoint* self) {
  return static_cast<int>(self->bulk_sent++ &
                          static_cast<unsigned>(self->shared->tags.user_tag_ub()));
}

int mpi_send_bulk(RequestImpl* s, int number) {
  const Endpoint* self = s->endpoint;
  const CommShared& shared = *self->shared;
  const Location to = shared.map.at(s->target);
  MPI_Comm bulk = bulk_of(shared, to.local_rank);
  const int bulk_tag = wire_tag(shared, to.local_rank, self->local, number);
  const int rc = s->mode == SendMode::synchronous
                     ? MPI_Issend(s->buf, s->count, s->type, to.mpi_rank, bulk_tag, bulk, &s->mpi)
                     : MPI_Isend(s->buf, s->count, s->type, to.mpi_rank, bulk_tag, bulk, &s->mpi);
  if (rc == MPI_SUCCESS) {
    s->phase = RequestImpl::Phase::bulk;
    bulk_in_flight.fetch_add(1, std::memory_order_relaxed);
  }
  s->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
  return rc;
}

bool mpi_bulk_in_flight() { return bulk_in_flight.load(std::memory_order_relaxed) != 0; }

void mpi_poke(Endpoint* endpoint) {
  int found = 0;
  (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, inbox_of(*endpoint->shared, endpoint->local),
                   &found, MPI_STATUS_IGNORE);
}

int mpi_post_receive(RequestImpl* r) {
  Endpoint* self = r->endpoint;
  const CommShared& shared = *self->shared;
  const Location from = shared.map.at(shared.peer_to_union(*self, r->peer));
  const int rc = MPI_Irecv(wire_of(r), kWireBytes, MPI_BYTE, from.mpi_rank,
                           wire_tag(shared, self->local, from.local_rank, r->tag),
                           inbox_of(shared, self->local), &r->mpi);
  if (rc != MPI_SUCCESS) return rc;  // the caller frees r
  r->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
  join_inbox(r);
  return MPI_SUCCESS;
}

int mpi_peek_arrival(Endpoint* endpoint, bool* waiting) {
  int found = 0;
  const int rc =
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, inbox_of(*endpoint->shared, endpoint->local), &found,
                 MPI_STATUS_IGNORE);
  *waiting = rc == MPI_SUCCESS && found != 0;
  return rc;
}

int mpi_next_arrival(Endpoint* endpoint, Incoming** arrival, Endpoint** to) {
  *arrival = nullptr;
  *to = nullptr;
  const CommShared& shared = *endpoint->shared;
  MPI_Comm inbox = inbox_of(shared, endpoint->local);
  int found = 0;
  MPI_Message handle = MPI_MESSAGE_NULL;
  MPI_Status status;
  int rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, inbox, &found, &handle, &status);
  if (rc != MPI_SUCCESS || !found) return rc;
  int length = 0;
  rc = MPI_Get_count(&status, MPI_BYTE, &length);
  if (rc != MPI_SUCCESS) return rc;
  // Inbox messages are small and never synchronous: taking one whole now
  // completes nothing a sender could observe too early.
  std::byte wire[kWireBytes];
  rc = MPI_Mrecv(wire, kWireBytes, MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  const WireKind kind = wire_kind(length);
  if (kind == WireKind::invalid) return MPI_ERR_INTERN;

  const Envelope envelope = shared.tags.decode(status.MPI_TAG);
  const auto destination = static_cast<std::size_t>(
      shared.tags.local_of(shared.tags.channel_of(endpoint->local), envelope.dest_slot));
  if (destination >= shared.endpoints.size()) return MPI_ERR_INTERN;
  auto* message = new Incoming;
  message->from_other_process = true;
  message->source =
      shared.source_rank(shared.map.rank_of(status.MPI_SOURCE, envelope.source_local));
  message->tag = envelope.tag;
  if (kind == WireKind::carried) {
    message->kind = Incoming::Kind::eager;
    message->bytes = length;
    std::memcpy(message->eager_room(message->bytes), wire,
                static_cast<std::size_t>(message->bytes));
  } else {
    message->kind = Incoming::Kind::remote;
    message->bytes = read_word(wire);
    message->source_mpi_rank = status.MPI_SOURCE;
    message->source_local = envelope.source_local;
    message->bulk_number = static_cast<int>(read_word(wire, 1));
  }
  *arrival = message;
  *to = shared.endpoints[destination].get();
  return MPI_SUCCESS;
}

void mpi_receive(Incoming* message, RequestImpl* r, bool blocking) {
  receive_bulk(r, message->source_mpi_rank, message->source_local, message->bulk_number,
               message->bytes, blocking);
  delete message;
}

namespace {

// The inbox message of a receive posted in MPI has arrived (`status`):
// place its data, or go on to the bulk message it announces.
void take_inbox_message(RequestImpl* r, const MPI_Status& status) {
  int length = 0;
  int rc = MPI_Get_count(&status, MPI_BYTE, &length);
  const WireKind kind = wire_kind(length);
  if (rc == MPI_SUCCESS && kind == WireKind::invalid) rc = MPI_ERR_INTERN;
  if (rc != MPI_SUCCESS) return fail(r, rc);
  const std::byte* wire = r->wire.get();
  const CommShared& shared = *r->endpoint->shared;
  r->mpi = MPI_REQUEST_NULL;
  leave_inbox(r);
  if (kind == WireKind::carried) {
    r->set_matched(r->peer, r->tag, length);
    unpack(wire, length, receive_target(*r));
    return complete(r);
  }
  const Word word = read_word(wire);
  r->set_matched(r->peer, r->tag, word);
  const Location from = shared.map.at(shared.peer_to_union(*r->endpoint, r->peer));
  receive_bulk(r, from.mpi_rank, from.local_rank, static_cast<int>(read_word(wire, 1)), word,
               /*blocking=*/false);
}

// Whether MPI_Testsome failed as a whole: it then completed and freed
// nothing, and each request may be tested on its own for its own error.
// With MPI_ERR_IN_STATUS it completed some, freed them, and left their
// errors in their statuses.
bool testsome_failed_whole(int rc) {
  return rc != MPI_SUCCESS && error_class_of(rc) != MPI_ERR_IN_STATUS;
}

// The error of a request MPI_Testsome (returning `rc`) completed with `status`.
int tested_error(int rc, const MPI_Status& status) {
  return rc == MPI_SUCCESS ? MPI_SUCCESS : status.MPI_ERROR;
}

// The request `r`, which MPI_Testsome completed: it fails with its error,
// or, as in mpi_test, a receive in its inbox phase takes its inbox message
// and anything else completes.
void take_tested(RequestImpl* r, int rc, const MPI_Status& status) {
  r->mpi = MPI_REQUEST_NULL;  // MPI freed it
  const int error = tested_error(rc, status);
  if (error != MPI_SUCCESS) return fail(r, error);
  if (r->phase == RequestImpl::Phase::inbox) return take_inbox_message(r, status);
  complete(r);
}

// The most requests one MPI_Testsome is given.
constexpr std::size_t kTestBatch = 64;

// Tests the `count` (at most kTestBatch) in_mpi requests `requests` with one
// MPI_Testsome and takes those it completed, in ascending order. Returns how
// many those are, or -1 if MPI_Testsome failed as a whole: each was then
// tested on its own, so that each gets its own error.
int testsome_and_take(RequestImpl* const* requests, int count) {
  std::array<MPI_Request, kTestBatch> handles;
  std::array<MPI_Status, kTestBatch> statuses;
  std::array<int, kTestBatch> indices;
  for (int i = 0; i < count; ++i) handles[static_cast<std::size_t>(i)] = requests[i]->mpi;
  int completed = 0;
  const int rc = MPI_Testsome(count, handles.data(), &completed, indices.data(), statuses.data());
  if (testsome_failed_whole(rc)) {
    for (int i = 0; i < count; ++i) (void)mpi_test(requests[i]);
    return -1;
  }
  if (completed == MPI_UNDEFINED) return 0;
  for (int j = 0; j < completed; ++j) {
    take_tested(requests[indices[static_cast<std::size_t>(j)]], rc,
                statuses[static_cast<std::size_t>(j)]);
  }
  return completed;
}

}  // namespace

bool mpi_test(RequestImpl* r) {
  int done = 0;
  MPI_Status status;
  const int rc = MPI_Test(&r->mpi, &done, &status);
  if (rc != MPI_SUCCESS) {
    fail(r, rc);
    return true;
  }
  if (!done) return false;
  if (r->phase == RequestImpl::Phase::inbox) {
    take_inbox_message(r, status);
    return r->state.load(std::memory_order_relaxed) == RequestImpl::State::complete;
  }
  complete(r);
  return true;
}

void mpi_test_sends(RequestImpl* const* requests, int count) {
  std::array<RequestImpl*, kTestBatch> sends;
  for (int next = 0; next < count;) {
    int n = 0;
    for (; next < count && n < static_cast<int>(kTestBatch); ++next) {
      if (is_send_in_mpi(*requests[next])) sends[static_cast<std::size_t>(n++)] = requests[next];
    }
    // MPICH would raise an error of Testsome on MPI_COMM_WORLD rather than
    // the channel's communicator; a send has none to raise short of a
    // broken connection, which ends the job anyway. One is tested as well
    // on its own.
    if (n == 1) {
      (void)mpi_test(sends[0]);
    } else if (n > 1) {
      (void)testsome_and_take(sends.data(), n);
    }
  }
}

bool mpi_cancel_receive(RequestImpl* r) {
  if (r->phase != RequestImpl::Phase::inbox) return false;  // matched: in its bulk phase
  int rc = MPI_Cancel(&r->mpi);
  MPI_Status status;
  // Waited for even if the cancel failed: the request must not stay active.
  const int wait_rc = MPI_Wait(&r->mpi, &status);
  if (rc == MPI_SUCCESS) rc = wait_rc;
  int cancelled = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Test_cancelled(&status, &cancelled);
  if (rc != MPI_SUCCESS) {
    fail(r, rc);
    return false;
  }
  if (!cancelled) {
    // A message matched it first: it completes as a receive.
    take_inbox_message(r, status);
    return false;
  }
  r->status = Status{};
  r->status.cancelled = 1;
  complete(r);
  return true;
}

void mpi_progress(Endpoint* endpoint) {
  // Only the head of each envelope's queue is tested: MPI matches the
  // receives of one envelope in the order they were posted, so a later one
  // completes only after its head has matched (inbox messages are eager and
  // complete at the match). A window of 64 receives from one source is one
  // test then, not 64 as in each round of a Waitall before (docs/design.md
  // has the rates).
  //
  // One MPI_Testsome for the heads: MPI_Test of a request still under way
  // makes MPI poll its transports, Testsome polls once for all. Passes go on
  // while heads complete, since the next of an envelope may have completed
  // already and testing it costs MPI no poll. MPICH would raise an error of
  // Testsome on MPI_COMM_WORLD rather than the inbox's communicator, but an
  // inbox receive has none to raise: its buffer holds any inbox message, so
  // it cannot be truncated.
  std::vector<RequestImpl*>& heads = endpoint->inbox_heads;
  std::array<RequestImpl*, kTestBatch> batched;
  // One envelope (the common case: a window from one source): MPI_Test of
  // its head polls MPI and looks again in one call, where Testsome returns
  // after its poll and needs a second call to harvest what the poll found.
  // Once the head has completed, the receives queued behind it may have too:
  // they are tested together, in queue order, so that one MPI call (on
  // MPICH, one take of its global lock, a fifth of a receiver's time when
  // each message took its own) harvests all that arrived.
  //
  // The receives of one envelope complete in queue order, so what arrived is
  // a prefix of the queue: it is tested in batches from the front that
  // double while every receive of a batch has completed (8, 16, 32, 64).
  // MPI_Testsome looks at each request it is given, and a whole window in
  // every call cost about 100 instructions per message received.
  constexpr std::size_t kFirstBatch = 8;
  while (heads.size() == 1) {
    RequestImpl* head = heads.front();
    (void)mpi_test(head);
    if (head->phase == RequestImpl::Phase::inbox) return;  // still waiting; MPI polled
    for (std::size_t batch = kFirstBatch; heads.size() == 1;
         batch = std::min(2 * batch, kTestBatch)) {
      int count = 0;
      for (RequestImpl* r = heads.front(); r && count < static_cast<int>(batch);
           r = r->inbox_next) {
        batched[static_cast<std::size_t>(count++)] = r;
      }
      // Taken in ascending order, which is queue order: each is the head
      // when taken, unless one before it has not completed (leave_inbox then
      // unlinks it).
      if (testsome_and_take(batched.data(), count) < count) return;
    }
  }
  for (bool again = true; again;) {
    again = false;
    // Batches from the back: a completed head's place goes to the next of
    // its envelope or to the last head, which a later batch (nearer the
    // front) does not look at.
    for (std::size_t end = heads.size(); end > 0;) {
      const std::size_t begin = end > kTestBatch ? end - kTestBatch : 0;
      const int count = static_cast<int>(end - begin);
      // Collected first: taking one moves another head into its place.
      std::copy(heads.begin() + static_cast<std::ptrdiff_t>(begin),
                heads.begin() + static_cast<std::ptrdiff_t>(end), batched.begin());
      if (testsome_and_take(batched.data(), count) > 0) again = true;
      end = std::min(begin, heads.size());
    }
  }
}

int mpi_discard(Incoming* message, Endpoint* endpoint) {
  // Received whole, as a truncated receive is (receive_truncated says why a
  // smaller buffer is not safe).
  const CommShared& shared = *endpoint->shared;
  MPI_Message handle = MPI_MESSAGE_NULL;
  int rc =
      MPI_Mprobe(message->source_mpi_rank,
                 wire_tag(shared, endpoint->local, message->source_local, message->bulk_number),
                 bulk_of(shared, endpoint->local), &handle, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS) {
    std::vector<std::byte> scratch(static_cast<std::size_t>(message->bytes));
    rc = MPI_Mrecv(scratch.data(), static_cast<int>(message->bytes), MPI_BYTE, &handle,
                   MPI_STATUS_IGNORE);
  }
  delete message;
  return rc;
}

}  // namespace ep::detail
