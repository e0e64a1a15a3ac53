// Suite files: which benchmark cases `ep-bench run` runs, one after another
// in the same MPI job. A suite is a JSON object:
//
//   {
//     "description": "what the suite is for",               (optional)
//     "defaults": {"repetitions": 5, "min-time": 0.005},      (optional)
//     "cases": [
//       {"name": "p2p-ep-inter", "subcommand": "p2p", "processes": 2,
//        "impl": "ep", "placement": "inter", "sizes": "1:4M:x4",
//        "tests": ["latency", "bandwidth"], "validate": true},
//       ...
//     ]
//   }
//
// A case's keys other than name, subcommand, processes and description are
// the subcommand's long options without the dashes, so they mean exactly what
// they mean on the command line: a string or a number is the option's value,
// an array is joined with commas, true gives a flag and false leaves it out.
// "defaults" holds options for every case whose subcommand has them; a case's
// own value wins. "processes" is the mpirun -np the case needs; without it
// the case runs on the processes there are (e.g. --impl mpi, or --ep N
// endpoints on each process).
//
// This file reads and checks the shape of a suite; run.cpp checks the
// options against the subcommands.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ep::bench {

/// A suite file that cannot be used: the message names the file, the JSON
/// pointer of what is wrong, and what was expected.
class SuiteError : public std::runtime_error {
 public:
  SuiteError(const std::string& file, const std::string& pointer, const std::string& what);
  /// A message that already names the file and where (a line).
  explicit SuiteError(const std::string& message);
};

/// One option of a case, as written: the pointer says where, for messages.
struct SuiteOption {
  std::string name;  ///< without dashes: "sizes"
  nlohmann::ordered_json value;
  std::string pointer;  ///< "/cases/2/sizes" or "/defaults/sizes"
  bool from_defaults = false;
};

struct SuiteCase {
  std::string name;
  std::string subcommand;
  std::optional<int> processes;  ///< nullopt: any number
  std::vector<SuiteOption> options;
  std::string pointer;  ///< "/cases/2"
};

struct Suite {
  std::string file;
  std::string description;
  std::vector<SuiteCase> cases;
  /// The defaults, for checking that each one is an option somewhere.
  std::vector<SuiteOption> defaults;
};

/// Reads `file` and checks its shape (not yet the options' names and values).
/// Throws SuiteError.
Suite read_suite(const std::string& file);

/// Options a case may not set: `ep-bench run` sets them for the whole suite.
bool is_suite_wide_option(const std::string& name);

}  // namespace ep::bench
