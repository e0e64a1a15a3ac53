// ep-bench merge: the time to merge an inter-communicator (Intercomm_merge)
// and to free the result, endpoints beside plain MPI processes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "comm_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct MergeOptions {
  CommBenchOptions comm;
  std::string groups = "halves";
};

/// Adds the "merge" subcommand to `parent`.
Subcommand setup_merge(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_merge(const MergeOptions& options, const Invocation& invocation);

}  // namespace ep::bench
