#include "p2p/transport_mpi.hpp"

#include <array>
#include <cstring>
#include <vector>

#include "object/error.hpp"

namespace ep::detail {

namespace {

// The word that starts every inbox message (transport_mpi.hpp): kCarried, or
// the length of the bulk message that follows on the bulk channel. A notice
// then holds the bulk message's number, its MPI tag there.
using Word = std::int64_t;
constexpr Word kCarried = -1;
constexpr int kWordBytes = sizeof(Word);
constexpr int kNoticeBytes = 2 * kWordBytes;
constexpr int kWireBytes = kWordBytes + static_cast<int>(kCarriedLimit);

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

// Ends the inbox phase of the receive `r` posted in MPI. The list is in no
// order (MPI matches, not the list), so the last entry fills the hole.
void leave_inbox(RequestImpl* r) {
  if (r->phase != RequestImpl::Phase::inbox) return;
  std::vector<RequestImpl*>& waiting = r->endpoint->inbox_receives;
  RequestImpl* last = waiting.back();
  waiting[r->inbox_slot] = last;
  last->inbox_slot = r->inbox_slot;
  waiting.pop_back();
  r->phase = RequestImpl::Phase::none;
}

void complete(RequestImpl* r) {
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
    // One eager inbox message: the word, then the packed data. A blocking
    // send completes inside MPI_Send, which for so small a message cannot
    // depend on its receiver.
    std::byte stack_wire[kWireBytes];
    std::byte* wire = blocking ? stack_wire : wire_of(s);
    std::memcpy(wire, &kCarried, sizeof kCarried);
    int rc = pack(data, wire + kWordBytes);
    const int length = kWordBytes + static_cast<int>(bytes);
    if (rc != MPI_SUCCESS) return rc;
    if (blocking) {
      rc = MPI_Send(wire, length, MPI_BYTE, to.mpi_rank, mpi_tag, inbox);
      s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
      return rc;
    }
    rc = MPI_Isend(wire, length, MPI_BYTE, to.mpi_rank, mpi_tag, inbox, &s->mpi);
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
  const int number =
      static_cast<int>(self->bulk_sent++ & static_cast<unsigned>(shared.tags.user_tag_ub()));
  const Word notice[2] = {bytes, number};
  int rc = MPI_Send(notice, kNoticeBytes, MPI_BYTE, to.mpi_rank, mpi_tag, inbox);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Comm bulk = bulk_of(shared, to.local_rank);
  const int bulk_tag = wire_tag(shared, to.local_rank, self->local, number);
  rc = sync ? MPI_Issend(s->buf, s->count, s->type, to.mpi_rank, bulk_tag, bulk, &s->mpi)
            : MPI_Isend(s->buf, s->count, s->type, to.mpi_rank, bulk_tag, bulk, &s->mpi);
  s->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
  return rc;
}

int mpi_post_receive(RequestImpl* r) {
  Endpoint* self = r->endpoint;
  const CommShared& shared = *self->shared;
  const Location from = shared.map.at(shared.peer_to_union(*self, r->peer));
  r->phase = RequestImpl::Phase::inbox;
  r->state.store(RequestImpl::State::in_mpi, std::memory_order_relaxed);
  r->inbox_slot = static_cast<std::uint32_t>(self->inbox_receives.size());
  self->inbox_receives.push_back(r);
  return MPI_Irecv(wire_of(r), kWireBytes, MPI_BYTE, from.mpi_rank,
                   wire_tag(shared, self->local, from.local_rank, r->tag),
                   inbox_of(shared, self->local), &r->mpi);
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
  if (length < kWordBytes) return MPI_ERR_INTERN;

  const Envelope envelope = shared.tags.decode(status.MPI_TAG);
  const auto destination = static_cast<std::size_t>(
      shared.tags.local_of(shared.tags.channel_of(endpoint->local), envelope.dest_slot));
  if (destination >= shared.endpoints.size()) return MPI_ERR_INTERN;
  const Word word = read_word(wire);
  if (word != kCarried && length != kNoticeBytes) return MPI_ERR_INTERN;
  auto* message = new Incoming;
  message->from_other_process = true;
  message->source =
      shared.source_rank(shared.map.rank_of(status.MPI_SOURCE, envelope.source_local));
  message->tag = envelope.tag;
  if (word == kCarried) {
    message->kind = Incoming::Kind::eager;
    message->bytes = length - kWordBytes;
    message->data =
        std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(message->bytes));
    std::memcpy(message->data.get(), wire + kWordBytes, static_cast<std::size_t>(message->bytes));
  } else {
    message->kind = Incoming::Kind::remote;
    message->bytes = word;
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
  if (rc == MPI_SUCCESS && (length < kWordBytes || length == MPI_UNDEFINED)) rc = MPI_ERR_INTERN;
  if (rc != MPI_SUCCESS) return fail(r, rc);
  const std::byte* wire = r->wire.get();
  const Word word = read_word(wire);
  const CommShared& shared = *r->endpoint->shared;
  r->mpi = MPI_REQUEST_NULL;
  leave_inbox(r);
  if (word == kCarried) {
    const std::int64_t bytes = length - kWordBytes;
    r->set_matched(r->peer, r->tag, bytes);
    unpack(wire + kWordBytes, bytes, receive_target(*r));
    return complete(r);
  }
  if (length != kNoticeBytes) return fail(r, MPI_ERR_INTERN);
  r->set_matched(r->peer, r->tag, word);
  const Location from = shared.map.at(shared.peer_to_union(*r->endpoint, r->peer));
  receive_bulk(r, from.mpi_rank, from.local_rank, static_cast<int>(read_word(wire, 1)), word,
               /*blocking=*/false);
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
  // One MPI_Testsome for the lot: MPI_Test of a request still under way
  // makes MPI poll its transports, Testsome polls once for all (a window of
  // 64 receives was tested 64 times per poll round). MPICH would raise an
  // error of Testsome on MPI_COMM_WORLD rather than the inbox's
  // communicator, but an inbox receive has none to raise: its buffer holds
  // any inbox message, so it cannot be truncated.
  constexpr std::size_t kBatch = 64;
  std::vector<RequestImpl*>& waiting = endpoint->inbox_receives;
  std::array<MPI_Request, kBatch> handles;
  std::array<MPI_Status, kBatch> statuses;
  std::array<int, kBatch> indices;
  std::array<RequestImpl*, kBatch> done;
  // Batches from the back: completing a receive moves the last entry into
  // its slot, which a later batch (nearer the front) does not look at.
  for (std::size_t end = waiting.size(); end > 0;) {
    const std::size_t begin = end > kBatch ? end - kBatch : 0;
    const int count = static_cast<int>(end - begin);
    for (int i = 0; i < count; ++i) handles[static_cast<std::size_t>(i)] = waiting[begin + i]->mpi;
    int completed = 0;
    const int rc = MPI_Testsome(count, handles.data(), &completed, indices.data(), statuses.data());
    if (rc != MPI_SUCCESS) {
      // Each on its own then, so that each gets its own error.
      for (std::size_t i = end; i > begin; --i) {
        if (i <= waiting.size()) (void)mpi_test(waiting[i - 1]);
      }
    } else if (completed != MPI_UNDEFINED) {
      for (int j = 0; j < completed; ++j) {
        RequestImpl* r = waiting[begin + static_cast<std::size_t>(indices[j])];
        r->mpi = MPI_REQUEST_NULL;  // MPI freed it
        done[static_cast<std::size_t>(j)] = r;
      }
      for (int j = 0; j < completed; ++j) {
        take_inbox_message(done[static_cast<std::size_t>(j)],
                           statuses[static_cast<std::size_t>(j)]);
      }
    }
    end = begin;
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
