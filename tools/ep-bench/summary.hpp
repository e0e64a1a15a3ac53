// ep-bench summary: the statistics of every case of result files, as a
// table or as JSON (what scripts/plot.py draws), or with --ratios each
// libep case beside its plain-MPI twin (what scripts/bench.sh ends with). It
// reads files only: no MPI, no mpirun.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "subcommand.hpp"

namespace ep::bench {

struct SummaryOptions {
  std::vector<std::string> files;
  std::string json_path;  ///< "" a table on stdout; "-" JSON on stdout
  bool ratios = false;    ///< libep cases against their plain-MPI twins, over all files
};

/// Adds the "summary" subcommand to `parent`.
Subcommand setup_summary(CLI::App& parent);

/// Prints the summary; returns 0, or 2 for an unreadable file. Not
/// collective: MPI is not started.
int run_summary(const SummaryOptions& options);

}  // namespace ep::bench
