// Whether the MPI below gives the core away in every call that finds
// nothing to do.
//
// Open MPI does when its `mpi_yield_when_idle` is on, which mpirun sets by
// itself when a node has more processes than cores. A thread that yields
// inside MPI while it holds a lock of libep keeps the process's other
// endpoints waiting until it is scheduled again, milliseconds on a loaded
// machine; so where libep holds a lock across MPI calls that may find
// nothing, it first looks without the lock when this is true
// (p2p/engine.cpp, coll/nonblocking.cpp). Where it is false (MPICH, or Open
// MPI on a node with a core for every process) the look would only add an
// MPI call to every message.
#pragma once

namespace ep::detail {

/// Read once, from the settings mpirun passes in the environment
/// (docs/environment.md); false under other MPIs. A setting given only in
/// an MCA parameter file is not seen.
bool mpi_yields_when_idle();

/// While one lives, Open MPI's progress loop yields the core whenever it
/// finds nothing to do, as with `mpi_yield_when_idle` on, in every thread
/// of the process; the setting before the first is back after the last.
/// For blocking calls that wait for other processes on a node with more
/// busy threads than cores (comm/turn.hpp), for milliseconds: meanwhile
/// mpi_yields_when_idle() still gives the run's setting, so the endpoints
/// that hold a lock across MPI calls may yield holding it. Does nothing
/// under other MPIs, or an Open MPI without
/// opal_progress_set_yield_when_idle.
class YieldingInMpi {
 public:
  YieldingInMpi();
  ~YieldingInMpi();
  YieldingInMpi(const YieldingInMpi&) = delete;
  YieldingInMpi& operator=(const YieldingInMpi&) = delete;
};

/// An Open MPI MCA flag's text (`value`, null when unset) as Open MPI 4.1.4
/// reads it: `fallback` when unset or a text Open MPI refuses.
bool mca_flag(const char* value, bool fallback);

}  // namespace ep::detail
