// ep-bench compare: the command line over the result toolkit's comparison
// (tools/results/comparison.hpp says how cases are judged).

#include "compare.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bench_options.hpp"
#include "cli_numbers.hpp"
#include "comparison.hpp"
#include "output_file.hpp"
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

/// Exit status when the files hold nothing to compare: a file without
/// benchmarks or without repetitions, or two files without a case in
/// common. A CI gate must not pass a benchmark job that measured nothing.
constexpr int exit_nothing_compared = 3;

class NothingToCompare : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file that compare cannot judge: no benchmarks, or aggregates only.
void require_repetitions(const ResultFile& file) {
  if (!file.cases.empty()) return;
  if (file.median_only.empty())
    throw NothingToCompare(
        fmt::format("{}: no benchmarks: the file holds no measurement", file.path));
  throw NothingToCompare(fmt::format(
      "{}: no repetitions, only aggregates of {} case{}: the U test needs the repetitions",
      file.path, file.median_only.size(), file.median_only.size() == 1 ? "" : "s"));
}

// Two sides without a case in common: nothing was compared, which must not
// read as "no regression".
void require_pairs(const std::vector<Comparison>& comparisons) {
  for (const Comparison& c : comparisons) {
    if (!c.cases.empty()) continue;
    throw NothingToCompare(fmt::format(
        "{} and {} have no case in common ({} only in the first, {} only in the second): "
        "nothing was compared",
        c.old_side.name, c.new_side.name, c.only_old.size(), c.only_new.size()));
  }
}

// A file compared with itself finds no change, whatever it holds: a CI gate
// handed one path twice (or a link to it) would always pass. Refused unless
// --allow-same-file; the same file is the same inode, links followed.
void refuse_same_file(const CompareOptions& o) {
  if (o.allow_same_file) return;
  for (std::size_t i = 1; i < o.files.size(); ++i) {
    std::error_code error;
    if (!std::filesystem::equivalent(o.files[0], o.files[i], error) || error) continue;
    throw UsageError(fmt::format(
        "'{}' and '{}' are the same file: compared with itself it always finds no change (pass "
        "--allow-same-file if that is what you want)",
        o.files[0], o.files[i]));
  }
}

// All comparisons first: a layout error must come before any output.
std::vector<Comparison> compare_files(const std::vector<ResultFile>& files,
                                      const CompareOptions& o) {
  std::vector<Comparison> comparisons;
  for (std::size_t i = 1; i < files.size(); ++i)
    comparisons.push_back(results::compare_files(files[0], files[i], o.settings, o.force));
  return comparisons;
}

