// ep-bench ibcast: the time to complete a non-blocking broadcast over all
// ranks, and how much of it a computation hides, by message size, endpoints
// beside plain MPI processes (nbc_bench.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include "nbc_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct IbcastOptions {
  NbcOptions nbc;
  int root = 0;  ///< the rank whose buffer is broadcast
};

/// Adds the "ibcast" subcommand to `parent`.
Subcommand setup_ibcast(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_ibcast(const IbcastOptions& options, const Invocation& invocation);

}  // namespace ep::bench
