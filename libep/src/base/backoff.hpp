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

// Called by every waiter before it yields or naps. A subsystem whose work
// must move on while its owners wait elsewhere adds one (add_progress_hook,
// once per process): RMA windows (rma/) drive MPI's progress, since on Open
// MPI accumulates into a Win_create window complete only while a thread of
// the target process is inside MPI (research rma.md 2.7: 2 s stalls), and
// libep's endpoints spend their waits here, not in MPI; the non-blocking
// collectives (coll/nonblocking.cpp) move on their processes' steps, as MPI
// progresses a process's collectives in any of its calls. A hook returns at
// once when it has nothing to do, so waits cost a load or two more.
inline constexpr int kMaxProgressHooks = 4;
inline std::atomic<void (*)()> progress_hooks[kMaxProgressHooks]{};
inline std::atomic<int> progress_hook_count{0};

/// Adds `hook` to the waiters' hooks, unless it is there already. Safe from
/// any thread; there is room for kMaxProgressHooks (a fixed set of
/// subsystems), beyond which it aborts as a programming error would.
inline void add_progress_hook(void (*hook)()) {
  static std::atomic_flag lock = ATOMIC_FLAG_INIT;
  while (lock.test_and_set(std::memory_order_acquire)) sched_yield();
  const int n = progress_hook_count.load(std::memory_order_relaxed);
  bool present = false;
  for (int i = 0; i < n; ++i) present = present || progress_hooks[i].load() == hook;
  if (!present) {
    if (n == kMaxProgressHooks) __builtin_trap();
    progress_hooks[n].store(hook, std::memory_order_relaxed);
    progress_hook_count.store(n + 1, std::memory_order_release);
  }
  lock.clear(std::memory_order_release);
}

inline void run_progress_hooks() {
  const int n = progress_hook_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) progress_hooks[i].load(std::memory_order_relaxed)();
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
      ++round_;
      return;
    }
    run_progress_hooks();
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

// Waiting for a non-blocking collective's request. What it waits for is
// mostly the other endpoints of its process reaching the same call (most
// calls start once they all have, coll/nonblocking.hpp), so, as in a team's
// waits (TeamBackoff, team/local_team.hpp), the thread should give its core
// to them soon. And each pause follows a poll that moves the process's
// calls on (its lock, MPI's progress): a fraction of a microsecond, not a
// pause's few nanoseconds, so 8 polls spin about as long as a team's 32
// pauses. With Backoff's 128, an 8-byte Ibcast+Wait on 1 process x 4
// endpoints (2 cores) took 22 us; with 8, 4.7 us (Ibarrier: 29.6, 3.6 us;
// 3-19 us in later runs, which vary that much).
using CollBackoff = BasicBackoff<8, 20000>;

/// A wait for one or more requests: CollBackoff's when one of them is a
/// non-blocking collective's, else Backoff's.
class RequestBackoff {
 public:
  explicit RequestBackoff(bool collective) : collective_(collective) {}
  void pause() { collective_ ? coll_.pause() : other_.pause(); }

 private:
  bool collective_;
  CollBackoff coll_;
  Backoff other_;
};

/// A non-blocking test (Test, Testall, Iprobe, ...) that found nothing, or
/// something (`hit`). A program that tests in a loop waits, though libep
/// cannot see the loop: with more busy threads than cores, a thread that
/// spins there keeps the core from the endpoints that would complete what
/// it tests for (80 Comm_idups on 1,3,2 endpoints took 8 s tested in a loop
/// by every endpoint, 13 ms with Waitall). So after as many misses in a row on one thread as
/// Backoff spins, each further miss runs the hooks and yields; a hit, or a
/// wait that ended (the thread is not in a test loop then), starts over. A
/// test that succeeds within the first misses costs nothing more.
inline void note_poll(bool hit) {
  thread_local int misses = 0;
  if (hit) {
    misses = 0;
    return;
  }
  if (misses < Backoff::kSpins) {
    ++misses;
    return;
  }
  run_progress_hooks();
  sched_yield();
}

}  // namespace ep::detail