results::CaseFilter parse_filter(const std::string& option, const std::string& text) {
  try {
    return results::CaseFilter::parse(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

// --baseline and --contender: each contender against the baseline, within
// the one file.
std::vector<Comparison> compare_within(const ResultFile& file, const CompareOptions& o) {
  const results::CaseFilter baseline = parse_filter("--baseline", o.baseline);
  // A label no case has changes no pairing: a typo, refused as the filters
  // refuse one.
  for (const std::string& label : o.ignore) {
    const auto has_it = [&](const results::ResultCase& c) {
      return results::label_text(c, label).has_value();
    };
    if (std::none_of(file.cases.begin(), file.cases.end(), has_it))
      throw UsageError(fmt::format("--ignore: no case of {} has a label '{}'", file.path, label));
  }
  std::vector<Comparison> comparisons;
  for (const std::string& text : o.contenders) {
    const results::CaseFilter contender = parse_filter("--contender", text);
    try {
      comparisons.push_back(
          results::compare_within(file, baseline, contender, o.ignore, o.settings));
    } catch (const std::invalid_argument& e) {
      throw ResultFileError(e.what());
    }
  }
  return comparisons;
}

bool within_one_file(const CompareOptions& o) {
  if (o.baseline.empty() && o.contenders.empty()) {
    if (!o.ignore.empty()) throw UsageError("--ignore needs --baseline and --contender");
    if (o.files.size() < 2)
      throw UsageError(
          "give at least two result files: the baseline, then one or more to compare; or one "
          "file with --baseline and --contender");
    return false;
  }
  if (o.baseline.empty() || o.contenders.empty())
    throw UsageError("--baseline and --contender go together: the cases of one file to compare");
  if (o.files.size() != 1)
    throw UsageError(
        fmt::format("--baseline and --contender compare cases within one file; {} files were given",
                    o.files.size()));
  return true;
}

int compare_all(const CompareOptions& o) {
  const bool within = within_one_file(o);
  if (!within) refuse_same_file(o);
  check_json_output(o.json_path, o.files);
  std::vector<ResultFile> files;
  for (const auto& path : o.files) files.push_back(load_result_file(path));
  for (const ResultFile& file : files) require_repetitions(file);
  const std::vector<Comparison> comparisons =
      within ? compare_within(files[0], o) : compare_files(files, o);
  require_pairs(comparisons);

  std::FILE* out = tools::writes_stdout(o.json_path) ? stderr : stdout;
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
    Json document = Json::object();
    if (within) document["file"] = o.files[0];
    document["baseline"] = within ? o.baseline : o.files[0];
    document["threshold_percent"] = o.settings.threshold;
    document["alpha"] = o.settings.alpha;
    document["time_unit"] = "us";
    document["comparisons"] = std::move(list);
    document["summary"] = std::move(summary);
    try {
      write_json(o.json_path, document);
    } catch (const std::runtime_error& e) {
      throw ResultFileError(e.what());
    }
  }
  return status;
}

constexpr const char* compare_help = R"(
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
process) are refused with status 2 unless --force.
A file given as the baseline and again (or through a link) as a later file
is refused with status 2 unless --allow-same-file.

Exit status, for CI gates:
  0  compared, no regression
  1  at least one regression
  2  a wrong command line (the baseline's file again, without
     --allow-same-file), or a file that cannot be used: unreadable, not
     a regular file, larger than 1 GiB, not JSON, a field of the wrong type or out of range, context.schema_version
     missing or not 1, layouts that differ without --force, filters that
     select nothing; or --json that cannot be written (path and reason),
     is empty or is one of the files compared
  3  nothing to compare: a file without benchmarks or with aggregates only
     (no repetitions), or two sides without a case in common

Within one file (--baseline and --contender): the cases one filter selects
against those the other selects, with the same statistics, e.g. endpoints
against MPI processes of one suite run:
  ep-bench compare standard.json --baseline impl=mpi --contender impl=ep
A filter is LABEL=VALUE[,LABEL=VALUE...] over the labels of the entries
(impl, placement, pairs, ranks, bytes, case, ..., family, name). Cases pair
when their family and labels agree without the filters' labels, the suite
case and the labels of placement (layout, processes, threads and endpoints
per process); --ignore leaves out more (e.g. ranks, to pair 4 endpoints on
2 processes with 2 MPI processes), labels that some case has. --contender may be repeated: each
against the baseline.
Runs without MPI: no mpirun needed.)";

}  // namespace

Subcommand setup_compare(CLI::App& parent) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* app = parent.add_subcommand(
      "compare", "Compare result files: the first (baseline) against each later one");
  app->add_option("files", options->files,
                  "Result files (--json of a benchmark): OLD NEW [MORE...], or one file with "
                  "--baseline and --contender")
      ->required();
  app->add_option("--threshold", options->settings.threshold,
                  "Percent change of the median time that counts as a change")
      ->check(tools::number_in(0.0, 1000.0))
      ->capture_default_str();
  app->add_option("--alpha", options->settings.alpha, "Significance level of the U test")
      ->check(tools::number_in(0.0, 1.0))
      ->capture_default_str();
  app->add_option("--json", options->json_path,
                  "Write the differences as JSON to FILE ('-': stdout)");
  app->add_flag("--force", options->force, "Compare files whose layouts differ");
  app->add_flag("--allow-same-file", options->allow_same_file,
                "Compare a file with itself (refused otherwise: it always finds no change)");
  app->add_option("--baseline", options->baseline,
                  "Within one file: the cases to compare against, e.g. impl=mpi")
      ->type_name("LABEL=VALUE[,...]");
  app->add_option("--contender", options->contenders,
                  "Within one file: the cases to compare, e.g. impl=ep (repeatable)")
      ->type_name("LABEL=VALUE[,...]")
      ->allow_extra_args(false);
  app->add_option("--ignore", options->ignore,
                  "Within one file: labels that may differ between paired cases")
      ->delimiter(',')
      ->type_name("LABEL[,...]")
      ->allow_extra_args(false);
  app->footer(compare_help);
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
  } catch (const NothingToCompare& e) {
    fmt::print(stderr, "ep-bench compare: {}\n", e.what());
    return exit_nothing_compared;
  } catch (const UsageError&) {
    throw;                             // the command line: said with a pointer to --help (main.cpp)
  } catch (const std::exception& e) {  // none is expected: still a verdict, never "regression"
    fmt::print(stderr, "ep-bench compare: cannot use the input: {}\n", e.what());
    return exit_usage;
  }
}

}  // namespace ep::bench
