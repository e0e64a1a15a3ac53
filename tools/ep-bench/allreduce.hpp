// ep-bench allreduce: allreduce (MPI_INT32_T) latency and bandwidth over all
// ranks, by message size, endpoints beside plain MPI processes
// (coll_bench.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "coll_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct AllreduceOptions {
  CollOptions coll;
  std::string op = "sum";  ///< sum, max or min on MPI_INT32_T
};

/// Adds the "allreduce" subcommand to `parent`.
Subcommand setup_allreduce(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_allreduce(const AllreduceOptions& options, const Invocation& invocation);

}  // namespace ep::bench
