// The kernels of ep-bench ibcast and iallreduce (nbc_bench.hpp): the
// computation that runs while a non-blocking collective is in flight, and
// the two timed loops, as OSU's non-blocking collective benchmarks define
// them:
//   pure:        start; Wait                       (the time to complete)
//   overlapped:  start; compute [with Tests]; Wait (the overall time)
// `start` is a callable that starts the collective and returns its request
// (coll.ibcast(...) or coll.iallreduce(...)), inlined into the loops: no
// indirect call in the timed region.
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>

#include "watchdog.hpp"

namespace ep::bench {

/// `units` steps of a computation that calls no MPI and touches no memory:
/// a xorshift generator, each step depending on the last, so that neither
/// the compiler nor the CPU can shorten it. Returns the generator's state
/// (the caller keeps it alive).
inline std::uint64_t busy_work(std::int64_t units) {
  std::uint64_t x = 0x9E3779B97F4A7C15u;
  for (std::int64_t i = 0; i < units; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    // Opaque to the optimiser: the loop cannot be folded into a formula.
    asm volatile("" : "+r"(x));
  }
  return x;
}

/// Keeps busy_work's result alive without a store the loop must wait for.
inline void keep(std::uint64_t value) { asm volatile("" : : "r"(value)); }

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Back-to-back collectives, each started and waited for at once.
template <class Coll, class Start>
void pure_loop(const Start& start, std::int64_t iterations) {
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    typename Coll::Request r = start();
    Coll::wait(r);
  }
}

/// What the computation between start and Wait does.
struct Computation {
  std::int64_t units = 0;  ///< busy_work steps per call, about the pure time
  int test_calls = 0;      ///< Tests spread evenly through it (--test-calls)
};

/// Back-to-back collectives with `c` between the start and the Wait. Returns
/// the seconds spent computing, the Test calls left out: they are the
/// library's work, so overlap counts them as communication, not as
/// computation. Once a Test says the collective is complete the rest are
/// skipped (as an application would).
template <class Coll, class Start>
std::array<double, 1> overlapped_loop(const Start& start, const Computation& c,
                                      std::int64_t iterations) {
  using Clock = std::chrono::steady_clock;
  const std::int64_t chunk = c.units / (c.test_calls + 1);
  double testing = 0;
  double total = 0;
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    typename Coll::Request r = start();
    const Clock::time_point computing = Clock::now();
    if (c.test_calls == 0) {
      keep(busy_work(c.units));
    } else {
      bool done = false;
      for (int t = 0; t < c.test_calls; ++t) {
        keep(busy_work(chunk));
        if (done) continue;
        const Clock::time_point before = Clock::now();
        done = Coll::test(r);
        testing += seconds_since(before);
      }
      keep(busy_work(c.units - chunk * c.test_calls));
    }
    total += seconds_since(computing);
    Coll::wait(r);
  }
  return {total - testing};
}

/// The non-blocking collectives seen as blocking ones, for the checks of
/// --validate (check_bcast, check_allreduce): each call runs one iteration
/// of the overlapped loop, so that the checked results went through the
/// timed path, computation and Tests included.
template <class Coll>
struct Overlapped {
  const Coll& coll;
  Computation computation;

  void bcast(void* buf, int count, MPI_Datatype type, int root) const {
    (void)overlapped_loop<Coll>([&] { return coll.ibcast(buf, count, type, root); }, computation,
                                1);
  }
  void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op) const {
    (void)overlapped_loop<Coll>([&] { return coll.iallreduce(in, out, count, type, op); },
                                computation, 1);
  }
};

}  // namespace ep::bench
