#include "summary.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "case_summary.hpp"
#include "report.hpp"
#include "result_file.hpp"

namespace ep::bench {

namespace {

constexpr const char* summary_help = R"(
For each case of each file (a benchmark at one set of parameters): its
labels, how many repetitions the file has, and the median, mean, min, max,
p90 and standard deviation of real_time (us) and, where the case reports
them, of bytes_per_second and items_per_second. A case whose file holds only
aggregates is summarised by its median (from_aggregates). The JSON is what
scripts/plot.py plots:
  {"files": [{"path", "context", "time_unit": "us",
              "cases": [{"name", "family", "labels", "layout", "repetitions",
                         "from_aggregates", "real_time": {"median", ...},
                         "bytes_per_second": {...}}]}]}

--ratios pairs, over all the files, each libep case (impl ep) with its
plain-MPI twin (impl mpi): the case of the same family and labels (bytes,
ranks, pairs, op, phase, ...) but impl, placement, layout and suite case, so
that both ran as many ranks, though in different jobs (the files of one
suite's jobs, one per process count). It prints the medians and the ratio
ep time / mpi time, below 1 libep is faster, per family with the geometric
mean of its ratios; bandwidth and message rate cases time the same messages,
so 0.5 there is twice the rate. With --json:
  {"time_unit": "us", "pairs": [{"family", "ranks", "ep": {"name", "case",
   "median"}, "mpi": {...} or null, "ratio"}], "geomean": {family: ratio},
   "without_twin": n}
Runs without MPI: no mpirun needed.

Examples:
  ep-bench summary results/openmpi-4.1.4/standard.json
  ep-bench summary a.json b.json --json -
  ep-bench summary --ratios quick.json quick.np1.json quick.np4.json)";

void write_summary_json(const std::string& path, nlohmann::ordered_json document) {
  try {
    write_json(path, std::move(document));
  } catch (const std::runtime_error& e) {
    throw results::ResultFileError(e.what());
  }
}

// The twins of all files together: a suite's jobs write one file each.
int print_ratios(const SummaryOptions& o, const std::vector<results::ResultFile>& files) {
  std::vector<results::CaseSummary> cases;
  for (const auto& file : files)
    for (auto& summary : results::summarize_file(file)) cases.push_back(std::move(summary));
  const std::vector<results::TwinPair> pairs = results::pair_twins(cases);
  if (o.json_path.empty())
    results::print_twins(stdout, pairs);
  else
    write_summary_json(o.json_path, results::twins_json(pairs));
  return 0;
}

int summarize_files(const SummaryOptions& o) {
  check_json_output(o.json_path, o.files);
  std::vector<results::ResultFile> files;
  for (const auto& path : o.files) files.push_back(results::load_result_file(path));
  if (o.ratios) return print_ratios(o, files);
  if (o.json_path.empty()) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (i > 0) fmt::print("\n");
      results::print_summary(stdout, files[i]);
    }
    return 0;
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& file : files) list.push_back(results::summary_json(file));
  write_summary_json(o.json_path, {{"files", std::move(list)}});
  return 0;
}

}  // namespace

Subcommand setup_summary(CLI::App& parent) {
  auto options = std::make_shared<SummaryOptions>();
  CLI::App* app = parent.add_subcommand(
      "summary",
      "Statistics of every case of result files, as a table or JSON (for plots), or "
      "libep against plain MPI (--ratios)");
  app->add_option("files", options->files, "Result files (--json of a benchmark)")->required();
  app->add_option("--json", options->json_path,
                  "Write JSON to FILE ('-': stdout) instead of tables")
      ->type_name("FILE");
  app->add_flag("--ratios", options->ratios,
                "Each libep case beside its plain-MPI twin with as many ranks, over all files, "
                "and the ratio ep time / mpi time");
  app->footer(summary_help);
  Subcommand command{app, [] { return 0; },
                     [options](const Invocation&) { return run_summary(*options); }};
  command.needs_mpi = false;
  return command;
}

int run_summary(const SummaryOptions& options) {
  try {
    return summarize_files(options);
  } catch (const results::ResultFileError& e) {
    fmt::print(stderr, "ep-bench summary: {}\n", e.what());
    return exit_usage;
  } catch (const UsageError&) {
    throw;                             // the command line: said with a pointer to --help (main.cpp)
  } catch (const std::exception& e) {  // none is expected: the input is to blame
    fmt::print(stderr, "ep-bench summary: cannot use the input: {}\n", e.what());
    return exit_usage;
  }
}

}  // namespace ep::bench
