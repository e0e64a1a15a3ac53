// ep-bench barrier: barrier latency over all ranks, endpoints beside plain
// MPI processes (coll_bench.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include "coll_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct BarrierOptions {
  CollOptions coll;  ///< --sizes is not offered: a barrier moves no data
};

/// Adds the "barrier" subcommand to `parent`.
Subcommand setup_barrier(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_barrier(const BarrierOptions& options, const Invocation& invocation);

}  // namespace ep::bench
