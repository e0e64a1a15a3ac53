// Waiting without burning a core.
//
// libep runs with more busy endpoints than cores as the normal case (this
// project's reference machine has 2 cores). A waiter spins for a short while,
// because a hand-off between two running threads takes well under a
// microsecond, then yields so that a preempted peer can run, and finally
// sleeps in short naps so that an idle wait costs almost nothing.
#pragma once

#include <sched.h>
#include <time.h>

namespace ep::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins `Spins` pauses, then yields `Yields` times, then naps. The two
// numbers are the only thing that differs between waits: see Backoff below
// and TeamBackoff (team/local_team.hpp).
template <int Spins, int Yields>
class BasicBackoff {
 public:
  static constexpr int kSpins = Spins;
  static constexpr int kYields = Yields;

  void pause() {
    if (round_ < kSpins) {
      cpu_relax();
    } else if (round_ < kSpins + kYields) {
      sched_yield();
    } else {
      // Nap briefly: long enough to give the core away, short enough that a
      // message arriving during the nap is not delayed noticeably.
      timespec ts{0, 20'000};
      nanosleep(&ts, nullptr);
    }
    ++round_;
  }
  void reset() { round_ = 0; }

 private:
  int round_ = 0;
};

// Waiting for a message or a request: 128 pauses, 4096 yields, then naps.
using Backoff = BasicBackoff<128, 4096>;

}  // namespace ep::detail
