// A read-modify-write counter that only an exclusive lock keeps exact:
// Win_lock(MPI_LOCK_EXCLUSIVE), Get, flush, +1, Put, Win_unlock. Every rank
// increments rank 0's counter (slot 0) and its right neighbour's (slot 1)
// --iterations times, so rank 0's counter is contended by every rank, those
// of its own process included, and each other counter by one rank. A lost
// increment means two ranks were inside one exclusive epoch.
#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

// One increment of slot `slot` of `target` under an exclusive lock.
bool increment(Context& t, api::Win win, int target, int slot) {
  int value = -1;
  if (!t.check_rc(api::Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "Win_lock(exclusive)"))
    return false;
  bool ok = t.check_rc(api::Get(&value, 1, MPI_INT, target, slot, 1, MPI_INT, win), "Get");
  ok = ok && t.check_rc(api::Win_flush(target, win), "Win_flush");
  ++value;
  ok = ok && t.check_rc(api::Put(&value, 1, MPI_INT, target, slot, 1, MPI_INT, win), "Put");
  return t.check_rc(api::Win_unlock(target, win), "Win_unlock") && ok;
}

}  // namespace

void eptest::run(Context& t) {
  const int iterations = t.params().get_int("iterations", 100);
  const int n = t.size();
  const int right = (t.rank() + 1) % n;
  Window w = allocate(t, t.comm(), 2);
  if (w.win == api::WIN_NULL) return;

  for (int i = 0; i < iterations; ++i) {
    if (!increment(t, w.win, 0, 0) || !increment(t, w.win, right, 1)) break;
  }
  t.barrier();  // every rank's epochs are over: the counters are final

  const std::vector<int> mine = read_locked(t, w.win, t.rank(), 0, 2);
  t.out("counters after {} increments by each rank: shared {} neighbour {}", iterations,
        t.rank() == 0 ? mine[0] : 0, mine[1]);
  if (t.rank() == 0) t.expect_eq(mine[0], n * iterations, "rank 0's counter");
  t.expect_eq(mine[1], iterations, "neighbour counter");
  free_window(t, w.win);
}
