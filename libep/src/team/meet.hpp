// The pattern every communicator constructor follows.
//
// The endpoints of a process meet in their LocalTeam, each publishing its
// arguments; the leader (local endpoint 0) does the MPI work for the whole
// process and builds the new communicator; every endpoint then picks up its
// own handle, or the error, which all endpoints of the process share. MPI
// calls on different processes match because every leader makes the same
// calls in the same order.
#pragma once

#include <string>
#include <vector>

#include "ep/types.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

// What the leader hands back to every endpoint of its process.
struct Outcome {
  int rc = MPI_SUCCESS;
  std::string why;
  std::vector<Endpoint*> by_local;  // the new handle of each old local endpoint (or null)
};

// Runs `leader_work` on local endpoint 0 once every endpoint of the process
// has published `arrival`, then gives each endpoint its handle or the error.
template <class Arrival, class LeaderWork>
int meet(Endpoint* e, const Arrival& arrival, Comm* newcomm, const char* function,
         LeaderWork&& leader_work) {
  LocalTeam& team = *e->shared->team;
  team.slot(e->local) = &arrival;
  team.sync();
  Outcome outcome;
  if (e->local == 0) {
    outcome.by_local.assign(static_cast<std::size_t>(team.size()), nullptr);
    leader_work(outcome);
    team.slot(0) = &outcome;  // only the leader read the arrivals
  }
  team.sync();
  const Outcome& shared_outcome = team.peer<Outcome>(0);
  const int rc = shared_outcome.rc;
  const std::string why = shared_outcome.why;
  Endpoint* mine =
      rc == MPI_SUCCESS ? shared_outcome.by_local[static_cast<std::size_t>(e->local)] : nullptr;
  team.sync();  // the leader's outcome lives on its stack until everyone has read it
  if (mine) mine->errhandler = e->errhandler;  // MPI: a new communicator inherits it
  *newcomm = mine;
  if (rc != MPI_SUCCESS) return raise(e, error_class_of(rc), function, why);
  return MPI_SUCCESS;
}

}  // namespace ep::detail
