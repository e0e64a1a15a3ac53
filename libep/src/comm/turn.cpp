#include "comm/turn.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "base/backoff.hpp"
#include "base/spinlock.hpp"
#include "coll/mpi_step.hpp"

namespace ep::detail {

namespace {

// How long a thread waits for the turn before it makes its calls anyway.
// A turn is held for a creation's blocking calls, which take 0.1-1 ms on
// this project's 2 cores when nobody else creates; a wait much longer than
// that is most likely a crossing of orders between processes (turn.hpp),
// which only the wait's end resolves.
constexpr std::chrono::microseconds kTurnWait{2000};
// How long a thread that agrees on its turn with other processes waits for
// a holder that is itself still agreeing, before it tells the others it
// has none: that holder may wait for the very processes whose turns this
// thread's creation lacks (crossed orders).
constexpr std::chrono::microseconds kAgreeWait{500};
// After this long, the processes of an agreement make their calls whether
// or not every one of them holds its turn, as a plain turn's wait ends.
constexpr std::chrono::microseconds kAgreeLimit{10000};

std::atomic<bool> taken{false};
std::atomic<bool> holder_agreeing{false};  // the holder has not agreed yet
thread_local bool held = false;            // this thread has the turn (nested turns)

// What the turns look at, by communicator: whether this process hosts it
// (every making draws a new key: build.cpp), how many splits of it this
// process started, and whether one is under way. A
// process has a few communicators at most in the making; the records of
// hosted ones stay while they live.
struct Record {
  std::int64_t key = 0;
  bool hosted = false;
  std::int64_t started = 0;
  bool active = false;
};
SpinLock records_lock;
std::vector<Record> records;

// Under records_lock.
Record* find(std::int64_t key) {
  const auto at =
      std::find_if(records.begin(), records.end(), [key](const Record& r) { return r.key == key; });
  return at == records.end() ? nullptr : &*at;
}
Record& find_or_add(std::int64_t key) {
  if (Record* r = find(key)) return *r;
  return records.emplace_back(Record{key});
}
void drop_if_unused(std::int64_t key) {
  std::erase_if(records, [key](const Record& r) { return r.key == key && !r.hosted && !r.active; });
}

// Whether a turn with `key` must still let another split go first.
bool must_wait(std::int64_t key, std::span<const IntentMark> awaited) {
  const std::lock_guard guard(records_lock);
  for (const Record& r : records) {
    if (r.active && r.key < key) return true;
  }
  for (const IntentMark& m : awaited) {
    if (m.key < 0 || m.key >= key) continue;
    const Record* r = find(m.key);
    if (r == nullptr || !r->hosted) continue;  // not a communicator of this process
    if (r->started < m.number || (r->started == m.number && r->active)) return true;
  }
  return false;
}

// Waits for the turn, at most kTurnWait, and with `agreeing` at most
// kAgreeWait while the holder is agreeing too; whether it took it.
bool take(std::int64_t key, std::span<const IntentMark> awaited, bool agreeing) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  Backoff backoff;
  for (;;) {
    if (!taken.load(std::memory_order_relaxed) && !must_wait(key, awaited) &&
        !taken.exchange(true, std::memory_order_acquire)) {
      holder_agreeing.store(agreeing, std::memory_order_relaxed);
      held = true;
      return true;
    }
    const auto waited = Clock::now() - start;
    if (waited >= kTurnWait) return false;
    if (agreeing && waited >= kAgreeWait && holder_agreeing.load(std::memory_order_relaxed)) {
      return false;
    }
    backoff.pause();
  }
}

void give_back() {
  held = false;
  holder_agreeing.store(false, std::memory_order_relaxed);
  taken.store(false, std::memory_order_release);
}

// Votes of an agreement round, reduced by minimum.
constexpr int kGoAnyway = 0;  // its time is up: every process makes its calls
constexpr int kLacking = 1;   // this process does not hold its turn
constexpr int kHolding = 2;   // it does, or needs none

}  // namespace

void note_communicator(std::int64_t key) {
  const std::lock_guard guard(records_lock);
  find_or_add(key).hosted = true;
}

void forget_communicator(std::int64_t key) {
  const std::lock_guard guard(records_lock);
  if (Record* r = find(key)) r->hosted = false;
  drop_if_unused(key);
}

CreationIntent::CreationIntent(std::int64_t key) : key_(key) {
  const std::lock_guard guard(records_lock);
  Record& r = find_or_add(key);
  ++r.started;
  r.active = true;
}

CreationIntent::~CreationIntent() {
  const std::lock_guard guard(records_lock);
  if (Record* r = find(key_)) r->active = false;
  drop_if_unused(key_);
}

IntentMark CreationIntent::lowest_other() const {
  const std::lock_guard guard(records_lock);
  IntentMark mark;
  for (const Record& r : records) {
    if (r.active && r.key != key_ && (mark.key < 0 || r.key < mark.key)) mark = {r.key, r.started};
  }
  return mark;
}

CreationTurn::CreationTurn(std::int64_t key, std::span<const IntentMark> awaited) {
  if (held) return;
  yielding_.emplace();
  owner_ = take(key, awaited, false);
}

CreationTurn::CreationTurn(MPI_Comm among, bool needed, std::int64_t key,
                           std::span<const IntentMark> awaited, int* rc) {
  if (!held) yielding_.emplace();
  const auto until = std::chrono::steady_clock::now() + kAgreeLimit;
  for (;;) {
    if (needed && !held) owner_ = take(key, awaited, true);
    int vote = !needed || held ? kHolding : kLacking;
    if (std::chrono::steady_clock::now() >= until) vote = kGoAnyway;
    int all = vote;
    MPI_Request request = MPI_REQUEST_NULL;
    *rc = complete(MPI_Iallreduce(&vote, &all, 1, MPI_INT, MPI_MIN, among, &request), &request);
    if (*rc != MPI_SUCCESS || all != kLacking) break;
    if (owner_) give_back();  // to a lower key, or to a holder that can agree
    owner_ = false;
  }
  if (owner_) holder_agreeing.store(false, std::memory_order_relaxed);
}

CreationTurn::~CreationTurn() {
  if (owner_) give_back();
}

}  // namespace ep::detail
