// How cases are paired and judged (the rules are in comparison.hpp).

#include "comparison.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace ep::results {

namespace {

using Json = nlohmann::ordered_json;

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

double ratio_of(double old_median, double new_median) {
  if (old_median > 0) return new_median / old_median;
  return new_median > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

Verdict judge(double ratio, double p, const CompareSettings& o) {
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
  const Json& a = c.old_side.file->context;
  const Json& b = c.new_side.file->context;
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

void pair_cases(Comparison& c, const CompareSettings& o) {
  std::map<std::string, const ResultCase*> new_by_key;
  for (const ResultCase& n : c.new_side.file->cases) new_by_key.emplace(n.key, &n);
  std::map<std::string, const ResultCase*> old_by_key;
  for (const ResultCase& old : c.old_side.file->cases) {
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
  for (const ResultCase& n : c.new_side.file->cases)
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

}  // namespace

Counts& Counts::operator+=(const Counts& other) {
  regressions += other.regressions;
  improvements += other.improvements;
  not_significant += other.not_significant;
  unchanged += other.unchanged;
  return *this;
}

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

Comparison compare_files(const ResultFile& old_file, const ResultFile& new_file,
                         const CompareSettings& o, bool force) {
  Comparison c;
  c.old_side = {&old_file, old_file.path};
  c.new_side = {&new_file, new_file.path};
  pair_cases(c, o);
  const std::vector<std::string> layout = layout_differences(old_file, new_file, c.cases);
  c.forced_layout = layout;
  if (!layout.empty() && !force) {
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

}  // namespace ep::results
