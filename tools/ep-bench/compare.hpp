// ep-bench compare: differences between result files, case by case, with the
// Mann-Whitney U test over the repetitions deciding what is noise
// (tools/results/comparison.hpp). It reads files only: no MPI, no mpirun.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "comparison.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct CompareOptions {
  std::vector<std::string> files;       ///< the baseline first; each later file is compared to it
  results::CompareSettings settings;    ///< threshold and significance level
  std::string json_path;                ///< where to write the diff ("-": stdout)
  bool force = false;                   ///< compare files whose layouts differ
  bool allow_same_file = false;         ///< compare a file with itself
  std::string baseline;                 ///< within one file: the filter of the baseline
  std::vector<std::string> contenders;  ///< within one file: each compared to the baseline
  std::vector<std::string> ignore;      ///< within one file: labels left out of pairing
};

/// Adds the "compare" subcommand to `parent`.
Subcommand setup_compare(CLI::App& parent);

/// Compares the files (or, with a baseline and contenders, cases within one
/// file) and prints the differences. Returns 0, 1 when a case got
/// significantly slower beyond the threshold, 2 for unreadable files (or of
/// another schema_version), layouts that differ without --force, or filters
/// that select nothing, 3 when there is nothing to compare (a file without
/// repetitions, sides without a case in common).
/// Not collective: MPI is not started.
int run_compare(const CompareOptions& options);

}  // namespace ep::bench
