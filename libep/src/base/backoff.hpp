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

#include <atomic>

namespace ep::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Called by every waiter before it yields or naps, when set. RMA windows
// (rma/) set it while any lives: on Open MPI, accumulates into a Win_create
// window complete only while a thread of the target process is inside MPI
// (research rma.md 2.7: 2 s stalls), and libep's endpoints spend their
// waits here, not in MPI. Null otherwise, so waits cost one load more.
inline std::atomic<void (*)()> progress_hook{nullptr};

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
      ++round_;
      return;
    }
    if (void (*hook)() = progress_hook.load(std::memory_order_relaxed)) hook();
    if (round_ < kSpins + kYields) {
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
