#include "p2p/engine.hpp"

#include <vector>

#include "base/backoff.hpp"
#include "object/error.hpp"

namespace ep::detail {

Status proc_null_status() {
  Status s;
  s.MPI_SOURCE = MPI_PROC_NULL;
  s.MPI_TAG = MPI_ANY_TAG;
  return s;
}

Status empty_status() { return Status{}; }

namespace {

Typed receive_target(const RequestImpl& r) { return {r.buf, r.count, r.type, r.layout}; }

void complete_from(RequestImpl* r, const Incoming& message) {
  r->status.MPI_SOURCE = message.source;
  r->status.MPI_TAG = message.tag;
  r->status.count_bytes = message.bytes;
  r->status.cancelled = 0;
  r->status.MPI_ERROR =
      message.bytes > std::int64_t{r->count} * r->layout.size ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

}  // namespace

bool may_match_remote(const Endpoint* endpoint, int source) {
  const CommShared& shared = *endpoint->shared;
  if (shared.mpi_size == 1) return false;
  return source == MPI_ANY_SOURCE || !shared.is_local(shared.peer_to_union(*endpoint, source));
}

int start_send(RequestImpl* r, bool blocking, const char* function) {
  r->status = empty_status();
  if (r->peer == MPI_PROC_NULL) {
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  const CommShared& shared = *r->endpoint->shared;
  r->target = shared.peer_to_union(*r->endpoint, r->peer);
  const int rc = shared.is_local(r->target) ? intra_send(r) : remote_send(r, blocking);
  return check_mpi(rc, r->endpoint, function, "the MPI send below");
}

int start_recv(RequestImpl* r, bool blocking, const char* function) {
  Endpoint* endpoint = r->endpoint;
  if (r->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  r->status = empty_status();
  if (may_match_remote(endpoint, r->peer)) {
    // Messages already in MPI arrived before this receive was posted, so
    // they must be matched (in order) before it joins the posted queue.
    const int rc = drain_remote(endpoint);
    if (rc != MPI_SUCCESS) return check_mpi(rc, endpoint, function, "MPI_Improbe");
  }
  MatchState& m = endpoint->match;
  m.lock.lock();
  Incoming* message = m.unexpected.take_first(
      [r](const Incoming& e) { return matches(r->peer, r->tag, e.source, e.tag); });
  if (!message) {
    r->state.store(RequestImpl::State::posted, std::memory_order_relaxed);
    m.posted.push_back(r);
    m.posted_count.fetch_add(1, std::memory_order_relaxed);
    m.lock.unlock();
    return MPI_SUCCESS;
  }
  m.lock.unlock();
  deliver(message, r, blocking);
  return MPI_SUCCESS;
}

void deliver(Incoming* message, RequestImpl* r, bool blocking) {
  complete_from(r, *message);
  switch (message->kind) {
    case Incoming::Kind::eager:
      unpack(message->data.get(), message->bytes, receive_target(*r));
      break;
    case Incoming::Kind::rendezvous: {
      RequestImpl* sender = message->sender;
      copy_typed({sender->buf, sender->count, sender->type, sender->layout}, receive_target(*r));
      sender->state.store(RequestImpl::State::complete, std::memory_order_release);
      break;
    }
    case Incoming::Kind::remote:
      deliver_remote(message, r, blocking);  // takes ownership of `message`
      return;
  }
  delete message;
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
}

Incoming* find_unexpected(Endpoint* endpoint, int source, int tag, bool take) {
  if (may_match_remote(endpoint, source)) drain_remote(endpoint);
  MatchState& m = endpoint->match;
  auto pred = [source, tag](const Incoming& e) { return matches(source, tag, e.source, e.tag); };
  m.lock.lock();
  Incoming* message = take ? m.unexpected.take_first(pred) : m.unexpected.find_first(pred);
  m.lock.unlock();
  return message;
}

bool test_request(RequestImpl* r) {
  using State = RequestImpl::State;
  switch (r->state.load(std::memory_order_acquire)) {
    case State::complete:
    case State::inactive:
      return true;
    case State::in_mpi:
      return test_remote(r);
    case State::posted:
      // A posted send waits for an intra-process receiver to copy it; a
      // posted receive may be matched by a message still inside MPI.
      if (r->kind == RequestImpl::Kind::recv && may_match_remote(r->endpoint, r->peer)) {
        drain_remote(r->endpoint);
        const State now = r->state.load(std::memory_order_acquire);
        if (now == State::in_mpi) return test_remote(r);
        return now == State::complete;
      }
      return false;
  }
  return false;
}

void progress(Endpoint* endpoint) {
  if (endpoint->match.posted_count.load(std::memory_order_relaxed) > 0 &&
      endpoint->shared->mpi_size > 1) {
    drain_remote(endpoint);
  }
}

void wait_request(RequestImpl* r) {
  Backoff backoff;
  while (!test_request(r)) {
    // An endpoint blocked in one operation must still progress its others:
    // a receive it posted earlier may be what its peer's send waits for.
    if (r->kind == RequestImpl::Kind::send) progress(r->endpoint);
    backoff.pause();
  }
}

void reap_orphans(Endpoint* endpoint) {
  std::erase_if(endpoint->orphans, [](RequestImpl* r) {
    if (!test_request(r)) return false;
    delete r;
    return true;
  });
}

}  // namespace ep::detail
