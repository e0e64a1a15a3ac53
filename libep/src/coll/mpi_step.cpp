#include "coll/mpi_step.hpp"

#include <sched.h>

#include <vector>

#include "core/backoff.hpp"

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

int complete_all(int count, MPI_Request* requests) {
  std::vector<MPI_Status> statuses(static_cast<std::size_t>(count));
  for (int polls = 0;; ++polls) {
    int done = 0;
    const int rc = MPI_Testall(count, requests, &done, statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& s : statuses) {
        if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING) return s.MPI_ERROR;
      }
    }
    if (rc != MPI_SUCCESS || done) return rc;
    back_off(polls);
  }
}

}  // namespace ep::detail
