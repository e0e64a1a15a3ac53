// Under the default error handler a collective with an invalid root ends the
// job with a message naming the function, the endpoint and the reason.
#include "coll_test.hpp"

void eptest::run(Context& t) {
  int buf[2] = {};
  capi::Bcast(buf, 2, MPI_INT, 7, t.comm());  // the layouts have fewer than 8 ranks
  t.fail("Bcast with an invalid root returned");
}
