// ep-bench compare. How it decides, per case (a benchmark at one set of
// parameters, found in both files):
//   - it compares the median of the repetitions' real_time, lower being
//     better. Cases that also report bytes_per_second or items_per_second
//     are judged on time too: the rates are derived from the same time, so
//     they would only repeat the verdict inverted;
//   - change = new median / old median - 1;
//   - p = the two-sided Mann-Whitney U test over the repetitions of both
//     files (mann_whitney.hpp), which asks whether the difference could be
//     noise, without assuming the times are normally distributed;
//   - a regression is a change above +threshold with p < alpha, an
//     improvement one below -threshold with p < alpha; a change beyond the
//     threshold with p >= alpha is reported as not significant, and does not
//     fail the comparison. With fewer than 5 repetitions on a side the test
//     can hardly ever reach significance: compare says so.
// A geometric mean of the new/old ratios summarises each family.

#include "compare.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "mann_whitney.hpp"
#include "report.hpp"
#include "result_file.hpp"
#include "stats.hpp"

namespace ep::bench {

namespace {

using Json = nlohmann::ordered_json;

/// Fewer repetitions than this on a side: the U test means little.
constexpr std::size_t min_meaningful_repetitions = 5;

/// Context fields that often explain a difference; listed when they differ.
constexpr const char* provenance_fields[] = {"impl",
                                             "mpi_library_version",
                                             "mpi_version",
                                             "libep_version",
                                             "libep_git_revision",
                                             "compiler",
                                             "build_type",
                                             "host_name",
                                             "num_cpus",
                                             "thread_level_provided",
                                             "oversubscribed",
                                             "repetitions",
                                             "date"};

// --- comparing ---------------------------------------------------------------

enum class Verdict { unchanged, regression, improvement, not_significant };

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::regression:
      return "regression";
    case Verdict::improvement:
      return "improvement";
    case Verdict::not_significant:
      return "not significant";
    case Verdict::unchanged:
      break;
  }
  return "unchanged";
}

struct CaseDiff {
  const ResultCase* old_case = nullptr;
  const ResultCase* new_case = nullptr;
  Summary old_time;
  Summary new_time;
  double ratio = 1;  ///< new median / old median
  MannWhitney test;
  Verdict verdict = Verdict::unchanged;
};

struct FamilyMean {
  std::string family;
  double ratio = 1;  ///< geometric mean of the cases' ratios
  int cases = 0;
};

struct Counts {
  int regressions = 0;
  int improvements = 0;
  int not_significant = 0;
  int unchanged = 0;
};

struct Comparison {
  const ResultFile* old_file = nullptr;
  const ResultFile* new_file = nullptr;
  std::vector<std::pair<std::string, std::string>> context_lines;  // field, "old -> new"
  Json context_differences = Json::array();
  std::vector<CaseDiff> cases;
  std::vector<FamilyMean> means;
  std::vector<const ResultCase*> only_old;
  std::vector<const ResultCase*> only_new;
  std::size_t fewest_repetitions = 0;      ///< on either side of any paired case
  std::vector<std::string> forced_layout;  ///< layout differences that --force let pass
  Counts counts;
};

