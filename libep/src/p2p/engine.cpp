#include "p2p/engine.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "base/backoff.hpp"
#include "base/mpi_yield.hpp"
#include "node/rings.hpp"
#include "object/error.hpp"
#include "p2p/transport_intra.hpp"
#include "p2p/transport_mpi.hpp"

namespace ep::detail {

Status proc_null_status() {
  Status s;
  s.MPI_SOURCE = MPI_PROC_NULL;
  s.MPI_TAG = MPI_ANY_TAG;
  return s;
}

Status status_of(const Incoming& message) {
  Status s = empty_status();
  s.MPI_SOURCE = message.source;
  s.MPI_TAG = message.tag;
  s.count_bytes = message.bytes;
  return s;
}

namespace {

// Unlinks the first posted receive of `m` that a message from `source` with
// `tag` matches. Called with m.lock held.
RequestImpl* take_posted(MatchState& m, int source, int tag) {
  return m.posted.take(source, tag).request;
}

// The MPI rank (in the communicator's MPI communicator) of the process that
// hosts `peer`, a rank `endpoint` addresses.
int process_of(const Endpoint& endpoint, int peer) {
  const CommShared& shared = *endpoint.shared;
  return shared.map.at(shared.peer_to_union(endpoint, peer)).mpi_rank;
}

// Where the messages a receive or probe for `source` (a rank of
// `endpoint`, or MPI_ANY_SOURCE) may match come from: only from this process
// (`here`), a process whose messages come through a ring (node/rings.hpp),
// one whose messages come through MPI, or any of them (a wildcard). All but
// `here` make the caller look beyond the process.
enum class From { here, ring, mpi, anywhere };

From route_from(const Endpoint& endpoint, int source) {
  const CommShared& shared = *endpoint.shared;
  if (shared.mpi_size == 1) return From::here;
  if (source == MPI_ANY_SOURCE) return From::anywhere;
  const int process = process_of(endpoint, source);
  if (process == shared.mpi_rank) return From::here;
  return node_routed(shared, process) ? From::ring : From::mpi;
}

// Whether the receive `r`, which names one endpoint of a process whose
// messages come through MPI and a tag, may be posted in MPI itself
// (transport_mpi.hpp): no receive posted earlier in libep may take a message
// it would match, since MPI would hand such a message to `r` first. Called
// with m.lock held.
bool may_post_in_mpi(const MatchState& m, const RequestImpl& r) {
  if (m.posted.size() == 0) return true;
  return m.posted.find_first([&r](const RequestImpl& p) {
    return matches(p.peer, p.tag, r.peer, r.tag);
  }) == nullptr;
}

// Unlinks the first unexpected message of `endpoint` that `pred` accepts.
// Called by the endpoint's thread with its match lock held.
template <typename Pred>
Incoming* take_unexpected(Endpoint* endpoint, Pred&& pred) {
  Incoming* message = endpoint->match.unexpected.take_first(pred);
  if (message && message->from_other_process)
    endpoint->remote_unexpected.fetch_sub(1, std::memory_order_relaxed);
  return message;
}

// Appends the receive `r` to the posted queue. Called with m.lock held.
void post(MatchState& m, RequestImpl* r) {
  r->state.store(RequestImpl::State::posted, std::memory_order_relaxed);
  m.posted.push_back(r);
}

// Unlinks the receive `r` from the posted queue if it is still there.
bool unpost(RequestImpl* r) {
  MatchState& m = r->endpoint->match;
  m.lock.lock();
  const bool removed = m.posted.remove(r);
  m.lock.unlock();
  return removed;
}

// The sender matches directly against the receiver's posted receives, so a
// message that finds its receive is copied straight into the receive buffer.
int send_local(RequestImpl* s) {
  Endpoint* self = s->endpoint;
  Endpoint* destination = self->shared->local_endpoint(s->target);
  const int source = self->rank;  // what the receiver reports, also across an inter-communicator
  MatchState& m = destination->match;
  m.lock.lock();
  const PostedReceive posted = m.posted.take(source, s->tag);
  if (RequestImpl* r = posted.request) {
    m.lock.unlock();
    intra_copy(s, r, source, posted.inline_room);
    return MPI_SUCCESS;
  }
  m.unexpected.push_back(intra_hold(s, source, destination == self));
  m.lock.unlock();
  return MPI_SUCCESS;
}

// A message the MPI transport took off MPI for `endpoint` (taken by its own
// thread, or by another endpoint's on their shared channel): the first
// posted receive it matches takes it, or it waits in the unexpected queue.
void arrive(Endpoint* endpoint, Incoming* message) {
  MatchState& m = endpoint->match;
  m.lock.lock();
  RequestImpl* r = take_posted(m, message->source, message->tag);
  if (!r) {
    m.unexpected.push_back(message);
    endpoint->remote_unexpected.fetch_add(1, std::memory_order_relaxed);
  }
  m.lock.unlock();
  if (r) deliver(message, r, /*blocking=*/false);
}

// A message the node transport took off a ring for `endpoint`: the first
// posted receive it matches takes its data straight out of the ring;
// otherwise a copy waits in the unexpected queue.
Incoming* incoming_of(const NodeMessage& m) {
  auto* message = new Incoming;
  message->from_other_process = true;
  message->source = m.source;
  message->tag = m.tag;
  message->bytes = m.bytes;
  if (m.data) {
    message->kind = Incoming::Kind::eager;
    std::byte* room = message->eager_room(m.bytes);
    if (m.bytes > 0) std::memcpy(room, m.data, static_cast<std::size_t>(m.bytes));
  } else {
    message->kind = Incoming::Kind::remote;
    message->source_mpi_rank = m.source_mpi_rank;
    message->source_local = m.source_local;
    message->bulk_number = m.bulk_number;
  }
  return message;
}

void arrive_node(Endpoint* endpoint, const NodeMessage& m) {
  MatchState& m_state = endpoint->match;
  m_state.lock.lock();
  RequestImpl* r = take_posted(m_state, m.source, m.tag);
  m_state.lock.unlock();
  if (!r) {
    // The copy is made outside the lock; a receive posted meanwhile is
    // looked for again.
    Incoming* message = incoming_of(m);
    m_state.lock.lock();
    r = take_posted(m_state, m.source, m.tag);
    if (!r) {
      m_state.unexpected.push_back(message);
      endpoint->remote_unexpected.fetch_add(1, std::memory_order_relaxed);
    }
    m_state.lock.unlock();
    if (r) deliver(message, r, /*blocking=*/false);
    return;
  }
  r->set_matched(m.source, m.tag, m.bytes);
  if (m.data) {
    intra_receive_bytes(m.data, m.bytes, r);
  } else {
    mpi_receive(incoming_of(m), r, /*blocking=*/false);
  }
}

// Holds the lock of an endpoint's lane (Endpoint::lane), if it has one,
// until unlock() or the end of the scope.
class LaneGuard {
 public:
  explicit LaneGuard(Lane* lane) : lane_(lane) {
    if (lane_) lane_->lock.lock();
  }
  LaneGuard(const LaneGuard&) = delete;
  LaneGuard& operator=(const LaneGuard&) = delete;
  ~LaneGuard() { unlock(); }
  void unlock() {
    if (lane_) lane_->lock.unlock();
    lane_ = nullptr;
  }

