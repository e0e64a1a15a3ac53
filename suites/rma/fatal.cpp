// Under the default error handler of a window (MPI_ERRORS_ARE_FATAL), a Put
// outside the target's region ends the job with a message naming the
// function, the endpoint, the window and the reason. The last rank makes
// the bad call; the others wait in Win_free, which never completes.
#include "rma_test.hpp"

using namespace eptest;
using namespace eptest::rma;

void eptest::run(Context& t) {
  Window w = allocate(t, t.comm(), 16);
  if (w.win == api::WIN_NULL) return;
  t.check_rc(api::Win_set_errhandler(w.win, MPI_ERRORS_ARE_FATAL), "Win_set_errhandler");
  if (t.rank() == t.size() - 1) {
    const int data[4] = {1, 2, 3, 4};
    t.check_rc(api::Win_lock_all(0, w.win), "Win_lock_all");
    api::Put(data, 4, MPI_INT, 0, 14, 4, MPI_INT, w.win);  // ints 14..17 of 16
    t.fail("a Put past the end of the target's region returned");
    t.check_rc(api::Win_unlock_all(w.win), "Win_unlock_all");
  }
  free_window(t, w.win);
}
