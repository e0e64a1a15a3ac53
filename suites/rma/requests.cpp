// The request forms under one lock_all epoch: Rput to the right neighbour
// completed by Wait (local completion: the buffer may be reused; a flush
// makes the data visible), Rget of it back completed by polling Test,
// Raccumulate to rank 0 completed by Wait, Rget_accumulate (SUM, then
// NO_OP) on the right neighbour completed by Wait, and an Rput to
// MPI_PROC_NULL, which completes at once. Every fetched value is printed.
#include "helpers.hpp"
#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

constexpr int kPut = 0;   // 4 ints from the left neighbour
constexpr int kSum = 4;   // rank 0's sum
constexpr int kGacc = 5;  // 2 ints the left neighbour adds to

}  // namespace

void eptest::run(Context& t) {
  const int me = t.rank();
  const int n = t.size();
  const int right = (me + 1) % n;
  Window w = allocate(t, t.comm(), 8);
  if (w.win == api::WIN_NULL) return;
  t.check_rc(api::Win_lock_all(0, w.win), "Win_lock_all");

  int data[4] = {me, me + 10, me + 20, me + 30};
  api::Request req = api::REQUEST_NULL;
  t.check_rc(api::Rput(data, 4, MPI_INT, right, kPut, 4, MPI_INT, w.win, &req), "Rput");
  t.check_rc(api::Wait(&req, api::STATUS_IGNORE), "Wait(Rput)");
  t.check(req == api::REQUEST_NULL, "Wait left the Rput request set");
  for (int& x : data) x = -9;  // locally complete: the buffer is ours again
  t.check_rc(api::Win_flush(right, w.win), "Win_flush");

  int back[4] = {};
  t.check_rc(api::Rget(back, 4, MPI_INT, right, kPut, 4, MPI_INT, w.win, &req), "Rget");
  int done = 0;
  while (!done) {
    if (!t.check_rc(api::Test(&req, &done, api::STATUS_IGNORE), "Test(Rget)")) break;
    if (!done) relax();
  }
  t.out("Rget after Rput: {}", join(back, 4));
  for (int i = 0; i < 4; ++i) t.expect_eq(back[i], me + 10 * i, "Rget");

  const int one = me + 1;
  t.check_rc(api::Raccumulate(&one, 1, MPI_INT, 0, kSum, 1, MPI_INT, MPI_SUM, w.win, &req),
             "Raccumulate");
  t.check_rc(api::Wait(&req, api::STATUS_IGNORE), "Wait(Raccumulate)");

  const int add[2] = {3, 4};
  int fetched[2][2] = {{-1, -1}, {-1, -1}};
  t.check_rc(api::Rget_accumulate(add, 2, MPI_INT, fetched[0], 2, MPI_INT, right, kGacc, 2, MPI_INT,
                                  MPI_SUM, w.win, &req),
             "Rget_accumulate(SUM)");
  t.check_rc(api::Wait(&req, api::STATUS_IGNORE), "Wait(Rget_accumulate)");
  t.check_rc(api::Rget_accumulate(nullptr, 0, MPI_INT, fetched[1], 2, MPI_INT, right, kGacc, 2,
                                  MPI_INT, MPI_NO_OP, w.win, &req),
             "Rget_accumulate(NO_OP)");
  t.check_rc(api::Wait(&req, api::STATUS_IGNORE), "Wait(Rget_accumulate)");
  t.out("Rget_accumulate fetched {} then {}", join(fetched[0], 2), join(fetched[1], 2));
  t.expect_eq(fetched[0][0], 0, "Rget_accumulate(SUM) fetched");
  t.expect_eq(fetched[1][1], 4, "Rget_accumulate(NO_OP) fetched");

  t.check_rc(api::Rput(data, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, w.win, &req),
             "Rput(PROC_NULL)");
  t.check_rc(api::Wait(&req, api::STATUS_IGNORE), "Wait(Rput PROC_NULL)");
  t.check_rc(api::Win_unlock_all(w.win), "Win_unlock_all");
  t.barrier();

  const std::vector<int> mine = read_locked(t, w.win, me, 0, 7);
  t.out("window: {}", join(mine));
  const int left = (me + n - 1) % n;
  for (int i = 0; i < 4; ++i) t.expect_eq(mine[static_cast<std::size_t>(i)], left + 10 * i, "Rput");
  t.expect_eq(mine[kSum], me == 0 ? n * (n + 1) / 2 : 0, "Raccumulate sum");
  t.expect_eq(mine[kGacc], 3, "Rget_accumulate target");
  free_window(t, w.win);
}
