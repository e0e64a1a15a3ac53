// ep-bench iallreduce: the time to complete a non-blocking allreduce
// (MPI_INT32_T) over all ranks, and how much of it a computation hides, by
// message size, endpoints beside plain MPI processes (nbc_bench.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "nbc_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct IallreduceOptions {
  NbcOptions nbc;
  std::string op = "sum";  ///< sum, max or min on MPI_INT32_T
};

/// Adds the "iallreduce" subcommand to `parent`.
Subcommand setup_iallreduce(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_iallreduce(const IallreduceOptions& options, const Invocation& invocation);

}  // namespace ep::bench
