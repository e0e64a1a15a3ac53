// ep-bench p2p: point-to-point latency, bandwidth and message rate between
// pairs of ranks, played by libep endpoints, MPI processes, or threads that
// share an MPI rank.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct P2pOptions {
  BenchOptions bench;
  std::string placement;  ///< intra, inter; "": intra, or inter for --impl mpi
  int pairs = 1;
  std::string sizes = "1:4M:x2";
  std::string msgrate_sizes = "8";
  std::vector<std::string> tests = {"latency", "bandwidth", "msgrate"};
  int window = 64;
};

/// Adds the "p2p" subcommand to `parent`.
Subcommand setup_p2p(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_p2p(const P2pOptions& options, const Invocation& invocation);

}  // namespace ep::bench
