// Fence epochs with Put, Get and Accumulate, on a Win_allocate window of 64
// ints per rank:
//   epoch 1: rank r puts 2 ints into slot r of its right neighbour's put
//            area, and adds 4 ints into every rank's sum area;
//   epoch 2: rank r gets its left neighbour's put and sum areas;
//   epoch 3: rank r puts 4 ints through a strided target type (a vector of
//            4 blocks of 1 int, stride 3) into its right neighbour, and
//            accumulates through the same type into its left neighbour;
//   epoch 4: rank r gets the strided elements of its right neighbour back
//            into a contiguous buffer through the strided type.
// MPI_PROC_NULL as a target does nothing. Each rank prints its whole window
// and what it got; every value is also checked against what it must be.
#include <vector>

#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

constexpr int kInts = 64;
constexpr int kPutArea = 0;      // 2 ints per origin rank: [0, 16)
constexpr int kSumArea = 16;     // 4 ints: [16, 20)
constexpr int kStrided = 24;     // 4 ints at stride 3: 24, 27, 30, 33
constexpr int kStridedAcc = 40;  // 4 ints at stride 3: 40, 43, 46, 49

int put_value(int origin, int i) { return 1000 * (origin + 1) + i; }
int sum_value(int origin, int i) { return origin * 10 + i + 1; }
int strided_value(int origin, int i) { return -100 * (origin + 1) - i; }

}  // namespace

void eptest::run(Context& t) {
  const int me = t.rank();
  const int n = t.size();
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  Window w = allocate(t, t.comm(), kInts);
  if (w.win == api::WIN_NULL) return;
  for (int i = 0; i < kInts; ++i) w.base[i] = -1;  // before the first fence: visible after it

  MPI_Datatype strided = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_vector(4, 1, 3, MPI_INT, &strided), "MPI_Type_vector");
  t.check_rc(MPI_Type_commit(&strided), "MPI_Type_commit");

  // Epoch 1.
  // Not MPI_MODE_NOPRECEDE: this fence also orders the stores of -1 above
  // before the other ranks' accesses.
  t.check_rc(api::Win_fence(0, w.win), "Win_fence 1");
  const int mine[2] = {put_value(me, 0), put_value(me, 1)};
  t.check_rc(api::Put(mine, 2, MPI_INT, right, kPutArea + 2 * me, 2, MPI_INT, w.win), "Put");
  t.check_rc(api::Put(mine, 2, MPI_INT, MPI_PROC_NULL, 0, 2, MPI_INT, w.win), "Put PROC_NULL");
  int add[4];
  for (int i = 0; i < 4; ++i) add[i] = sum_value(me, i);
  for (int target = 0; target < n; ++target) {
    t.check_rc(api::Accumulate(add, 4, MPI_INT, target, kSumArea, 4, MPI_INT, MPI_SUM, w.win),
               "Accumulate");
  }
  // The sum area starts at -1 (set before the first fence), which the
  // accumulates add to.
  t.check_rc(api::Accumulate(add, 4, MPI_INT, MPI_PROC_NULL, kSumArea, 4, MPI_INT, MPI_SUM, w.win),
             "Accumulate PROC_NULL");

  // Epoch 2.
  t.check_rc(api::Win_fence(0, w.win), "Win_fence 2");
  std::vector<int> got(20, -7);
  t.check_rc(api::Get(got.data(), 20, MPI_INT, left, 0, 20, MPI_INT, w.win), "Get");
  int untouched = -7;
  t.check_rc(api::Get(&untouched, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, w.win),
             "Get PROC_NULL");

  // Epoch 3.
  t.check_rc(api::Win_fence(0, w.win), "Win_fence 3");
  int spread[4];
  for (int i = 0; i < 4; ++i) spread[i] = strided_value(me, i);
  t.check_rc(api::Put(spread, 4, MPI_INT, right, kStrided, 1, strided, w.win), "Put strided");
  t.check_rc(api::Accumulate(add, 4, MPI_INT, left, kStridedAcc, 1, strided, MPI_SUM, w.win),
             "Accumulate strided");

  // Epoch 4.
  t.check_rc(api::Win_fence(0, w.win), "Win_fence 4");
  int back[4] = {0, 0, 0, 0};
  t.check_rc(api::Get(back, 4, MPI_INT, right, kStrided, 1, strided, w.win), "Get strided");
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence 5");

  // What the rank got.
  t.out("got from rank {}: {}", left, join(got));
  t.out("got strided from rank {}: {}", right, join(back, 4));
  t.expect_eq(untouched, -7, "Get from MPI_PROC_NULL wrote");
  std::vector<int> want_got(20, -1);
  want_got[static_cast<std::size_t>(2 * ((left + n - 1) % n))] = put_value((left + n - 1) % n, 0);
  want_got[static_cast<std::size_t>(2 * ((left + n - 1) % n) + 1)] =
      put_value((left + n - 1) % n, 1);
  for (int i = 0; i < 4; ++i) {
    int sum = -1;
    for (int r = 0; r < n; ++r) sum += sum_value(r, i);
    want_got[static_cast<std::size_t>(kSumArea + i)] = sum;
  }
  t.check(got == want_got, "Get of the left neighbour's put and sum areas");
  for (int i = 0; i < 4; ++i) t.expect_eq(back[i], strided_value(me, i), "Get strided");

  // The rank's own window, and what it must hold.
  t.out("window: {}", join(w.base, kInts));
  std::vector<int> want(kInts, -1);
  want[static_cast<std::size_t>(2 * left)] = put_value(left, 0);
  want[static_cast<std::size_t>(2 * left + 1)] = put_value(left, 1);
  for (int i = 0; i < 4; ++i) {
    want[static_cast<std::size_t>(kSumArea + i)] = want_got[static_cast<std::size_t>(kSumArea + i)];
    want[static_cast<std::size_t>(kStrided + 3 * i)] = strided_value(left, i);
    want[static_cast<std::size_t>(kStridedAcc + 3 * i)] = -1 + sum_value(right, i);
  }
  t.check(std::vector<int>(w.base, w.base + kInts) == want, "window contents");

  t.check_rc(MPI_Type_free(&strided), "MPI_Type_free");
  free_window(t, w.win);
}
