// ep::Abort ends the whole job, as MPI_Abort, with a message naming the
// endpoint and the error code. The runner checks the message (EXPECT_FATAL in
// CMakeLists.txt); reaching the end of this body is the failure.
#include "helpers.hpp"

void eptest::run(Context& t) {
  if (t.rank() != 0) return;
  const int rc = api::Abort(t.comm(), 3);
  t.fail(fmt::format("Abort returned {} instead of ending the job", rc));
}
