// Get_accumulate with MPI_SUM, MPI_NO_OP and MPI_REPLACE under one
// lock_all epoch, each completed by a flush:
//  - on the right neighbour's 4-int block (one origin per block, so every
//    fetched value is deterministic and printed): SUM fetches the initial
//    values, NO_OP the sums, REPLACE the sums again, NO_OP the replacement;
//  - on a counter of rank 0 that every rank adds to --iterations times:
//    the fetched values over all ranks are 0 .. n*iterations-1, each once;
//  - Accumulate with MPI_REPLACE and MPI_MAX, completed locally by
//    Win_flush_local / Win_flush_local_all before the origin buffer is
//    reused, then at the target by Win_flush_all.
#include <algorithm>
#include <numeric>

#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

constexpr int kBlock = 0;    // 4 ints, written by the left neighbour
constexpr int kCounter = 4;  // rank 0's counter
constexpr int kLocal = 8;    // 4 ints, Accumulate REPLACE then MAX by the left neighbour

int initial(int rank, int i) { return 100 * rank + i; }

}  // namespace

void eptest::run(Context& t) {
  const int iterations = t.params().get_int("iterations", 100);
  const int me = t.rank();
  const int n = t.size();
  const int right = (me + 1) % n;
  Window w = allocate(t, t.comm(), 16);
  if (w.win == api::WIN_NULL) return;
  for (int i = 0; i < 4; ++i) w.base[kBlock + i] = initial(me, i);
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence");

  t.check_rc(api::Win_lock_all(0, w.win), "Win_lock_all");
  int add[4];
  int fetched[4][4] = {};
  for (int i = 0; i < 4; ++i) add[i] = (me + 1) * (i + 1);
  const int replace[4] = {-1, -2, -3, -4};
  t.check_rc(api::Get_accumulate(add, 4, MPI_INT, fetched[0], 4, MPI_INT, right, kBlock, 4, MPI_INT,
                                 MPI_SUM, w.win),
             "Get_accumulate(SUM)");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush");
  t.check_rc(api::Get_accumulate(nullptr, 0, MPI_INT, fetched[1], 4, MPI_INT, right, kBlock, 4,
                                 MPI_INT, MPI_NO_OP, w.win),
             "Get_accumulate(NO_OP)");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush");
  t.check_rc(api::Get_accumulate(replace, 4, MPI_INT, fetched[2], 4, MPI_INT, right, kBlock, 4,
                                 MPI_INT, MPI_REPLACE, w.win),
             "Get_accumulate(REPLACE)");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush");
  t.check_rc(api::Get_accumulate(nullptr, 0, MPI_INT, fetched[3], 4, MPI_INT, right, kBlock, 4,
                                 MPI_INT, MPI_NO_OP, w.win),
             "Get_accumulate(NO_OP)");
  t.check_rc(api::Win_flush(right, w.win), "Win_flush");
  for (int k = 0; k < 4; ++k) {
    static const char* const names[4] = {"sum", "no_op", "replace", "no_op"};
    t.out("{} fetched {}", names[k], join(fetched[k], 4));
  }
  for (int i = 0; i < 4; ++i) {
    const int start = initial(right, i);
    t.expect_eq(fetched[0][i], start, "SUM fetched");
    t.expect_eq(fetched[1][i], start + add[i], "NO_OP fetched");
    t.expect_eq(fetched[2][i], start + add[i], "REPLACE fetched");
    t.expect_eq(fetched[3][i], replace[i], "NO_OP after REPLACE fetched");
  }

  // The shared counter.
  std::vector<int> mine(static_cast<std::size_t>(iterations), -1);
  const int one = 1;
  for (int i = 0; i < iterations; ++i) {
    if (!t.check_rc(api::Get_accumulate(&one, 1, MPI_INT, &mine[static_cast<std::size_t>(i)], 1,
                                        MPI_INT, 0, kCounter, 1, MPI_INT, MPI_SUM, w.win),
                    "Get_accumulate counter"))
      break;
    t.check_rc(api::Win_flush(0, w.win), "Win_flush");
  }

  // Accumulate REPLACE, then MAX, with local completion between: the
  // origin buffer is rewritten as soon as flush_local returns.
  int buffer[4] = {5, 50, 500, 5000};
  t.check_rc(api::Accumulate(buffer, 4, MPI_INT, right, kLocal, 4, MPI_INT, MPI_REPLACE, w.win),
             "Accumulate(REPLACE)");
  t.check_rc(api::Win_flush_local(right, w.win), "Win_flush_local");
  for (int& x : buffer) x = x * 2 - 1 - me;  // larger for small ranks, smaller for big ones
  t.check_rc(api::Accumulate(buffer, 4, MPI_INT, right, kLocal, 4, MPI_INT, MPI_MAX, w.win),
             "Accumulate(MAX)");
  t.check_rc(api::Win_flush_local_all(w.win), "Win_flush_local_all");
  for (int& x : buffer) x = 0;
  t.check_rc(api::Win_flush_all(w.win), "Win_flush_all");
  t.check_rc(api::Win_unlock_all(w.win), "Win_unlock_all");

  std::vector<int> all(static_cast<std::size_t>(n * iterations), -1);
  t.check_rc(
      rcoll::Allgather(mine.data(), iterations, MPI_INT, all.data(), iterations, MPI_INT, t.comm()),
      "Allgather");
  std::sort(all.begin(), all.end());
  std::vector<int> want(all.size());
  std::iota(want.begin(), want.end(), 0);
  t.out("counter values each fetched once: {}", all == want);
  t.check(all == want, "fetched counter values are 0 .. n*iterations-1, each once");

  // The Allgather above happened after every rank's unlock_all: the window is final.
  const std::vector<int> window = read_locked(t, w.win, me, 0, 12);
  t.out("window: {}", join(window));
  const int left = (me + n - 1) % n;
  for (int i = 0; i < 4; ++i) {
    t.expect_eq(window[static_cast<std::size_t>(kBlock + i)], replace[i], "block");
    const int first = 5 * (i == 0 ? 1 : i == 1 ? 10 : i == 2 ? 100 : 1000);
    t.expect_eq(window[static_cast<std::size_t>(kLocal + i)], std::max(first, first * 2 - 1 - left),
                "MAX after REPLACE");
  }
  if (me == 0) t.expect_eq(window[kCounter], n * iterations, "counter");
  free_window(t, w.win);
}
