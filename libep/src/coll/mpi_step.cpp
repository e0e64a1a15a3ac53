#include "coll/mpi_step.hpp"

#include <sched.h>

#include <vector>

#include "base/backoff.hpp"

namespace ep::detail {

namespace {
// Polls spent spinning before the leader starts yielding: enough for a
// message from a process that is already running, short enough not to keep
// a core from the endpoints that share it.
constexpr int kSpinningPolls = 8;

void back_off(int polls) {
  if (polls < kSpinningPolls) {
    cpu_relax();
  } else {
    sched_yield();
  }
}

}  // namespace

int complete(int rc, MPI_Request* request) {
  if (rc != MPI_SUCCESS) return rc;
  for (int polls = 0;; ++polls) {
    int done = 0;
    rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    back_off(polls);
  }
}

// One MPI_Test per request rather than MPI_Testall: MPI raises an error of
// MPI_Test on the request's communicator, whose handler libep set to
// MPI_ERRORS_RETURN, but MPICH raises one of MPI_Testall (MPI_ERR_IN_STATUS)
// on MPI_COMM_WORLD, whose handler is the application's (fatal by default).
// Like MPI_Testall it returns only once every request is complete: a request
// still under way writes into buffers the caller frees when this returns.
int complete_all(int count, MPI_Request* requests) {
  std::vector<bool> done(static_cast<std::size_t>(count), false);
  int first_error = MPI_SUCCESS;
  for (int polls = 0;; ++polls) {
    bool all_done = true;
    for (int i = 0; i < count; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (done[at] || requests[i] == MPI_REQUEST_NULL) {
        done[at] = true;
        continue;
      }
      int flag = 0;
      const int rc = MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        if (first_error == MPI_SUCCESS) first_error = rc;
        flag = 1;  // an erroneous request is complete
      }
      done[at] = flag != 0;
      all_done = all_done && done[at];
    }
    if (all_done) return first_error;
    back_off(polls);
  }
}

}  // namespace ep::detail
