// ep::Barrier.
//
//   1. local:  every endpoint enters; the leader waits for all of them.
//   2. MPI:    the leader calls MPI_Barrier among the processes.
//   3. spread: the leader signals; the others, waiting only for that signal, leave.
//
// One hand-off each way instead of two full barriers: only the leader waits
// for everyone, everyone else waits for the leader alone.
#include "coll/entry.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "ep/coll.hpp"
#include "team/meeting.hpp"

namespace ep {

namespace {

int barrier(const detail::Entered& in) {
  detail::Meeting m(in.e, nullptr);
  constexpr int kReleased = 1;
  int rc = MPI_SUCCESS;
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
  return detail::check_mpi(rc, in.e, in.function, "MPI_Barrier");
}

}  // namespace

int Barrier(Comm comm) {
  return detail::enter(
      comm, {.function = "Barrier", .signature = {detail::CollId::Barrier}},
      [](const detail::Entered& in) { return barrier(in); },
      [](const detail::Entered& in) { return detail::inter_barrier(in); });
}

}  // namespace ep
