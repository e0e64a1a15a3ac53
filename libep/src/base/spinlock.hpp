// The lock that guards one endpoint's matching state.
//
// Critical sections are a few list operations, so a test-and-test-and-set
// lock beats a mutex; but the holder may be preempted (more threads than
// cores), so contenders back off into yields rather than spinning forever.
#pragma once

#include <atomic>

#include "base/backoff.hpp"

namespace ep::detail {

class SpinLock {
 public:
  void lock() {
    if (!flag_.exchange(true, std::memory_order_acquire)) return;
    Backoff backoff;
    for (;;) {
      while (flag_.load(std::memory_order_relaxed)) backoff.pause();
      if (!flag_.exchange(true, std::memory_order_acquire)) return;
    }
  }
  /// Takes the lock if it is free, without waiting.
  bool try_lock() {
    return !flag_.load(std::memory_order_relaxed) &&
           !flag_.exchange(true, std::memory_order_acquire);
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace ep::detail
