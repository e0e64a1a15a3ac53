#include "comm/turn.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "base/backoff.hpp"
#include "base/spinlock.hpp"

namespace ep::detail {

namespace {

// How long a thread waits for the turn before it makes its calls anyway.
// A turn is held for a creation's blocking calls, which take 0.1-1 ms on
// this project's 2 cores when nobody else creates; a wait much longer than
// that is most likely a crossing of orders between processes (turn.hpp),
// which only the wait's end resolves.
constexpr std::chrono::microseconds kTurnWait{2000};

std::atomic<bool> taken{false};
thread_local bool held = false;  // this thread has the turn (nested turns)

// The announced intents' keys, unordered (a process has a few creations
// under way at most).
SpinLock intents_lock;
std::vector<std::int64_t> intents;

bool lower_intent(std::int64_t key) {
  const std::lock_guard guard(intents_lock);
  return std::any_of(intents.begin(), intents.end(), [key](std::int64_t k) { return k < key; });
}

}  // namespace

CreationIntent::CreationIntent(std::int64_t key) : key_(key) {
  const std::lock_guard guard(intents_lock);
  intents.push_back(key);
}

CreationIntent::~CreationIntent() {
  const std::lock_guard guard(intents_lock);
  intents.erase(std::find(intents.begin(), intents.end(), key_));
}

CreationTurn::CreationTurn(std::int64_t key) {
  if (held) return;
  const auto until = std::chrono::steady_clock::now() + kTurnWait;
  Backoff backoff;
  for (;;) {
    if (!taken.load(std::memory_order_relaxed) && !lower_intent(key) &&
        !taken.exchange(true, std::memory_order_acquire)) {
      owner_ = held = true;
      return;
    }
    if (std::chrono::steady_clock::now() >= until) return;
    backoff.pause();
  }
}

CreationTurn::~CreationTurn() {
  if (!owner_) return;
  held = false;
  taken.store(false, std::memory_order_release);
}

}  // namespace ep::detail
