// ep-bench dup: the time to duplicate a communicator (Comm_dup) and to free
// the duplicate, endpoints beside plain MPI processes.
#pragma once

#include <CLI/CLI.hpp>

#include "comm_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct DupOptions {
  CommBenchOptions comm;
};

/// Adds the "dup" subcommand to `parent`.
Subcommand setup_dup(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_dup(const DupOptions& options, const Invocation& invocation);

}  // namespace ep::bench
