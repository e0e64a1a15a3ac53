// Options every ep-bench subcommand shares: which implementation runs the
// pattern, the measurement methodology, and where results go.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "stats.hpp"

namespace ep::bench {

/// Who plays the ranks of a pattern.
enum class Impl {
  ep,           ///< endpoints of one libep communicator, one thread each
  mpi,          ///< plain MPI processes, one rank per process
  mpi_threads,  ///< threads sharing one MPI rank, each with its own MPI_Comm_dup
};

std::string_view impl_name(Impl impl);

struct BenchOptions {
  std::string impl = "ep";
  std::int64_t warmup = -1;     ///< iterations before timing; -1: a default by message size
  std::int64_t iterations = 0;  ///< per repetition; 0: enough to fill min_time
  int repetitions = 10;
  double min_time = 0.01;  ///< seconds a repetition should take when iterations is 0
  std::string json_path;   ///< "" none, "-" stdout
  std::string csv_path;    ///< "" none, "-" stdout
  bool quiet = false;
  double watchdog = 120;  ///< seconds without progress before the job ends; 0: never
  double noise_threshold =
      results::default_noise_threshold;  ///< spread (p90 - min) / median that marks a case noisy
  bool validate = false;
  std::string thread_level = "auto";

  Impl parsed_impl() const;
};

/// Adds the shared options to a subcommand.
void add_bench_options(CLI::App& app, BenchOptions& options);

/// The level to request from MPI_Init_thread: what --thread-level says, or by
/// default MPI_THREAD_MULTIPLE for ep and mpi-threads, and MPI_THREAD_SINGLE
/// for mpi, so that the plain-MPI baseline pays nothing for threads it does
/// not have.
int requested_thread_level(const BenchOptions& options);

/// Throws UsageError unless MPI gave the threading the implementation needs.
void require_thread_level(const BenchOptions& options, int provided);

}  // namespace ep::bench
