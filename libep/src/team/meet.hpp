// The pattern every communicator constructor follows.
//
// The endpoints of a process meet in their LocalTeam, each publishing its
// arguments; the leader (local endpoint 0) does the MPI work for the whole
// process and builds the new communicator; every endpoint then picks up its
// own handle, or the error, which all endpoints of the process share. MPI
// calls on different processes match because every leader makes the same
// calls in the same order.
//
// Every constructor's first step is enter_constructor(): the endpoints also
// publish which constructor they called, so that a process whose endpoints
// called different ones on the same communicator (one Comm_split, another
// Comm_dup: erroneous in MPI, where it hangs or mismatches) fails on all of
// them with MPI_ERR_OTHER, as EP_CHECK_COLLECTIVES reports mismatched
// collectives, instead of reading one constructor's arguments as another's.
// Each constructor's first phase is three team syncs (enter, the leader's
// result, everyone has read it), so endpoints that leave through
// leave_mismatched() after one more sync stay in step whichever constructor
// each of them is in. Only the endpoints of one process are compared: a
// mismatch between processes, or on a process hosting one endpoint, is not
// seen here (it is no cheaper to find than the collectives').
#pragma once

#include <cstring>
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

// What every endpoint publishes when it enters a constructor.
// The leader hands its result back through `result` rather than through its
// slot, which the others may still be reading to compare constructors.
struct Posted {
  const char* function = nullptr;  // the constructor, as errors name it
  const void* arrival = nullptr;   // its arguments (meet's Arrival)
  const void* result = nullptr;    // local endpoint 0's, once it has one
};

// What local endpoint 0 published as `result` (read after the sync that
// follows its writing it).
template <class Result>
const Result& result_of(const LocalTeam& team) {
  return *static_cast<const Result*>(team.peer<Posted>(0).result);
}

// The arguments endpoint `local` published with meet().
template <class Arrival>
const Arrival& arrival_of(const LocalTeam& team, int local) {
  return *static_cast<const Arrival*>(team.peer<Posted>(local).arrival);
}

// The first step of every communicator constructor: publishes `posted`,
// waits for the other endpoints of the process and compares the
// constructors they called. Returns why they differ (the same text on every
// endpoint), or an empty string.
inline std::string enter_constructor(LocalTeam& team, int local, const Posted& posted) {
  team.slot(local) = &posted;
  team.sync();
  const char* first = team.peer<Posted>(0).function;
  for (int l = 1; l < team.size(); ++l) {
    const char* other = team.peer<Posted>(l).function;
    if (std::strcmp(other, first) == 0) continue;
    return fmt::format(
        "the endpoints of this MPI process called different constructors on the same "
        "communicator: local endpoint {} called ep::{} while local endpoint 0 called ep::{}",
        l, other, first);
  }
  return {};
}

// Leaves a constructor whose endpoints disagree (enter_constructor returned
// `why`): once everyone has read this endpoint's Posted, fails with
// MPI_ERR_OTHER and no new communicator.
inline int leave_mismatched(Endpoint* e, Comm* newcomm, const char* function,
                            const std::string& why) {
  e->shared->team->sync();
  if (newcomm) *newcomm = COMM_NULL;
  return raise(e, MPI_ERR_OTHER, function, why);
}

// Runs `leader_work` on local endpoint 0 once every endpoint of the process
// has published `arrival`, then gives each endpoint its handle or the error.
template <class Arrival, class LeaderWork>
int meet(Endpoint* e, const Arrival& arrival, Comm* newcomm, const char* function,
         LeaderWork&& leader_work) {
  LocalTeam& team = *e->shared->team;
  Posted posted{function, &arrival};
  const std::string mismatch = enter_constructor(team, e->local, posted);
  if (!mismatch.empty()) return leave_mismatched(e, newcomm, function, mismatch);
  Outcome outcome;
  if (e->local == 0) {
    outcome.by_local.assign(static_cast<std::size_t>(team.size()), nullptr);
    leader_work(outcome);
    posted.result = &outcome;
  }
  team.sync();
  const Outcome& shared_outcome = result_of<Outcome>(team);
  const int rc = shared_outcome.rc;
  const std::string why = shared_outcome.why;
  Endpoint* mine =
      rc == MPI_SUCCESS ? shared_outcome.by_local[static_cast<std::size_t>(e->local)] : nullptr;
  team.sync();  // the leader's outcome lives on its stack until everyone has read it
  if (mine) mine->errhandler = e->errhandler;  // MPI: a new communicator inherits it
  *newcomm = mine ? handle_of(mine) : COMM_NULL;
  if (rc != MPI_SUCCESS) return raise(e, error_class_of(rc), function, why);
  return MPI_SUCCESS;
}

}  // namespace ep::detail
