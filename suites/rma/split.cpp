// A window on a split communicator whose ranks interleave across processes
// and run backwards: color = rank % 2, key = -rank, so even and odd ranks
// each get a communicator (both exist at the same time, on the same
// processes) in which the highest rank comes first. Window ranks are the
// split communicator's: rank s of the sub-communicator is world rank
// color + 2*(size-1-s). In a fence epoch every rank puts its world rank into
// its sub-right neighbour and adds it to sub-rank 0; then, under an
// exclusive lock, it increments its sub-left neighbour's counter.
#include "reference_mpi.hpp"
#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

}  // namespace

void eptest::run(Context& t) {
  const int me = t.rank();
  const int n = t.size();
  const int color = me % 2;
  api::Comm sub = api::COMM_NULL;
  if (!t.check_rc(rcoll::Comm_split(t.comm(), color, -me, &sub), "Comm_split")) return;
  int srank = -1;
  int ssize = 0;
  t.check_rc(api::Comm_rank(sub, &srank), "Comm_rank");
  t.check_rc(api::Comm_size(sub, &ssize), "Comm_size");
  const int members = (n - color + 1) / 2;
  t.expect_eq(ssize, members, "split size");
  t.expect_eq(srank, members - 1 - me / 2, "split rank");
  auto world_of = [&](int s) { return color + 2 * (ssize - 1 - s); };

  // The reference MPI mixes up windows created at the same time on the two
  // halves (reference_mpi.hpp): it creates them one color after the other.
  // Endpoints create both at once.
  const bool one_by_one = !kEndpoints && reference::kWindowsOfDisjointCommsCollide;
  if (one_by_one && color == 1) t.barrier();
  Window w = allocate(t, sub, 4);
  if (one_by_one && color == 0) t.barrier();
  if (w.win == api::WIN_NULL) return;
  const int sright = (srank + 1) % ssize;
  const int sleft = (srank + ssize - 1) % ssize;
  t.check_rc(api::Win_fence(MPI_MODE_NOPRECEDE, w.win), "Win_fence");
  t.check_rc(api::Put(&me, 1, MPI_INT, sright, 0, 1, MPI_INT, w.win), "Put");
  t.check_rc(api::Accumulate(&me, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, w.win), "Accumulate");
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence");

  t.check_rc(api::Win_lock(MPI_LOCK_EXCLUSIVE, sleft, 0, w.win), "Win_lock");
  int value = -1;
  t.check_rc(api::Get(&value, 1, MPI_INT, sleft, 2, 1, MPI_INT, w.win), "Get");
  t.check_rc(api::Win_flush(sleft, w.win), "Win_flush");
  value += 10 + me;
  t.check_rc(api::Put(&value, 1, MPI_INT, sleft, 2, 1, MPI_INT, w.win), "Put");
  t.check_rc(api::Win_unlock(sleft, w.win), "Win_unlock");
  t.barrier();

  const std::vector<int> mine = read_locked(t, w.win, srank, 0, 3);
  t.out("color {} rank {} of {}: from world rank {}, sum {}, counter {}", color, srank, ssize,
        mine[0], mine[1], mine[2]);
  t.expect_eq(mine[0], world_of(sleft), "put from the sub-left neighbour");
  int sum = 0;
  for (int s = 0; s < ssize; ++s) sum += world_of(s);
  t.expect_eq(mine[1], srank == 0 ? sum : 0, "sum at sub-rank 0");
  t.expect_eq(mine[2], 10 + world_of(sright), "counter from the sub-right neighbour");
  free_window(t, w.win);
  t.check_rc(api::Comm_free(&sub), "Comm_free");
}
