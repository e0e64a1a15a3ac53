// ep-bench: benchmarks of libep endpoints, side by side with plain MPI
// processes and with threads that share an MPI rank.
//
// The command line is parsed before MPI starts, because the chosen
// subcommand decides which thread level to request. Every rank parses the
// same arguments and reaches the same verdict: world rank 0 prints it, and
// every rank exits with its status, the others only after rank 0 has printed
// (ep::tools::early_verdict before MPI starts, job_verdict after).

#include <fmt/core.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ep/version.hpp>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "allreduce.hpp"
#include "barrier.hpp"
#include "bcast.hpp"
#include "compare.hpp"
#include "dup.hpp"
#include "iallreduce.hpp"
#include "ibcast.hpp"
#include "intercomm.hpp"
#include "merge.hpp"
#include "mpi_check.hpp"
#include "mpi_lifetime.hpp"
#include "output_file.hpp"
#include "p2p.hpp"
#include "rma.hpp"
#include "run.hpp"
#include "split.hpp"
#include "subcommand.hpp"
#include "summary.hpp"

namespace {

using ep::bench::exit_usage;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Help, --version and parse errors: under a launcher MPI is started only to
// learn which rank prints, so that mpirun -np 4 shows one message, not four,
// and every rank exits with the same status (ep::tools::early_verdict); not
// at all when the subcommand named runs without MPI (compare, summary), where
// each process says it.
int finish_parse(const CLI::App& app, const CLI::ParseError& error, bool start_mpi) {
  std::string text;
  int status = 0;
  if (error.get_exit_code() == 0) {  // --help or --version: CLI11 writes them
    std::ostringstream out;
    app.exit(error, out, out);
    text = out.str();
  } else {
    text = fmt::format("ep-bench: {}\nRun with --help for more information.\n", error.what());
    status = exit_usage;
  }
  if (start_mpi) return ep::tools::early_verdict(text, status);
  std::fputs(text.c_str(), status == 0 ? stdout : stderr);
  return status;
}

// "ep-bench bogus": CLI11 says only that a subcommand is required. The first
// word that is no option is the subcommand the user meant: name it and the
// subcommands there are. Empty when there is no such word.
std::string unknown_subcommand(const CLI::App& app,
                               const std::vector<ep::bench::Subcommand>& commands) {
  for (const std::string& word : app.remaining()) {
    if (word.empty() || word.front() == '-') continue;
    std::string names;
    for (const auto& command : commands)
      names += fmt::format("{}{}", names.empty() ? "" : ", ", command.app->get_name());
    return fmt::format("'{}' is not a subcommand (expected one of {})", word, names);
  }
  return {};
}

// Runs the chosen subcommand; its exceptions become exit statuses.
int invoke(const ep::bench::Subcommand& command, const ep::bench::Invocation& inv) {
  const std::string prefix = fmt::format("ep-bench {}", command.app->get_name());
  try {
    return command.run(inv);
  } catch (const ep::bench::UsageError& e) {  // every rank alike
    const auto say = [&] {
      fmt::print(stderr, "{}: {}\nRun with --help for more information.\n", prefix, e.what());
    };
    if (!command.needs_mpi) {
      say();
      return exit_usage;
    }
    return ep::tools::job_verdict(inv.world_rank, exit_usage, say);
  } catch (const std::exception& e) {  // reaches one rank only: say which
    if (command.needs_mpi)
      fmt::print(stderr, "{} (world rank {}): {}\n", prefix, inv.world_rank, e.what());
    else
      fmt::print(stderr, "{}: {}\n", prefix, e.what());
    return ep::bench::exit_failed;
  }
}

// A subcommand that only reads files (compare) runs in this process alone:
// without MPI, so also without mpirun.
int run_without_mpi(const ep::bench::Subcommand& command, int argc, char** argv) {
  ep::bench::Invocation inv;
  inv.command_line.assign(argv, argv + argc);
  return invoke(command, inv);
}

int run(const ep::bench::Subcommand& command, int argc, char** argv) {
  ep::bench::Invocation inv;
  inv.command_line.assign(argv, argv + argc);
  inv.thread_level_requested = command.thread_level();
  const int init_rc =
      ep::tools::init_mpi(&argc, &argv, inv.thread_level_requested, &inv.thread_level_provided);
  if (init_rc != MPI_SUCCESS) {
    fmt::print(stderr, "ep-bench: MPI_Init_thread failed\n");
    return ep::bench::exit_failed;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &inv.world_size);
  inv.world_rank = world_rank();
  const int status = invoke(command, inv);
  ep::tools::finalize_mpi();
  return status;
}

// --json '' and --csv '' were taken for no option at all: an empty path is
// refused by every subcommand that writes files.
void refuse_empty_output_paths(const std::vector<ep::bench::Subcommand>& commands) {
  const CLI::Validator named_file(
      [](std::string& path) { return ep::tools::output_name_problem(path); }, "");
  for (const auto& command : commands)
    for (const char* name : {"--json", "--csv"})
      if (CLI::Option* option = command.app->get_option_no_throw(name)) option->check(named_file);
}

// One line per subcommand: each file adds its own options and knows how to run.
std::vector<ep::bench::Subcommand> subcommands(CLI::App& app) {
  return {ep::bench::setup_p2p(app),       ep::bench::setup_split(app),
          ep::bench::setup_dup(app),       ep::bench::setup_intercomm(app),
          ep::bench::setup_merge(app),     ep::bench::setup_bcast(app),
          ep::bench::setup_allreduce(app), ep::bench::setup_barrier(app),
          ep::bench::setup_ibcast(app),    ep::bench::setup_iallreduce(app),
          ep::bench::setup_rma(app),       ep::bench::setup_compare(app),
          ep::bench::setup_summary(app)};
}

int ep_bench(int argc, char** argv) {
  CLI::App app{
      "ep-bench: benchmarks of libep endpoints, side by side with plain MPI processes and with "
      "threads sharing an MPI rank. Run under mpirun; one rank prints. compare and summary need no "
      "mpirun.",
      "ep-bench"};
  app.require_subcommand(1);
  app.footer(
      "\nExit status: 0 done; 1 wrong data (--validate), a failed case of a suite, or an output "
      "file (--json, --csv) that could not be written, said at the end with its path and the "
      "reason; 2 a command line, suite file or job that cannot run (nothing was measured). "
      "compare: 1 a regression, 2 unusable input, 3 nothing to compare (see compare --help).");
  app.set_version_flag("--version",
                       std::string("ep-bench ") + ep::version() + " (" + ep::git_revision() + ")");
  std::vector<ep::bench::Subcommand> commands = subcommands(app);
  // run parses each case of a suite with a fresh set of the others.
  commands.push_back(ep::bench::setup_run(app, subcommands));
  refuse_empty_output_paths(commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // The subcommand named, if parsing got that far, decides whether MPI starts.
    bool start_mpi = true;
    bool named = false;
    for (const auto& command : commands) {
      if (!command.app->parsed()) continue;
      start_mpi = command.needs_mpi;
      named = true;
    }
    if (const std::string unknown =
            named || e.get_exit_code() == 0 ? std::string() : unknown_subcommand(app, commands);
        !unknown.empty())
      return finish_parse(app, CLI::ParseError(unknown, CLI::ExitCodes::ExtrasError), start_mpi);
    return finish_parse(app, e, start_mpi);
  }
  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    return command.needs_mpi ? run(command, argc, argv) : run_without_mpi(command, argc, argv);
  }
  return exit_usage;  // unreachable: require_subcommand(1) rejects the rest
}

}  // namespace

int main(int argc, char** argv) {
  ep::tools::set_program_name("ep-bench");
  try {
    return ep_bench(argc, argv);
  } catch (const std::exception& e) {  // e.g. out of memory while setting up
    fmt::print(stderr, "ep-bench: {}\n", e.what());
    return ep::bench::exit_failed;
  }
}
