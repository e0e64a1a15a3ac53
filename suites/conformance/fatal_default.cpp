// The default error handler is fatal, as in MPI: a bad call on an endpoint
// that never changed its handler ends the program with a message naming the
// function, the endpoint and the reason. The runner checks the message
// (EXPECT_FATAL in CMakeLists.txt); reaching the end of this body is the
// failure.
#include "helpers.hpp"

void eptest::run(Context& t) {
  if (t.rank() != 0) return;
  int value = 0;
  // One past the last rank.
  const int rc = api::Send(&value, 1, MPI_INT, t.size(), 0, t.comm());
  t.fail(fmt::format("Send to rank {} of {} returned {} instead of ending the program", t.size(),
                     t.size(), rc));
}
