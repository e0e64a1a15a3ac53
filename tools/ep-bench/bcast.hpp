// ep-bench bcast: broadcast latency and bandwidth over all ranks, by message
// size, endpoints beside plain MPI processes (coll_bench.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "coll_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct BcastOptions {
  CollOptions coll;
  int root = 0;  ///< the rank whose buffer is broadcast
};

/// Adds the "bcast" subcommand to `parent`.
Subcommand setup_bcast(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_bcast(const BcastOptions& options, const Invocation& invocation);

}  // namespace ep::bench
