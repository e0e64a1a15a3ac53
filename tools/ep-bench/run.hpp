// ep-bench run SUITE.json: the cases of a suite file (suite_file.hpp), one
// after another in the same MPI job, into one result file.
//
// Each case's options are parsed by a fresh copy of its subcommand's CLI11
// parser, so a suite's options mean exactly what the command line means, and
// the case runs through the subcommand's own run function. The cases write
// into the suite's Session (session.hpp): one JSON whose context describes
// the job and lists every case (its equivalent command line, status, and
// what its own context adds), and whose entries carry the case's name.
//
// Everything is checked before anything runs: a bad suite file, an unknown
// option or a bad value exits with status 2 and a message naming the file and
// the JSON pointer. A case whose "processes" differs from the job's is
// skipped with a message saying which mpirun it needs (an error with
// --strict).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "subcommand.hpp"

namespace ep::bench {

/// Adds every subcommand of ep-bench to an app: main's registration, which
/// `run` calls again for each case to get parsers with fresh option values.
using SubcommandRegistry = std::function<std::vector<Subcommand>(CLI::App&)>;

struct RunOptions {
  std::string suite;
  std::string json_path;
  std::string csv_path;
  bool quiet = false;
  double watchdog = 120;
  double noise_threshold = 0;
  bool strict = false;
  bool dry_run = false;
  bool only_exact_np = false;
};

/// Adds the "run" subcommand to `parent`; `registry` provides the cases'
/// subcommands (those that need MPI; run itself is not one of them).
Subcommand setup_run(CLI::App& parent, SubcommandRegistry registry);

}  // namespace ep::bench
