// ep-bench rma: one-sided communication (the OSU one-sided set: put, get,
// accumulate, get-accumulate, fetch-and-op, compare-and-swap under each
// synchronisation) between pairs of ranks played by libep endpoints, MPI
// processes, or threads that share an MPI rank; and the time to create and
// free a window.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct RmaOptions {
  BenchOptions bench;
  std::vector<std::string> ops = {"put"};
  std::vector<std::string> tests = {"latency"};
  std::vector<std::string> syncs = {"flush"};
  std::string window_kind = "allocate";
  std::string placement;  ///< intra, inter; "": intra, or inter for --impl mpi
  int pairs = 1;
  std::string sizes = "1:4M:x2";
  std::string atomic_bytes = "auto";
  std::string create_size = "4K";
  int window_size = 64;
};

/// Adds the "rma" subcommand to `parent`.
Subcommand setup_rma(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_rma(const RmaOptions& options, const Invocation& invocation);

}  // namespace ep::bench
