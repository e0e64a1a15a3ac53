// How a benchmark family plugs into ep-bench: each subcommand file offers a
// setup function that adds its CLI11 subcommand and returns one of these.
// main() parses the command line, starts MPI at the thread level the chosen
// subcommand asks for (unless it needs no MPI), and runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ep::bench {

/// What main() knows about this run once MPI is up.
struct Invocation {
  std::vector<std::string> command_line;
  int thread_level_requested = 0;
  int thread_level_provided = 0;
  int world_rank = 0;
  int world_size = 1;
};

struct Subcommand {
  CLI::App* app = nullptr;
  /// The level to request from MPI_Init_thread; called after parsing.
  std::function<int()> thread_level;
  /// Runs the benchmark; returns the process exit code. Collective over
  /// MPI_COMM_WORLD.
  std::function<int(const Invocation&)> run;
  /// False for subcommands that only read files (compare): main() then
  /// neither starts MPI nor needs mpirun, and `run` gets a world of one.
  bool needs_mpi = true;
  /// Throws UsageError, as `run` would before measuring anything, if the
  /// parsed options cannot run on a job like `inv` (its size and thread
  /// level): ep-bench run checks every case of a suite so before any runs.
  /// Not collective: no MPI call. Empty: nothing to check.
  std::function<void(const Invocation&)> check = nullptr;
};

/// A command line that parses but does not fit the job (wrong number of
/// processes, a thread level MPI did not give). Every rank throws it alike;
/// rank 0 prints the message and ep-bench exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit status for a command line that cannot run, for CLI11's errors too.
inline constexpr int exit_usage = 2;
/// Exit status when the run completed but found wrong data (--validate).
inline constexpr int exit_failed = 1;

}  // namespace ep::bench
