// Where a result came from: the block that every tool output carries so that
// two result files can be told apart months later (which MPI, which build,
// which machine, how loaded, with which environment).
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ep::tools {

struct RunDescription {
  std::vector<std::string> command_line;  ///< argv as the tool received it
  int thread_level_requested = MPI_THREAD_SINGLE;
  int thread_level_provided = MPI_THREAD_SINGLE;
  /// Threads of this process that run or wait actively during the measurement;
  /// summed per host and compared with its cores to flag oversubscription.
  int busy_threads = 1;
};

/// The provenance object (google/benchmark's "context" names where one exists:
/// date, executable, host_name, num_cpus, load_avg).
/// \note Collective over MPI_COMM_WORLD; returns the object on world rank 0
/// and null elsewhere.
nlohmann::ordered_json describe_run(const RunDescription& run);

/// A warning when some process of the run described by `context` has more
/// busy threads than CPUs in its affinity mask although the host has more:
/// its threads then take turns on one core and measure the binding, not the
/// library. Empty when there is nothing to say.
std::string affinity_warning(const nlohmann::ordered_json& context);

/// A note when some host runs more busy threads than it has cores (every
/// host's count is in `context`: busy_threads_per_host, cores_per_host):
/// the ranks then take turns on the cores, and times include the wait for
/// one. Empty when there is nothing to say.
std::string oversubscription_note(const nlohmann::ordered_json& context);

/// A note when the `environment` of `context` sets one of libep's own
/// variables that changes its times (EP_INSPECT, EP_CHECK_COLLECTIVES,
/// EP_COLL_ALGORITHM; docs/environment.md); empty otherwise.
std::string libep_environment_note(const nlohmann::ordered_json& context);

/// A note when threads share an MPI rank (`impl` "mpi-threads", more than
/// one per process) on MPICH 4.0: a thread waiting in one of its blocking
/// calls there keeps the process's global lock from the others (two threads
/// of one process ping-ponging stalled for 20 s and more in 9 of 10 runs
/// with MPICH 4.0.2), so the run may stall until the watchdog ends it.
/// Empty when there is nothing to say.
std::string shared_rank_note(const nlohmann::ordered_json& context);

/// The MPI implementation's name and version read from its library version
/// string (MPI_Get_library_version): {"name": "Open MPI", "version":
/// "4.1.4"}; "unknown" for what it does not recognise.
nlohmann::ordered_json mpi_implementation(const std::string& library_version);

/// "MPI_THREAD_MULTIPLE" for MPI_THREAD_MULTIPLE, and so on.
std::string thread_level_name(int level);

/// The arguments joined into one line that a POSIX shell would split back.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace ep::tools
