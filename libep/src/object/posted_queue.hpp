// The receives an endpoint has posted and no message has matched yet, in
// the order they were posted (MatchState::posted, object/endpoint.hpp).
//
// An intra-process sender matches against this queue under the receiver's
// match lock, and the lock's cache line is the one line it must fetch from
// the receiver's core anyway. So the oldest receive, when it was posted into
// an empty queue, waits in a slot of that line together with what the
// sender needs to know about it: its source and tag, and how many bytes of a
// message the sender may leave in its request (RequestImpl::inline_data).
// A sender that matches it then completes it without reading the request
// before writing it: in a ping-pong between two endpoints of one process,
// reading the posted request under the lock was a second cache miss in a row
// on every message (p2p/engine.cpp, send_local). Later receives queue in a
// list behind the slot; once the slot has been taken, receives keep joining
// the list until it is empty, so the slot always holds the oldest.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "base/intrusive_fifo.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// A message matches a receive if source and tag agree or are wildcards.
inline bool matches(int want_source, int want_tag, int source, int tag) {
  return (want_source == MPI_ANY_SOURCE || want_source == source) &&
         (want_tag == MPI_ANY_TAG || want_tag == tag);
}

/// A receive taken off the queue by a message that matched it.
struct PostedReceive {
  RequestImpl* request = nullptr;
  /// The sender of a message of at most this many bytes may leave it in
  /// request->inline_data, with no compare-and-swap and no truncation; -1:
  /// ask the request (it may refuse, RequestImpl::Inline).
  int inline_room = -1;
};

class PostedQueue {
 public:
  /// What PostedReceive::inline_room says of `r`: a blocking receive into a
  /// contiguous buffer accepts inline data for good.
  static int inline_room_of(const RequestImpl& r) {
    if (r.inline_data_state.load(std::memory_order_relaxed) !=
            RequestImpl::Inline::accepted_for_good ||
        !r.layout.contiguous(r.count))
      return -1;
    return static_cast<int>(
        std::min<std::int64_t>(std::int64_t{r.count} * r.layout.size, RequestImpl::kInlineBytes));
  }

  /// Appends `r`. Called with the match lock held.
  void push_back(RequestImpl* r) {
    if (!first_ && rest_.empty()) {
      first_ = r;
      first_peer_ = r->peer;
      first_tag_ = r->tag;
      first_room_ = inline_room_of(*r);
    } else {
      rest_.push_back(r);
    }
    count_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Unlinks the oldest receive that a message from `source` with `tag`
  /// matches. Called with the match lock held.
  PostedReceive take(int source, int tag) {
    PostedReceive taken;
    if (first_ && matches(first_peer_, first_tag_, source, tag)) {
      taken = {first_, first_room_};
      first_ = nullptr;
    } else {
      taken.request = rest_.take_first(
          [source, tag](const RequestImpl& p) { return matches(p.peer, p.tag, source, tag); });
      if (!taken.request) return taken;
      taken.inline_room = inline_room_of(*taken.request);
    }
    count_.fetch_sub(1, std::memory_order_relaxed);
    return taken;
  }

  /// The oldest receive that `pred` accepts, left in place. Called with the
  /// match lock held.
  template <class Pred>
  const RequestImpl* find_first(Pred&& pred) const {
    if (first_ && pred(*first_)) return first_;
    return rest_.find_first(pred);
  }

  /// Unlinks `r` if it is queued; returns whether it was. Called with the
  /// match lock held.
  bool remove(RequestImpl* r) {
    bool removed = first_ == r;
    if (removed) {
      first_ = nullptr;
    } else {
      removed = rest_.remove(r);
    }
    if (removed) count_.fetch_sub(1, std::memory_order_relaxed);
    return removed;
  }

  /// How many receives are queued. Changed under the match lock; the owner
  /// reads it without the lock to decide whether waiting must also pull
  /// messages off MPI.
  int size() const { return count_.load(std::memory_order_relaxed); }

 private:
  RequestImpl* first_ = nullptr;  // the oldest receive, if posted into an empty queue
  int first_peer_ = 0;
  int first_tag_ = 0;
  int first_room_ = -1;
  std::atomic<int> count_{0};
  IntrusiveFifo<RequestImpl> rest_;
};

}  // namespace ep::detail