double ratio_of(double old_median, double new_median) {
  if (old_median > 0) return new_median / old_median;
  return new_median > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

Verdict judge(double ratio, double p, const CompareOptions& o) {
  const double limit = o.threshold / 100;
  const double change = ratio - 1;
  if (std::fabs(change) <= limit) return Verdict::unchanged;
  if (p >= o.alpha) return Verdict::not_significant;
  return change > 0 ? Verdict::regression : Verdict::improvement;
}

std::string show(const Json* value) {
  if (value == nullptr) return "(absent)";
  if (value->is_string()) {
    std::string text = value->get<std::string>();
    if (text.size() > 70) text = text.substr(0, 67) + "...";
    return text;
  }
  return value->dump();
}

const Json* find(const Json& object, const std::string& key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

void note_difference(Comparison& c, const std::string& field, const Json* old_value,
                     const Json* new_value) {
  if ((old_value == nullptr && new_value == nullptr) ||
      (old_value && new_value && *old_value == *new_value))
    return;
  c.context_lines.emplace_back(field, fmt::format("{} -> {}", show(old_value), show(new_value)));
  c.context_differences.push_back({{"field", field},
                                   {"old", old_value ? *old_value : Json()},
                                   {"new", new_value ? *new_value : Json()}});
}

// What differs between the contexts and usually explains a change.
void diff_contexts(Comparison& c) {
  const Json& a = c.old_file->context;
  const Json& b = c.new_file->context;
  for (const char* field : layout_fields) note_difference(c, field, find(a, field), find(b, field));
  for (const char* field : provenance_fields)
    note_difference(c, field, find(a, field), find(b, field));
  const Json empty = Json::object();
  const Json* env_a = find(a, "environment");
  const Json* env_b = find(b, "environment");
  const Json& ea = env_a && env_a->is_object() ? *env_a : empty;
  const Json& eb = env_b && env_b->is_object() ? *env_b : empty;
  std::vector<std::string> names;
  for (const auto& [k, v] : ea.items()) names.push_back(k);
  for (const auto& [k, v] : eb.items())
    if (!ea.contains(k)) names.push_back(k);
  for (const auto& name : names)
    note_difference(c, "environment." + name, find(ea, name), find(eb, name));
}

// Layout fields whose values differ: in the contexts, or in the entries of a
// case found in both files. Empty when the layouts agree.
std::vector<std::string> layout_differences(const ResultFile& a, const ResultFile& b,
                                            const std::vector<CaseDiff>& cases) {
  std::vector<std::string> lines;
  const auto check = [&](const std::string& where, const Json& x, const Json& y) {
    for (const char* field : layout_fields) {
      const Json* u = find(x, field);
      const Json* v = find(y, field);
      if (u && v && *u == *v) continue;
      if (!u && !v) continue;
      lines.push_back(
          fmt::format("{}{}: {} in {}, {} in {}", where, field, show(u), a.path, show(v), b.path));
    }
  };
  check("context.", a.context, b.context);
  for (const CaseDiff& d : cases) {
    if (lines.size() >= 8) break;  // enough to see the point
    check(fmt::format("case {}: ", d.old_case->name), d.old_case->layout, d.new_case->layout);
  }
  return lines;
}

void pair_cases(Comparison& c, const CompareOptions& o) {
  std::map<std::string, const ResultCase*> new_by_key;
  for (const ResultCase& n : c.new_file->cases) new_by_key.emplace(n.key, &n);
  std::map<std::string, const ResultCase*> old_by_key;
  for (const ResultCase& old : c.old_file->cases) {
    old_by_key.emplace(old.key, &old);
    const auto it = new_by_key.find(old.key);
    if (it == new_by_key.end()) {
      c.only_old.push_back(&old);
      continue;
    }
    CaseDiff d;
    d.old_case = &old;
    d.new_case = it->second;
    d.old_time = summarize(old.times);
    d.new_time = summarize(it->second->times);
    d.ratio = ratio_of(d.old_time.median, d.new_time.median);
    d.test = mann_whitney_u(old.times, it->second->times);
    d.verdict = judge(d.ratio, d.test.p, o);
    c.cases.push_back(d);
  }
  for (const ResultCase& n : c.new_file->cases)
    if (!old_by_key.contains(n.key)) c.only_new.push_back(&n);
  // Each family's cases together, in the order families first appear, so
  // that each gets one geometric-mean row.
  std::map<std::string, std::size_t> first_seen;
  for (const CaseDiff& d : c.cases) first_seen.try_emplace(d.old_case->family, first_seen.size());
  std::stable_sort(c.cases.begin(), c.cases.end(), [&](const CaseDiff& a, const CaseDiff& b) {
    return first_seen[a.old_case->family] < first_seen[b.old_case->family];
  });
}

void summarise(Comparison& c) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<double, int>> logs;  // family -> sum of log ratios, count
  for (const CaseDiff& d : c.cases) {
    const std::size_t fewest = std::min(d.old_case->times.size(), d.new_case->times.size());
    c.fewest_repetitions =
        c.fewest_repetitions == 0 ? fewest : std::min(c.fewest_repetitions, fewest);
    switch (d.verdict) {
      case Verdict::regression:
        ++c.counts.regressions;
        break;
      case Verdict::improvement:
        ++c.counts.improvements;
        break;
      case Verdict::not_significant:
        ++c.counts.not_significant;
        break;
      case Verdict::unchanged:
        ++c.counts.unchanged;
        break;
    }
    if (!(d.ratio > 0) || !std::isfinite(d.ratio)) continue;  // a zero time has no log
    auto [it, added] = logs.try_emplace(d.old_case->family, 0.0, 0);
    if (added) order.push_back(d.old_case->family);
    it->second.first += std::log(d.ratio);
    ++it->second.second;
  }
  for (const auto& family : order) {
    const auto& [sum, n] = logs[family];
    c.means.push_back({family, std::exp(sum / n), n});
  }
}

Comparison compare(const ResultFile& old_file, const ResultFile& new_file,
                   const CompareOptions& o) {
  Comparison c;
  c.old_file = &old_file;
  c.new_file = &new_file;
  pair_cases(c, o);
  const std::vector<std::string> layout = layout_differences(old_file, new_file, c.cases);
  c.forced_layout = layout;
  if (!layout.empty() && !o.force) {
    std::string message =
        fmt::format("{} and {} ran different layouts:\n", old_file.path, new_file.path);
    for (const auto& line : layout) message += "  " + line + "\n";
    message += "Times of different layouts are not comparable; pass --force to compare anyway.";
    throw ResultFileError(message);
  }
  diff_contexts(c);
  summarise(c);
  return c;
}

// --- reporting ---------------------------------------------------------------

std::string percent(double ratio) {
  if (!std::isfinite(ratio)) return "+inf%";
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string p_text(double p) { return p < 0.001 ? "<0.001" : fmt::format("{:.3f}", p); }

const char* marker(const CaseDiff& d) {
  switch (d.verdict) {
    case Verdict::regression:
      return "slower";
    case Verdict::improvement:
      return "faster";
    case Verdict::not_significant:
      return d.ratio > 1 ? "slower?" : "faster?";
    case Verdict::unchanged:
      break;
  }
  return "";
}

std::string plural(int n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string verdict_line(const Comparison& c, const CompareOptions& o) {
  const Counts& n = c.counts;
  if (c.cases.empty()) return "nothing to compare: no case is in both files";
  const std::string beyond = fmt::format("beyond {:g}%", o.threshold);
  if (n.regressions + n.improvements + n.not_significant == 0)
    return fmt::format("no change ({} within {:g}% or not significant at p<{:g})",
                       plural(n.unchanged, "case", "cases"), o.threshold, o.alpha);
  std::string line = fmt::format("{} {} (significant at p<{:g}), {}",
                                 plural(n.regressions, "regression", "regressions"), beyond,
                                 o.alpha, plural(n.improvements, "improvement", "improvements"));
  if (n.not_significant > 0)
    line += fmt::format(", {} {} but not significant", n.not_significant, beyond);
  return line + fmt::format(", {} unchanged", n.unchanged);
}

std::string display_name(const ResultCase& c) {
  // Cases of a suite file carry the suite case's name; others need nothing more.
  const Json* suite_case = find(c.labels, "case");
  if (suite_case && suite_case->is_string())
    return fmt::format("{} [{}]", c.name, suite_case->get<std::string>());
  return c.name;
}

void print_table(std::FILE* out, const Comparison& c) {
  std::size_t width = 4;
  for (const CaseDiff& d : c.cases) width = std::max(width, display_name(*d.old_case).size());
  for (const FamilyMean& m : c.means) width = std::max(width, m.family.size() + 8);
  const auto row = [&](const std::string& name, const std::string& a, const std::string& b,
                       const std::string& change, const std::string& p, const std::string& n,
                       const std::string& mark) {
    std::string line = fmt::format("{:<{}}  {:>10}  {:>10}  {:>8}  {:>7}  {:>8}  {}", name, width,
                                   a, b, change, p, n, mark);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print(out, "{}\n", line);
  };
  row("case", "old us", "new us", "change", "p", "reps", "");
  std::string family;
  const auto print_mean = [&](const std::string& f) {
    for (const FamilyMean& m : c.means)
      if (m.family == f)
        row(f + " geomean", "", "", percent(m.ratio), "", plural(m.cases, "case", "cases"), "");
  };
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    const CaseDiff& d = c.cases[i];
    row(display_name(*d.old_case), format_number(d.old_time.median),
        format_number(d.new_time.median), percent(d.ratio), p_text(d.test.p),
        fmt::format("{}/{}", d.old_case->times.size(), d.new_case->times.size()), marker(d));
    const bool last_of_family =
        i + 1 == c.cases.size() || c.cases[i + 1].old_case->family != d.old_case->family;
    if (last_of_family) print_mean(d.old_case->family);
  }
}

void print_comparison(std::FILE* out, const Comparison& c, const CompareOptions& o, bool several) {
  fmt::print(out,
             "ep-bench compare: {} (old) against {} (new); median real_time, lower is "
             "better\n",
             c.old_file->path, c.new_file->path);
  if (!c.context_lines.empty()) {
    fmt::print(out, "context differences (old -> new):\n");
    for (const auto& [field, text] : c.context_lines) fmt::print(out, "  {}: {}\n", field, text);
  }
  fmt::print(out, "\n");
  if (!c.cases.empty()) {
    print_table(out, c);
    fmt::print(out,
               "p: two-sided Mann-Whitney U test over the repetitions; slower/faster: "
               "beyond {0:g}% with p<{1:g};\n'?': beyond {0:g}% but not significant\n",
               o.threshold, o.alpha);
  }
  for (const CaseDiff& d : c.cases)
    if (d.verdict == Verdict::regression)
      fmt::print(out, "regression: {} {} (p {})\n", display_name(*d.old_case), percent(d.ratio),
                 d.test.p < 0.001 ? "< 0.001" : fmt::format("= {:.3f}", d.test.p));
  if (!c.forced_layout.empty())
    fmt::print(out,
               "warning: the layouts differ (see context differences); compared anyway "
               "because of --force\n");
  for (const ResultCase* only : c.only_old)
    fmt::print(out, "only in OLD {}: {}\n", c.old_file->path, display_name(*only));
  for (const ResultCase* only : c.only_new)
    fmt::print(out, "only in NEW {}: {}\n", c.new_file->path, display_name(*only));
  if (c.fewest_repetitions > 0 && c.fewest_repetitions < min_meaningful_repetitions)
    fmt::print(out,
               "warning: too few repetitions (n={}): U test not meaningful; rerun with "
               "--repetitions {} or more\n",
               c.fewest_repetitions, min_meaningful_repetitions);
  fmt::print(out, "verdict{}: {}\n",
             several ? fmt::format(" for {}", c.new_file->path) : std::string(),
             verdict_line(c, o));
}

Json stats_json(const ResultCase& c, const Summary& s) {
  return {{"repetitions", c.times.size()},
          {"median", s.median},
          {"mean", s.mean},
          {"min", s.min},
          {"max", s.max},
          {"stddev", s.stddev},
          {"real_time", c.times}};
}

Json finite_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(); }

Json counts_json(const Counts& n) {
  return {{"regressions", n.regressions},
          {"improvements", n.improvements},
          {"not_significant", n.not_significant},
          {"unchanged", n.unchanged}};
}

Json comparison_json(const Comparison& c, const CompareOptions& o) {
  Json cases = Json::array();
  for (const CaseDiff& d : c.cases) {
    cases.push_back(
        {{"name", d.old_case->name},
         {"family", d.old_case->family},
         {"labels", d.old_case->labels},
         {"old", stats_json(*d.old_case, d.old_time)},
         {"new", stats_json(*d.new_case, d.new_time)},
         {"ratio", finite_or_null(d.ratio)},
         {"change", finite_or_null(d.ratio - 1)},
         {"u", d.test.u},
         {"p_value", d.test.p},
         {"p_exact", d.test.exact},
         {"too_few_repetitions", std::min(d.old_case->times.size(), d.new_case->times.size()) <
                                     min_meaningful_repetitions},
         {"verdict", verdict_name(d.verdict)}});
  }
  Json means = Json::array();
  for (const FamilyMean& m : c.means)
    means.push_back(
        {{"family", m.family}, {"ratio", m.ratio}, {"change", m.ratio - 1}, {"cases", m.cases}});
  const auto names = [](const std::vector<const ResultCase*>& list) {
    Json out = Json::array();
    for (const ResultCase* x : list) out.push_back(x->name);
    return out;
  };
  Json summary = counts_json(c.counts);
  summary["verdict"] = verdict_line(c, o);
  return {{"old", c.old_file->path},
          {"new", c.new_file->path},
          {"context_differences", c.context_differences},
          {"cases", std::move(cases)},
          {"geomeans", std::move(means)},
          {"only_in_old", names(c.only_old)},
          {"only_in_new", names(c.only_new)},
          {"summary", std::move(summary)}};
}

int compare_files(const CompareOptions& o) {
  if (o.files.size() < 2)
    throw UsageError("give at least two result files: the baseline, then one or more to compare");
  std::vector<ResultFile> files;
  for (const auto& path : o.files) files.push_back(load_result_file(path));
  std::vector<Comparison> comparisons;  // all first: a layout error must come before any output
  for (std::size_t i = 1; i < files.size(); ++i)
    comparisons.push_back(compare(files[0], files[i], o));

  std::FILE* out = o.json_path == "-" ? stderr : stdout;
  Counts total;
  Json list = Json::array();
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (i > 0) fmt::print(out, "\n");
    print_comparison(out, comparisons[i], o, comparisons.size() > 1);
    const Counts& n = comparisons[i].counts;
    total.regressions += n.regressions;
    total.improvements += n.improvements;
    total.not_significant += n.not_significant;
    total.unchanged += n.unchanged;
    list.push_back(comparison_json(comparisons[i], o));
  }
  std::fflush(out);
  const int status = total.regressions > 0 ? exit_failed : 0;
  if (!o.json_path.empty()) {
    Json summary = counts_json(total);
    summary["exit_status"] = status;
    try {
      write_json(o.json_path, {{"baseline", o.files[0]},
                               {"threshold_percent", o.threshold},
                               {"alpha", o.alpha},
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
  app->add_option("--threshold", options->threshold,
                  "Percent change of the median time that counts as a change")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  app->add_option("--alpha", options->alpha, "Significance level of the U test")
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
    return compare_files(options);
  } catch (const ResultFileError& e) {
    fmt::print(stderr, "ep-bench compare: {}\n", e.what());
    return exit_usage;
  }
}

}  // namespace ep::bench
