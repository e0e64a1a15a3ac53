// The gathered form of the non-blocking collectives (coll/nonblocking.hpp):
// the process's contributions to a call travel as one message to every other
// process, over the communicator's MPI communicator, and the other
// processes' messages are received in call order, one at a time per source.
// The engine (coll/nonblocking.cpp) calls these under the state's lock,
// except contribution_waiting.
#pragma once

#include "coll/nonblocking_state.hpp"

namespace ep::detail {

/// Packs the process's message of `call`, whose contributions are all
/// there (by its route: every block, or those each process takes), and
/// sends it to every other process. A failure fails the call.
void send_contributions(const CommShared& shared, ProcessCall* call);

/// Receives what has arrived from process `p`, in call order; without
/// `probe`, only moves on the receives already under way.
void receive_from(const CommShared& shared, NonblockingState& state, int p, bool probe);

/// Puts every contribution of `call`, whose messages have all arrived, in
/// place (call->gathered.at); a malformed message fails the call.
void place_contributions(const CommShared& shared, ProcessCall* call);

/// Whether a message of another process's contributions waits in MPI,
/// looked at without the state's lock. A probe under the lock that finds
/// nothing may give the core away inside MPI (Open MPI's
/// mpi_yield_when_idle, on when a node is oversubscribed), and the process's
/// other endpoints then wait for the holder to be scheduled again
/// (docs/design.md, Known limits): so advance probes only after a look
/// found something. An error counts as something: the probe meets it again.
bool contribution_waiting(const CommShared& shared);

}  // namespace ep::detail
