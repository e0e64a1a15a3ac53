// Shared locks share: every rank holds a shared lock on rank 0 at the same
// time (they meet in a barrier while holding it; with a lock that excluded,
// the barrier would never complete), reads rank 0's data with Get and adds
// to its sum area with Accumulate. Then every rank takes shared locks on two
// targets at once (rank 0 and its right neighbour), accumulates to both and
// reads back after a flush its own contribution's effect. Win_sync inside a
// lock is a memory barrier and succeeds. Rank 0 finally reads its window
// under an exclusive lock of its own: the sums must be exact.
#include <numeric>

#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

constexpr int kData = 0;        // 8 ints that rank 0 sets and every rank reads
constexpr int kSum = 8;         // 4 ints every rank adds to
constexpr int kNeighbour = 12;  // 1 int the left neighbour adds to

}  // namespace

void eptest::run(Context& t) {
  const int me = t.rank();
  const int n = t.size();
  const int right = (me + 1) % n;
  Window w = allocate(t, t.comm(), 16);
  if (w.win == api::WIN_NULL) return;
  if (me == 0) {
    for (int i = 0; i < 8; ++i) w.base[kData + i] = 11 * (i + 1);
  }
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence");

  // Readers and accumulators, all inside one shared lock of rank 0.
  t.check_rc(api::Win_lock(MPI_LOCK_SHARED, 0, 0, w.win), "Win_lock(shared, 0)");
  int data[8] = {};
  t.check_rc(api::Get(data, 8, MPI_INT, 0, kData, 8, MPI_INT, w.win), "Get");
  t.check_rc(api::Win_flush(0, w.win), "Win_flush");
  t.barrier();  // every rank holds the shared lock now
  const int add[4] = {1, me, me * me, 1000};
  t.check_rc(api::Accumulate(add, 4, MPI_INT, 0, kSum, 4, MPI_INT, MPI_SUM, w.win), "Accumulate");
  t.check_rc(api::Win_sync(w.win), "Win_sync");
  t.check_rc(api::Win_unlock(0, w.win), "Win_unlock(0)");
  t.out("read under a shared lock: {}", join(data, 8));
  for (int i = 0; i < 8; ++i) t.expect_eq(data[i], 11 * (i + 1), "data read");

  // Two shared locks at once (one if the neighbour is rank 0).
  t.check_rc(api::Win_lock(MPI_LOCK_SHARED, 0, 0, w.win), "Win_lock(shared, 0) again");
  if (right != 0) {
    t.check_rc(api::Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, w.win),
               "Win_lock(shared, right, NOCHECK)");
  }
  const int one = 1;
  const int mark = me + 1;
  t.check_rc(api::Accumulate(&one, 1, MPI_INT, 0, kSum, 1, MPI_INT, MPI_SUM, w.win),
             "Accumulate to 0");
  t.check_rc(api::Accumulate(&mark, 1, MPI_INT, right, kNeighbour, 1, MPI_INT, MPI_SUM, w.win),
             "Accumulate to the right neighbour");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush(right)");
  int seen = -1;
  t.check_rc(api::Get(&seen, 1, MPI_INT, right, kNeighbour, 1, MPI_INT, w.win), "Get neighbour");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush(right)");
  if (right != 0) t.check_rc(api::Win_unlock(right, w.win), "Win_unlock(right)");
  t.check_rc(api::Win_unlock(0, w.win), "Win_unlock(0) again");
  t.out("neighbour slot after my add: {}", seen);
  t.expect_eq(seen, mark, "neighbour slot");

  t.barrier();  // all epochs are over
  if (me == 0) {
    int sums[4] = {};
    t.check_rc(api::Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win), "Win_lock(exclusive, 0)");
    t.check_rc(api::Get(sums, 4, MPI_INT, 0, kSum, 4, MPI_INT, w.win), "Get sums");
    t.check_rc(api::Win_unlock(0, w.win), "Win_unlock(0)");
    t.out("sums: {}", join(sums, 4));
    int squares = 0;
    for (int r = 0; r < n; ++r) squares += r * r;
    t.expect_eq(sums[0], 2 * n, "sum of ones");
    t.expect_eq(sums[1], n * (n - 1) / 2, "sum of ranks");
    t.expect_eq(sums[2], squares, "sum of squares");
    t.expect_eq(sums[3], 1000 * n, "sum of thousands");
  }
  free_window(t, w.win);
}
