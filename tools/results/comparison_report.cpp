// The report of a comparison: the table and verdict `ep-bench compare`
// prints, and the same as JSON.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "comparison.hpp"

namespace ep::results {

namespace {

using Json = nlohmann::ordered_json;

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

std::string display_name(const ResultCase& c) {
  // Cases of a suite file carry the suite case's name; others need nothing more.
  const Json* suite_case = member(c.labels, "case");
  if (suite_case && suite_case->is_string())
    return fmt::format("{} [{}]", c.name, suite_case->get<std::string>());
  return c.name;
}

// Within one file the merged name says both sides; between files the old
// side's name, with its suite case.
std::string display_name(const Comparison& c, const CaseDiff& d) {
  return c.within_file ? d.name : display_name(*d.old_case);
}

void print_table(std::FILE* out, const Comparison& c) {
  std::size_t width = 4;
  for (const CaseDiff& d : c.cases) width = std::max(width, display_name(c, d).size());
  for (const FamilyMean& m : c.means) width = std::max(width, m.family.size() + 8);
  const auto row = [&](const std::string& name, const std::string& a, const std::string& b,
                       const std::string& change, const std::string& p, const std::string& n,
                       const std::string& mark) {
    std::string line = fmt::format("{:<{}}  {:>10}  {:>10}  {:>8}  {:>7}  {:>8}  {}", name, width,
                                   a, b, change, p, n, mark);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print(out, "{}\n", line);
  };
  if (c.within_file)
    row("case", "baseline", "contender", "change", "p", "reps", "");
  else
    row("case", "old us", "new us", "change", "p", "reps", "");
  std::string family;
  const auto print_mean = [&](const std::string& f) {
    for (const FamilyMean& m : c.means)
      if (m.family == f)
        row(f + " geomean", "", "", percent(m.ratio), "", plural(m.cases, "case", "cases"), "");
  };
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    const CaseDiff& d = c.cases[i];
    row(display_name(c, d), format_number(d.old_time.median), format_number(d.new_time.median),
        percent(d.ratio), p_text(d.test.p),
        fmt::format("{}/{}", d.old_case->times.size(), d.new_case->times.size()), marker(d));
    const bool last_of_family =
        i + 1 == c.cases.size() || c.cases[i + 1].old_case->family != d.old_case->family;
    if (last_of_family) print_mean(d.old_case->family);
  }
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

}  // namespace

std::string verdict_line(const Comparison& c, const CompareSettings& o) {
  const Counts& n = c.counts;
  if (c.cases.empty())
    return c.within_file ? "nothing to compare: no case of the contender pairs with one of the "
                           "baseline"
                         : "nothing to compare: no case is in both files";
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

Json counts_json(const Counts& n) {
  return {{"regressions", n.regressions},
          {"improvements", n.improvements},
          {"not_significant", n.not_significant},
          {"unchanged", n.unchanged}};
}

void print_comparison(std::FILE* out, const Comparison& c, const CompareSettings& o, bool several) {
  if (c.within_file) {
    std::string without;
    for (const auto& label : c.paired_without) without += (without.empty() ? "" : ", ") + label;
    fmt::print(out,
               "ep-bench compare: in {}, {} (contender) against {} (baseline); median "
               "real_time in us, lower is better\n"
               "cases paired by family and labels, leaving out {}\n",
               c.old_side.file->path, c.new_side.name, c.old_side.name, without);
  } else {
    fmt::print(out,
               "ep-bench compare: {} (old) against {} (new); median real_time, lower is "
               "better\n",
               c.old_side.name, c.new_side.name);
  }
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
      fmt::print(out, "regression: {} {} (p {})\n", display_name(c, d), percent(d.ratio),
                 d.test.p < 0.001 ? "< 0.001" : fmt::format("= {:.3f}", d.test.p));
  if (!c.forced_layout.empty())
    fmt::print(out,
               "warning: the layouts differ (see context differences); compared anyway "
               "because of --force\n");
  const char* old_role = c.within_file ? "baseline" : "OLD";
  const char* new_role = c.within_file ? "contender" : "NEW";
  for (const ResultCase* only : c.only_old)
    fmt::print(out, "only in {} {}: {}\n", old_role, c.old_side.name, display_name(*only));
  for (const ResultCase* only : c.only_new)
    fmt::print(out, "only in {} {}: {}\n", new_role, c.new_side.name, display_name(*only));
  if (c.would_pair > 0)
    fmt::print(out, "note: {} more {} would pair if {} may differ (--ignore {})\n", c.would_pair,
               c.would_pair == 1 ? "case" : "cases", c.blocking_label, c.blocking_label);
  if (c.fewest_repetitions > 0 && c.fewest_repetitions < min_meaningful_repetitions)
    fmt::print(out,
               "warning: too few repetitions (n={}): U test not meaningful; rerun with "
               "--repetitions {} or more\n",
               c.fewest_repetitions, min_meaningful_repetitions);
  fmt::print(out, "verdict{}: {}\n",
             several ? fmt::format(" for {}", c.new_side.name) : std::string(), verdict_line(c, o));
}

Json comparison_json(const Comparison& c, const CompareSettings& o) {
  Json cases = Json::array();
  for (const CaseDiff& d : c.cases) {
    cases.push_back(
        {{"name", d.name},
         {"family", d.old_case->family},
         {"labels", d.labels},
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
    if (c.within_file) {
      cases.back()["old_name"] = d.old_case->name;
      cases.back()["new_name"] = d.new_case->name;
    }
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
  if (c.within_file)
    return {{"old", c.old_side.name},
            {"new", c.new_side.name},
            {"paired_without", c.paired_without},
            {"context_differences", c.context_differences},
            {"cases", std::move(cases)},
            {"geomeans", std::move(means)},
            {"only_in_old", names(c.only_old)},
            {"only_in_new", names(c.only_new)},
            {"summary", std::move(summary)}};
  return {{"old", c.old_side.name},
          {"new", c.new_side.name},
          {"context_differences", c.context_differences},
          {"cases", std::move(cases)},
          {"geomeans", std::move(means)},
          {"only_in_old", names(c.only_old)},
          {"only_in_new", names(c.only_new)},
          {"summary", std::move(summary)}};
}

}  // namespace ep::results
