// ep-inspect's command line: global options, then a chain of steps joined
// by the word `then`, or `read` and its files. Each step is a CLI11
// subcommand of its own parse, so that the same step may appear several
// times ("split ... then split ...") and each has its own --help.
#pragma once

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace ep::inspect {

/// Exit statuses: 0 all well; 1 --check found a problem, a file is not a
/// rank map, the files are dumps of more than one run, or libep failed; 2
/// the command line or scenario is wrong.
inline constexpr int exit_failed = 1;
inline constexpr int exit_usage = 2;

/// A command line or scenario that cannot run; the message says why.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Command {
  std::string format = "json";  // json | table
  bool check = false;
  std::string output;  // "" (no -o) or "-": stdout; written as tools::write_output does
  bool read = false;
  std::vector<std::string> read_paths;
  std::vector<Step> steps;  // starts with create (implicit: create --ep 2)
};

/// The result of parsing: a command, or what to print and the exit status
/// (help text with status 0, or an error with status 2).
struct Parsed {
  Command command;
  bool done = false;  // print `text` and exit with `status`
  int status = 0;
  std::string text;
};

/// Parses argv (without MPI: every rank reaches the same verdict).
Parsed parse_command_line(int argc, char** argv);

}  // namespace ep::inspect
