// ep-bench split: the time to split a communicator (Comm_split) and to free
// the result, endpoints beside plain MPI processes.
#pragma once

#include <CLI/CLI.hpp>

#include "comm_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct SplitOptions {
  CommBenchOptions comm;
  int colors = 2;   ///< color = rank % colors; key = -rank
  int parents = 1;  ///< > 1: each rank splits its sibling, one of `parents` (rank % parents)
};

/// Adds the "split" subcommand to `parent`.
Subcommand setup_split(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_split(const SplitOptions& options, const Invocation& invocation);

}  // namespace ep::bench
