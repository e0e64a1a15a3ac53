// The intra-process transport: endpoints of one process exchange messages
// through each other's matching state, copying the data once.
//
// The sender locks the destination endpoint and looks for a posted receive.
// If there is one, it unlinks it and copies straight from its own buffer
// into the receive buffer after releasing the lock. If not, a small message
// is packed into an eager buffer (the send completes at once) and a large or
// synchronous one is queued as a descriptor of the sender's buffer
// (rendezvous): the receiver copies it when it matches and then completes
// the send. Either way the bytes are copied once, except for small
// unexpected messages, which are copied twice but small.
#include <cstring>

#include "p2p/engine.hpp"

namespace ep::detail {

namespace {

// Up to this size an unexpected message is buffered so that its send
// completes at once; beyond it, buffering would cost a second large copy.
constexpr std::int64_t kEagerLimit = 16 * 1024;

}  // namespace

int intra_send(RequestImpl* s) {
  Endpoint* self = s->endpoint;
  Endpoint* destination = self->shared->local_endpoint(s->target);
  const ConstTyped data{s->buf, s->count, s->type, s->layout};
  const std::int64_t bytes = data.bytes();
  const int source = self->rank;  // what the receiver reports, also across an inter-communicator
  const int tag = s->tag;

  MatchState& m = destination->match;
  m.lock.lock();
  RequestImpl* r = m.posted.take_first(
      [&](const RequestImpl& p) { return matches(p.peer, p.tag, source, tag); });
  if (r) {
    m.posted_count.fetch_sub(1, std::memory_order_relaxed);
    m.lock.unlock();
    r->status.MPI_SOURCE = source;
    r->status.MPI_TAG = tag;
    r->status.count_bytes = bytes;
    r->status.cancelled = 0;
    r->status.MPI_ERROR =
        bytes > std::int64_t{r->count} * r->layout.size ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    copy_typed(data, {r->buf, r->count, r->type, r->layout});
    r->state.store(RequestImpl::State::complete, std::memory_order_release);
    s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }

  auto* message = new Incoming;
  message->source = source;
  message->tag = tag;
  message->bytes = bytes;
  // A standard send to oneself is always buffered: waiting for a receive
  // that only this thread can post would hang a blocking Send.
  const bool eager =
      s->mode != SendMode::synchronous && (bytes <= kEagerLimit || destination == self);
  if (eager) {
    message->kind = Incoming::Kind::eager;
    message->data = std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(bytes));
    pack(data, message->data.get());
    s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  } else {
    message->kind = Incoming::Kind::rendezvous;
    message->sender = s;
    s->state.store(RequestImpl::State::posted, std::memory_order_relaxed);
  }
  m.unexpected.push_back(message);
  m.lock.unlock();
  return MPI_SUCCESS;
}

}  // namespace ep::detail
