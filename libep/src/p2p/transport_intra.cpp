#include "p2p/transport_intra.hpp"

#include <memory>

namespace ep::detail {

namespace {

// Up to this size an unexpected message is buffered so that its send
// completes at once; beyond it, buffering would cost a second large copy.
constexpr std::int64_t kEagerLimit = 16 * 1024;

ConstTyped send_data(const RequestImpl& s) { return {s.buf, s.count, s.type, s.layout}; }
Typed receive_target(const RequestImpl& r) { return {r.buf, r.count, r.type, r.layout}; }

// Whether the sender of a message for the receive `r` it matched may leave
// the data in r (RequestImpl::inline_data), and if so marks r as holding it.
bool take_inline_way(RequestImpl* r) {
  using Inline = RequestImpl::Inline;
  std::atomic<Inline>& state = r->inline_data_state;
  Inline seen = state.load(std::memory_order_relaxed);
  if (seen == Inline::accepted_for_good) {
    state.store(Inline::held, std::memory_order_relaxed);
    return true;
  }
  return seen == Inline::accepted &&
         state.compare_exchange_strong(seen, Inline::held, std::memory_order_relaxed);
}

}  // namespace

void intra_copy(RequestImpl* s, RequestImpl* r, int source, int inline_room) {
  const ConstTyped from = send_data(*s);
  const std::int64_t bytes = from.bytes();
  if (bytes <= inline_room && from.layout.contiguous(from.count)) {
    // The queue vouched for r: a blocking receive into a contiguous buffer
    // with room for the message. Only written, in the line it waits on.
    r->status = Status{source, s->tag, MPI_SUCCESS, bytes, 0};
    r->inline_data_state.store(RequestImpl::Inline::held, std::memory_order_relaxed);
    pack(from, r->inline_data);
    r->state.store(RequestImpl::State::complete, std::memory_order_release);
    s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return;
  }
  r->set_matched(source, s->tag, bytes);
  const Typed to = receive_target(*r);
  if (bytes <= RequestImpl::kInlineBytes && bytes <= to.bytes() &&
      from.layout.contiguous(from.count) && to.layout.contiguous(to.count) && take_inline_way(r)) {
    // Into the line the receiver waits on; it moves the bytes itself.
    pack(from, r->inline_data);
  } else {
    copy_typed(from, to);
  }
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
  s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
}

Incoming* intra_hold(RequestImpl* s, int source, bool to_self) {
  const ConstTyped data = send_data(*s);
  const std::int64_t bytes = data.bytes();
  auto* message = new Incoming;
  message->source = source;
  message->tag = s->tag;
  message->bytes = bytes;
  // A standard send to oneself is always buffered: waiting for a receive
  // that only this thread can post would hang a blocking Send.
  const bool eager = s->mode != SendMode::synchronous && (bytes <= kEagerLimit || to_self);
  if (eager) {
    message->kind = Incoming::Kind::eager;
    pack(data, message->eager_room(bytes));
    s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  } else {
    message->kind = Incoming::Kind::rendezvous;
    message->sender = s;
    s->state.store(RequestImpl::State::posted, std::memory_order_relaxed);
  }
  return message;
}

void intra_receive_bytes(const std::byte* data, std::int64_t bytes, RequestImpl* r) {
  unpack(data, bytes, receive_target(*r));
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
}

void intra_receive(Incoming* message, RequestImpl* r) {
  if (message->kind == Incoming::Kind::eager) {
    unpack(message->eager_data(), message->bytes, receive_target(*r));
  } else {
    RequestImpl* sender = message->sender;
    copy_typed(send_data(*sender), receive_target(*r));
    sender->state.store(RequestImpl::State::complete, std::memory_order_release);
  }
  delete message;
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
}

}  // namespace ep::detail