 private:
  Lane* lane_;
};

// A drain of the channel of `endpoint`, for the length of the scope: holds
// its lane's lock, says it is draining, and waits until no endpoint of the
// channel is posting a receive in MPI without the lock (object/endpoint.hpp,
// Lane). Every post that started before then has reached MPI before this
// drain takes a message; every later one sees `draining` and waits for the
// lock. Sequentially consistent on both sides: each side writes its flag
// and then reads the other's, so at least one of them sees the other.
//
// A drain that need not happen now (`Drain::if_free`: a waiter's poll) does
// not wait for the lane: whoever holds it takes the channel's messages off
// MPI for every endpoint of the channel. Where MPI yields the core in every
// call that finds nothing (base/mpi_yield.hpp), half of a loaded process's
// yields were endpoints spinning on a lane whose holder had lost its core
// inside MPI_Improbe; what removed the wait was drain_remote's look before
// the lock (this alone left p2p.persistent@1,3,2 at 36-43 s beside six busy
// loops, the look brought it to 2.3 s).
enum class Drain { always, if_free };

class DrainGuard {
 public:
  DrainGuard(Endpoint* endpoint, Drain when) : lane_(endpoint->lane) {
    if (!lane_) return;
    if (when == Drain::if_free) {
      if (!lane_->lock.try_lock()) {
        lane_ = nullptr;
        held_ = false;
        return;
      }
    } else {
      lane_->lock.lock();
    }
    lane_->draining.store(true, std::memory_order_seq_cst);
    const CommShared& shared = *endpoint->shared;
    const int per_channel = shared.tags.per_channel();
    const auto first =
        static_cast<std::size_t>(shared.tags.channel_of(endpoint->local) * per_channel);
    const std::size_t end =
        std::min(shared.endpoints.size(), first + static_cast<std::size_t>(per_channel));
    for (std::size_t i = first; i < end; ++i) {
      const Endpoint* other = shared.endpoints[i].get();
      if (!other->posting.load(std::memory_order_seq_cst)) continue;
      Backoff backoff;
      while (other->posting.load(std::memory_order_acquire)) backoff.pause();
    }
  }
  DrainGuard(const DrainGuard&) = delete;
  DrainGuard& operator=(const DrainGuard&) = delete;
  ~DrainGuard() {
    if (!lane_) return;
    // Release: a poster that sees the drain over sees what it queued.
    lane_->draining.store(false, std::memory_order_release);
    lane_->lock.unlock();
  }
  /// Whether this drain runs (Drain::if_free found the lane taken if not).
  bool held() const { return held_; }

