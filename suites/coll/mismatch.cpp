// EP_CHECK_COLLECTIVES=1 (set by the test's environment): endpoints that
// call different collectives, or the same one with a different root or
// size, all fail with MPI_ERR_OTHER instead of hanging, and the collectives
// that match still work afterwards. With --fatal=1 the default error handler
// must end the program with a message naming the first rank that differs.
#include "coll_test.hpp"

namespace {

using namespace eptest;

void still_works(Context& t, const char* after) {
  const int mine = t.rank() + 1;
  int sum = 0;
  t.check_rc(capi::Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, t.comm()),
             std::string("Allreduce after ") + after);
  t.expect_eq(sum, t.size() * (t.size() + 1) / 2, std::string("sum after ") + after);
}

}  // namespace

void eptest::run(Context& t) {
  if (t.params().get_int("fatal", 0) != 0) {
    int buf[4] = {};
    // Rank 1 (or 0 alone) broadcasts one element fewer than the others.
    capi::Bcast(buf, t.rank() == 1 ? 3 : 4, MPI_INT, 0, t.comm());
    if (t.size() == 1) t.fail("nothing to mismatch with one rank; run with more");
    return;
  }
  t.check_rc(capi::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  still_works(t, "start");
  if (t.size() == 1) return;  // one rank always agrees with itself
  const int last = t.size() - 1;
  int buf[4] = {1, 2, 3, 4};
  int out[4] = {};

  int rc = capi::Bcast(buf, t.rank() == last ? 3 : 4, MPI_INT, 0, t.comm());
  t.expect_class(rc, MPI_ERR_OTHER, "Bcast with a different count on the last rank");
  still_works(t, "count mismatch");

  rc = t.rank() == 1 ? capi::Allreduce(buf, out, 1, MPI_INT, MPI_SUM, t.comm())
                     : capi::Bcast(buf, 1, MPI_INT, 0, t.comm());
  t.expect_class(rc, MPI_ERR_OTHER, "Allreduce on rank 1, Bcast elsewhere");
  still_works(t, "collective mismatch");

  rc = capi::Reduce(buf, out, 4, MPI_INT, MPI_SUM, t.rank() == 0 ? 0 : 1, t.comm());
  t.expect_class(rc, MPI_ERR_OTHER, "Reduce with different roots");
  still_works(t, "root mismatch");
}
