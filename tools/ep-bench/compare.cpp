// ep-bench compare: the command line over the result toolkit's comparison
// (tools/results/comparison.hpp says how cases are judged).

#include "compare.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "comparison.hpp"
#include "report.hpp"
#include "result_file.hpp"

namespace ep::bench {

namespace {

using Json = nlohmann::ordered_json;
using results::Comparison;
using results::Counts;
using results::load_result_file;
using results::ResultFile;
using results::ResultFileError;

int compare_all(const CompareOptions& o) {
  if (o.files.size() < 2)
    throw UsageError("give at least two result files: the baseline, then one or more to compare");
  std::vector<ResultFile> files;
  for (const auto& path : o.files) files.push_back(load_result_file(path));
  std::vector<Comparison> comparisons;  // all first: a layout error must come before any output
  for (std::size_t i = 1; i < files.size(); ++i)
    comparisons.push_back(compare_files(files[0], files[i], o.settings, o.force));

  std::FILE* out = o.json_path == "-" ? stderr : stdout;
  Counts total;
  Json list = Json::array();
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (i > 0) fmt::print(out, "\n");
    print_comparison(out, comparisons[i], o.settings, comparisons.size() > 1);
    total += comparisons[i].counts;
    list.push_back(comparison_json(comparisons[i], o.settings));
  }
  std::fflush(out);
  const int status = total.regressions > 0 ? exit_failed : 0;
  if (!o.json_path.empty()) {
    Json summary = counts_json(total);
    summary["exit_status"] = status;
    try {
      write_json(o.json_path, {{"baseline", o.files[0]},
                               {"threshold_percent", o.settings.threshold},
                               {"alpha", o.settings.alpha},
                               {"time_unit", "us"},
                               {"comparisons", std::move(list)},
                               {"summary", std::move(summary)}});
    } catch (const std::runtime_error& e) {
      throw ResultFileError(e.what());
    }
  }
  return status;
}

constexpr const char* help_footer = R"(
Cases are paired by name and parameters. For each: the median real_time of
its repetitions in both files, the relative change, and the p-value of the
two-sided Mann-Whitney U test over the repetitions: exact when the case has
at most 50 repetitions in both files together and no two times are equal,
otherwise the normal approximation with tie and continuity corrections.
Time decides, lower being better, also for cases that report a bandwidth or
a message rate. A regression is slower by more than --threshold with
p < --alpha; any regression makes the exit status 1. Fewer than 5
repetitions on a side can hardly reach significance: compare warns.
Files whose layouts differ (processes, ranks, endpoints or threads per
process) are refused with status 2 unless --force; so are unreadable files.
Runs without MPI: no mpirun needed.)";

}  // namespace

Subcommand setup_compare(CLI::App& parent) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* app = parent.add_subcommand(
      "compare", "Compare result files: the first (baseline) against each later one");
  app->add_option("files", options->files,
                  "Result files (--json of a benchmark): OLD NEW [MORE...]")
      ->required();
  app->add_option("--threshold", options->settings.threshold,
                  "Percent change of the median time that counts as a change")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  app->add_option("--alpha", options->settings.alpha, "Significance level of the U test")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app->add_option("--json", options->json_path,
                  "Write the differences as JSON to FILE ('-': stdout)");
  app->add_flag("--force", options->force, "Compare files whose layouts differ");
  app->footer(help_footer);
  Subcommand command{app, [] { return 0; },
                     [options](const Invocation&) { return run_compare(*options); }};
  command.needs_mpi = false;
  return command;
}

int run_compare(const CompareOptions& options) {
  try {
    return compare_all(options);
  } catch (const ResultFileError& e) {
    fmt::print(stderr, "ep-bench compare: {}\n", e.what());
    return exit_usage;
  }
}

}  // namespace ep::bench
