// ep::Barrier.
//
//   1. local:  every endpoint enters; the leader waits for all of them.
//   2. MPI:    the leader calls MPI_Barrier among the processes.
//   3. spread: the leader signals; the others, waiting only for that signal, leave.
//
// One hand-off each way instead of two full barriers: only the leader waits
// for everyone, everyone else waits for the leader alone.
#include "coll/checks.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "ep/coll.hpp"
#include "team/meeting.hpp"

namespace ep {

int Barrier(Comm comm) {
  constexpr const char* fn = "Barrier";
  int rc = MPI_SUCCESS;
  detail::Endpoint* e = detail::coll_endpoint(comm, fn, &rc);
  if (!e) return rc;
  if (e->shared->inter) return detail::inter_barrier(e);
  if ((rc = detail::check_signature(e, {detail::CollId::Barrier}, fn)) != MPI_SUCCESS) return rc;

  detail::Meeting m(e, nullptr);
  constexpr int kReleased = 1;
  if (m.leader()) {
    m.wait_all_posted();      // 1
    if (m.multi_process()) {  // 2
      MPI_Request request = MPI_REQUEST_NULL;
      rc = detail::complete(MPI_Ibarrier(m.shared().mpi_comm, &request), &request);
    }
    m.signal(kReleased, rc);  // 3
  } else {
    rc = m.wait(0, kReleased);
  }
  return detail::check_mpi(rc, e, fn, "MPI_Barrier");
}

}  // namespace ep
