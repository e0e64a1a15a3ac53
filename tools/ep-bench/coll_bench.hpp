// ep-bench bcast and allreduce: the time of a collective over all ranks,
// played by libep endpoints (--impl ep, --ep per process) or by plain MPI
// processes (--impl mpi), over a sweep of message sizes.
//
// The ranks and processes follow the communicator benchmarks (comm_bench.hpp):
// the same --ep layouts, the same rule that --impl mpi needs as many processes
// as the endpoint layout has endpoints. --impl mpi-threads is refused: a
// collective over threads that share one MPI rank cannot be written in MPI.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "comm_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct CollOptions {
  CommBenchOptions comm;
  std::string sizes = "4:4M:x2";
  int root = 0;            ///< bcast
  std::string op = "sum";  ///< allreduce: sum, max or min on MPI_INT32_T
};

/// Adds the "bcast" subcommand to `parent`.
Subcommand setup_bcast(CLI::App& parent);

/// Adds the "allreduce" subcommand to `parent`.
Subcommand setup_allreduce(CLI::App& parent);

/// Run the benchmark and return the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_bcast(const CollOptions& options, const Invocation& invocation);
int run_allreduce(const CollOptions& options, const Invocation& invocation);

}  // namespace ep::bench
