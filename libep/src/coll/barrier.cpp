// ep::Barrier.
//
//   1. local:  every endpoint arrives at the team's gate (LocalTeam::arrive);
//   2. MPI:    the last to arrive meets the other processes (message_barrier,
//              coll/mpi_step.hpp);
//   3. spread: it opens the gate; the others, waiting only for that, leave.
//
// The endpoint that makes step 2 is the one already running when the
// process is complete, not the leader, which may have to be woken first.
#include "coll/entry.hpp"
#include "coll/inter.hpp"
#include "coll/mpi_step.hpp"
#include "ep/coll.hpp"
#include "team/local_team.hpp"

namespace ep {

namespace {

int barrier(const detail::Entered& in) {
  const detail::CommShared& shared = *in.e->shared;
  detail::LocalTeam& team = *shared.team;
  const detail::LocalTeam::Passage passage = team.arrive(in.e->local);  // 1
  int rc = MPI_SUCCESS;
  if (passage.last) {
    if (shared.mpi_size > 1) rc = detail::message_barrier(shared);  // 2
    team.open(passage.number, rc);                                  // 3
  } else {
    rc = team.wait_open(passage.number);
  }
  return detail::check_mpi(rc, in.e, in.function, "the barrier among processes");
}

}  // namespace

int Barrier(Comm comm) {
  return detail::enter(
      comm, {.function = "Barrier", .signature = {detail::CollId::Barrier}},
      [](const detail::Entered& in) { return barrier(in); },
      [](const detail::Entered& in) { return detail::inter_barrier(in); });
}

}  // namespace ep