 private:
  Lane* lane_;
  bool held_ = true;
};

// Takes every message of other processes on the channel of `endpoint` off
// MPI and hands each to its endpoint, or only until the receive `awaited`
// has been matched: a waiter need not pay for one more probe that finds
// nothing. Returns the MPI error code of the transport.
//
// Where MPI gives the core away inside a call that finds nothing
// (base/mpi_yield.hpp), an endpoint that shares its channel looks
// (MPI_Iprobe) before it takes the lane, and takes one message per hold: a
// thread that yields holding the lane keeps the other endpoints of its
// channel waiting for it to be scheduled again. A look that finds nothing while
// another drain holds a message it took leaves that message to that drain,
// which hands it over before it lets go of the lane: it still arrives in
// order, as when this drain waited for the lane.
// `from` is where the awaited messages come from (route_from of their
// source, which the caller has looked up already): a named source comes
// through a ring or through MPI; a wildcard may come through either.
int drain_remote(Endpoint* endpoint, const RequestImpl* awaited = nullptr,
                 Drain when = Drain::always, From from = From::anywhere) {
  const bool any = from == From::anywhere;
  const bool ring = from == From::ring;
  const bool through_node = !endpoint->shared->node_routes.empty() && (any || ring);
  const bool through_mpi = any ? endpoint->shared->mpi_routed : !ring;
  if (through_node) {
    node_drain(arrive_node);
    // A bulk message of this process that MPI carries moves on only while
    // this process calls into MPI (transport_mpi.hpp).
    if (!through_mpi && mpi_bulk_in_flight()) mpi_poke(endpoint);
    if (awaited && awaited->state.load(std::memory_order_acquire) != RequestImpl::State::posted)
      return MPI_SUCCESS;
  }
  if (!through_mpi) return MPI_SUCCESS;
  const bool look = endpoint->lane != nullptr && mpi_yields_when_idle();
  for (;;) {
    if (look) {
      bool waiting = false;
      const int rc = mpi_peek_arrival(endpoint, &waiting);
      if (rc != MPI_SUCCESS || !waiting) return rc;
    }
    {
      const DrainGuard drain(endpoint, when);
      if (!drain.held()) return MPI_SUCCESS;
      do {
        Incoming* message = nullptr;
        Endpoint* to = nullptr;
        const int rc = mpi_next_arrival(endpoint, &message, &to);
        if (rc != MPI_SUCCESS || !message) return rc;
        arrive(to, message);
        if (awaited && awaited->state.load(std::memory_order_acquire) != RequestImpl::State::posted)
          return MPI_SUCCESS;
      } while (!look);
    }
  }
}

// Posts the receive `r` of an endpoint with a lane in MPI without taking
// the lane's lock, unless a drain runs or has queued a message of another
// process for the endpoint (then the caller decides under the lock).
// Returns whether it posted; *rc is then MPI's return code. The owner alone
// posts, and it has no receive posted in libep (checked by the caller).
bool post_beside_drains(Endpoint* endpoint, RequestImpl* r, int* rc) {
  endpoint->posting.store(true, std::memory_order_seq_cst);
  // A drain that ended before this load has queued its messages for this
  // endpoint (it clears `draining` with release order after); a drain that
  // sets `draining` after it waits until this post has reached MPI.
  const bool clear = !endpoint->lane->draining.load(std::memory_order_seq_cst) &&
                     endpoint->remote_unexpected.load(std::memory_order_relaxed) == 0;
  if (clear) *rc = mpi_post_receive(r);
  endpoint->posting.store(false, std::memory_order_release);
  return clear;
}

}  // namespace

int start_send(RequestImpl* r, bool blocking) {
  r->status = empty_status();
  if (r->peer == MPI_PROC_NULL) {
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  const CommShared& shared = *r->endpoint->shared;
  r->target = shared.peer_to_union(*r->endpoint, r->peer);
  const int process = shared.map.at(r->target).mpi_rank;
  if (process == shared.mpi_rank) return send_local(r);
  if (!node_routed(shared, process)) return mpi_send(r, blocking);
  // Through the ring: the data itself, or a notice of the bulk message
  // that follows through MPI (transport_mpi.hpp says when).
  const std::int64_t bytes = std::int64_t{r->count} * r->layout.size;
  if (r->mode != SendMode::synchronous && bytes <= kCarriedLimit) return node_send(r, -1);
  const int number = next_bulk_number(r->endpoint);
  const int rc = node_send(r, number);
  return rc != MPI_SUCCESS ? rc : mpi_send_bulk(r, number);
}

int attach_node(MPI_Comm parent, std::string* why) { return node_attach(parent, why); }

void register_node_routes(CommShared& shared) { node_register(shared, arrive_node); }

void unregister_node_routes(const CommShared& shared) { node_unregister(shared, arrive_node); }

int start_recv(RequestImpl* r, bool blocking) {
  Endpoint* endpoint = r->endpoint;
  r->phase = RequestImpl::Phase::none;
  r->inline_data_state.store(
      blocking ? RequestImpl::Inline::accepted_for_good : RequestImpl::Inline::accepted,
      std::memory_order_relaxed);
  if (r->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    r->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  r->status = empty_status();
  MatchState& m = endpoint->match;
  const auto pred = [r](const Incoming& e) { return matches(r->peer, r->tag, e.source, e.tag); };
  const From from = route_from(*endpoint, r->peer);
  if (from == From::here || from == From::ring) {
    // Only libep matches these messages, in the order they reach it: what
    // is still in a ring follows what the queue holds, so nothing needs
    // taking first.
    m.lock.lock();
    Incoming* message = take_unexpected(endpoint, pred);
    if (!message) post(m, r);
    m.lock.unlock();
    if (message) deliver(message, r, blocking);
    return MPI_SUCCESS;
  }
  // The common case takes no lock: with no message of another process in
  // the unexpected queue (no other message can match) and no receive posted
  // in libep (only this thread posts), a receive that names a source in
  // another process and a tag goes to MPI; beside the drains of its
  // channel's other endpoints, if it shares the channel.
  const bool named = from == From::mpi && r->tag != MPI_ANY_TAG;
  if (named && endpoint->remote_unexpected.load(std::memory_order_relaxed) == 0 &&
      m.posted.size() == 0) {
    if (!endpoint->lane) return mpi_post_receive(r);
    int rc = MPI_SUCCESS;
    if (post_beside_drains(endpoint, r, &rc)) return rc;
  }
  // Otherwise a receive that may go to MPI decides it holding the lane's
  // lock, if it has one: then no drain is between taking a message for
  // this endpoint off MPI and queueing it here.
  LaneGuard lane(named ? endpoint->lane : nullptr);
  // Messages libep already took off MPI arrived before those still inside
  // it, so they are matched first.
  m.lock.lock();
  Incoming* message = take_unexpected(endpoint, pred);
  const bool in_mpi = !message && named && may_post_in_mpi(m, *r);
  m.lock.unlock();
  if (in_mpi) return mpi_post_receive(r);
  lane.unlock();
  if (!message) {
    // Messages still in MPI arrived before this receive was posted, so they
    // must be matched (in order) before it joins the posted queue.
    const int rc = drain_remote(endpoint, nullptr, Drain::always, from);
    if (rc != MPI_SUCCESS) return rc;
    m.lock.lock();
    // The drain, or an intra-process sender, may have queued a match.
    message = take_unexpected(endpoint, pred);
    if (!message) post(m, r);
    m.lock.unlock();
    if (!message) return MPI_SUCCESS;
  }
  deliver(message, r, blocking);
  return MPI_SUCCESS;
}

void deliver(Incoming* message, RequestImpl* r, bool blocking) {
  r->set_matched(message->source, message->tag, message->bytes);
  if (message->kind == Incoming::Kind::remote) {
    mpi_receive(message, r, blocking);
  } else {
    intra_receive(message, r);
  }
}

int probe(Endpoint* endpoint, int source, int tag, bool take, Incoming** found) {
  *found = nullptr;
  // A probe is an MPI call: the endpoint's receives posted in MPI and its
  // freed requests move on, as in a test (a program may poll with probes
  // until a freed receive's data is there).
  if (!endpoint->inbox_heads.empty()) mpi_progress(endpoint);
  if (!endpoint->orphans.empty()) reap_orphans(endpoint, /*progressed=*/true);
  if (const From from = route_from(*endpoint, source); from != From::here) {
    const int rc = drain_remote(endpoint, nullptr, Drain::always, from);
    if (rc != MPI_SUCCESS) return rc;
  }
  MatchState& m = endpoint->match;
  auto pred = [source, tag](const Incoming& e) { return matches(source, tag, e.source, e.tag); };
  m.lock.lock();
  Incoming* message = take ? take_unexpected(endpoint, pred) : m.unexpected.find_first(pred);
  m.lock.unlock();
  *found = message;
  return MPI_SUCCESS;
}

bool cancel_recv(RequestImpl* r) {
  if (r->state.load(std::memory_order_relaxed) == RequestImpl::State::in_mpi)
    return mpi_cancel_receive(r);
  if (!unpost(r)) return false;
  r->status = empty_status();
  r->status.cancelled = 1;
  r->state.store(RequestImpl::State::complete, std::memory_order_release);
  return true;
}

void take_inline(RequestImpl* r) {
  if (r->inline_data_state.load(std::memory_order_relaxed) != RequestImpl::Inline::held) return;
  unpack(r->inline_data, r->status.count_bytes, {r->buf, r->count, r->type, r->layout});
  r->inline_data_state.store(RequestImpl::Inline::refused, std::memory_order_relaxed);
}

bool test_request(RequestImpl* r, bool progressed) {
  using State = RequestImpl::State;
  switch (r->state.load(std::memory_order_acquire)) {
    case State::complete:
      take_inline(r);
      return true;
    case State::inactive:
      return true;
    case State::in_mpi:
      if (progressed && r->phase == RequestImpl::Phase::inbox) return false;
      return mpi_test(r);
    case State::posted:
      if (r->kind == RequestImpl::Kind::coll) return r->deferred->poll(*r);
      // A posted send waits for an intra-process receiver to copy it; a
      // posted receive may be matched by a message still inside MPI.
      const From from =
          r->kind == RequestImpl::Kind::recv ? route_from(*r->endpoint, r->peer) : From::here;
      if (from != From::here) {
        const int rc = drain_remote(r->endpoint, r, Drain::if_free, from);
        if (rc != MPI_SUCCESS && unpost(r)) {
          // MPI cannot say whether a message for it arrived: it fails.
          r->status.MPI_ERROR = error_class_of(rc);
          r->state.store(State::complete, std::memory_order_relaxed);
          return true;
        }
        const State now = r->state.load(std::memory_order_acquire);
        if (now == State::in_mpi) return mpi_test(r);
        if (now != State::complete) return false;
        take_inline(r);
        return true;
      }
      return false;
  }
  return false;
}

int test_requests(RequestImpl** requests, int count, bool* sends) {
  const bool look = *sends;
  if (look) mpi_test_sends(requests, count);
  int kept = 0;
  bool sends_kept = false;
  for (int i = 0; i < count; ++i) {
    RequestImpl* r = requests[i];
    // A send still in MPI was tested just now.
    if ((look && is_send_in_mpi(*r)) || !test_request(r, /*progressed=*/true)) {
      requests[kept++] = r;
      sends_kept = sends_kept || r->kind == RequestImpl::Kind::send;
    }
  }
  *sends = sends_kept;
  return kept;
}

void wait_request(RequestImpl* r) {
  RequestBackoff backoff(r->kind == RequestImpl::Kind::coll);
  for (;;) {
    // An endpoint blocked in one operation must still progress its others:
    // a receive it posted earlier may be what its peer's send waits for.
    const bool progressing =
        (r->kind == RequestImpl::Kind::send || r->phase != RequestImpl::Phase::none) &&
        r->state.load(std::memory_order_acquire) != RequestImpl::State::complete;
    if (progressing) progress(r->endpoint);
    if (test_request(r, progressing)) {
      note_poll(true);  // the thread waits here, not in a test loop
      return;
    }
    backoff.pause();
  }
}

// Pulls messages off MPI for `endpoint` if it has receives posted in libep,
// and moves its receives posted in MPI on. A failure is left to those
// receives: test_request meets it again and fails them.
void progress(Endpoint* endpoint) {
  if (endpoint->match.posted.size() > 0 && endpoint->shared->mpi_size > 1) {
    (void)drain_remote(endpoint, nullptr, Drain::if_free);
  } else if (node_spilling()) {
    // Records of this process wait for room in a ring: move them on.
    node_drain(arrive_node);
  }
  if (!endpoint->inbox_heads.empty()) mpi_progress(endpoint);
  // Requests the user freed while active complete on their own (MPI
  // semantics): a receive's data must reach its buffer, however the program
  // learns that it has (a later message of the same sender), and the request
  // must then go. Those posted in MPI were tested just above, with the heads.
  if (!endpoint->orphans.empty()) reap_orphans(endpoint, /*progressed=*/true);
}

void reap_orphans(Endpoint* endpoint, bool progressed) {
  std::erase_if(endpoint->orphans, [endpoint, progressed](RequestImpl* r) {
    if (!test_request(r, progressed)) return false;
    const bool held = r->held;
    delete r;
    if (held) drop_held_request(endpoint);
    return true;
  });
}

int discard_unexpected(Endpoint* endpoint) {
  int rc = MPI_SUCCESS;
  // No lock: every endpoint of the communicator is freed, so nobody delivers.
  while (Incoming* message = endpoint->match.unexpected.pop_front()) {
    if (message->kind == Incoming::Kind::remote) {
      // Unreceived remote messages still belong to MPI.
      keep_first_error(&rc, mpi_discard(message, endpoint));
    } else {
      delete message;
    }
  }
  return rc;
}

}  // namespace ep::detail
