// Unit tests of the LocalTeam's gate (team/local_team.hpp), on threads of
// one process, without MPI: the invariants the collectives that meet at the
// gate (Barrier, small Allreduce) rely on.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "team/local_team.hpp"

namespace ep::detail {
namespace {

// Runs `passages` passages of the gate on `size` threads. In each, every
// thread writes its own value before arriving; the last arriver must see
// all of them, and the others must see what it wrote before opening.
void pass_gate(int size, int passages) {
  LocalTeam team(size);
  std::vector<std::uint64_t> written(static_cast<std::size_t>(size), 0);
  std::uint64_t result = 0;
  std::vector<int> lasts(static_cast<std::size_t>(passages), 0);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int local = 0; local < size; ++local) {
    threads.emplace_back([&, local] {
      for (std::uint64_t n = 1; n <= static_cast<std::uint64_t>(passages); ++n) {
        written[static_cast<std::size_t>(local)] = n;
        const LocalTeam::Passage passage = team.arrive(local);
        if (passage.number != n) ++wrong;
        if (passage.last) {
          ++lasts[static_cast<std::size_t>(n - 1)];
          for (const std::uint64_t w : written) {
            if (w != n) ++wrong;  // an arrival's writes were not visible
          }
          result = n;
          team.open(passage.number, static_cast<int>(n % 3));
        } else {
          if (team.wait_open(passage.number) != static_cast<int>(n % 3)) ++wrong;
          if (result != n) ++wrong;  // left before the opening's writes
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0) << size << " threads";
  for (int n = 0; n < passages; ++n) {
    EXPECT_EQ(lasts[static_cast<std::size_t>(n)], 1) << "passage " << n + 1 << " of " << size;
  }
}

TEST(TeamGate, ExactlyOneLastArriverPerPassageAndEveryoneSeesItsWrites) {
  for (const int size : {1, 2, 3, 5}) pass_gate(size, 2000);
}

}  // namespace
}  // namespace ep::detail
