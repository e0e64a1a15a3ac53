// How cases are paired and judged (the rules are in comparison.hpp).

#include "comparison.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include "json_output.hpp"

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
  for (const char* field : layout_fields)
    note_difference(c, field, member(a, field), member(b, field));
  for (const char* field : provenance_fields)
    note_difference(c, field, member(a, field), member(b, field));
  const Json empty = Json::object();
  const Json* env_a = member(a, "environment");
  const Json* env_b = member(b, "environment");
  const Json& ea = env_a && env_a->is_object() ? *env_a : empty;
  const Json& eb = env_b && env_b->is_object() ? *env_b : empty;
  std::vector<std::string> names;
  for (const auto& [k, v] : ea.items()) names.push_back(k);
  for (const auto& [k, v] : eb.items())
    if (!ea.contains(k)) names.push_back(k);
  for (const auto& name : names)
    note_difference(c, "environment." + name, member(ea, name), member(eb, name));
}

// Layout fields whose values differ: in the contexts, or in the entries of a
// case found in both files. Empty when the layouts agree.
std::vector<std::string> layout_differences(const ResultFile& a, const ResultFile& b,
                                            const std::vector<CaseDiff>& cases) {
  std::vector<std::string> lines;
  const auto check = [&](const std::string& where, const Json& x, const Json& y) {
    for (const char* field : layout_fields) {
      const Json* u = member(x, field);
      const Json* v = member(y, field);
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

CaseDiff judge_pair(const ResultCase& old_case, const ResultCase& new_case,
                    const CompareSettings& o) {
  CaseDiff d;
  d.old_case = &old_case;
  d.new_case = &new_case;
  d.name = old_case.name;
  d.labels = old_case.labels;
  d.old_time = summarize(old_case.times);
  d.new_time = summarize(new_case.times);
  d.ratio = ratio_of(d.old_time.median, d.new_time.median);
  d.test = mann_whitney_u(old_case.times, new_case.times);
  d.verdict = judge(d.ratio, d.test.p, o);
  return d;
}

using Keyed = std::vector<std::pair<std::string, const ResultCase*>>;

// Pairs the cases of both sides that have the same key; the others are
// listed as found on one side only.
void pair_cases(Comparison& c, const Keyed& old_cases, const Keyed& new_cases,
                const CompareSettings& o) {
  std::map<std::string, const ResultCase*> new_by_key(new_cases.begin(), new_cases.end());
  std::map<std::string, const ResultCase*> old_by_key;
  for (const auto& [key, old] : old_cases) {
    old_by_key.emplace(key, old);
    const auto it = new_by_key.find(key);
    if (it == new_by_key.end())
      c.only_old.push_back(old);
    else
      c.cases.push_back(judge_pair(*old, *it->second, o));
  }
  for (const auto& [key, n] : new_cases)
    if (!old_by_key.contains(key)) c.only_new.push_back(n);
  // Each family's cases together, in the order families first appear, so
  // that each gets one geometric-mean row.
  std::map<std::string, std::size_t> first_seen;
  for (const CaseDiff& d : c.cases) first_seen.try_emplace(d.old_case->family, first_seen.size());
  std::stable_sort(c.cases.begin(), c.cases.end(), [&](const CaseDiff& a, const CaseDiff& b) {
    return first_seen[a.old_case->family] < first_seen[b.old_case->family];
  });
}

Keyed by_key(const ResultFile& file) {
  Keyed keyed;
  for (const ResultCase& c : file.cases) keyed.emplace_back(c.key, &c);
  return keyed;
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

std::string text_of(const Json& value) {
  return value.is_string() ? value.get<std::string>() : tools::dump_json(value);
}

// "p2p/latency/[mpi vs ep]/inter/8": the names of a pair within one file,
// their differing parts side by side.
std::string merged_name(const std::string& a, const std::string& b) {
  const auto split = [](const std::string& name) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t slash; (slash = name.find('/', start)) != std::string::npos; start = slash + 1)
      parts.push_back(name.substr(start, slash - start));
    parts.push_back(name.substr(start));
    return parts;
  };
  const std::vector<std::string> x = split(a);
  const std::vector<std::string> y = split(b);
  if (x.size() != y.size()) return fmt::format("{} vs {}", a, b);
  std::string merged;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i > 0) merged += '/';
    merged += x[i] == y[i] ? x[i] : fmt::format("[{} vs {}]", x[i], y[i]);
  }
  return merged;
}

std::string shown_case(const ResultCase& c) {
  const auto suite_case = label_text(c, "case");
  return suite_case ? fmt::format("{} [{}]", c.name, *suite_case) : c.name;
}

// The key that pairs a case within one file: its family and its labels
// but those left out (the family too, when a filter names it).
std::string pairing_key(const ResultCase& c, const std::vector<std::string>& left_out) {
  const auto kept = [&](const std::string& key) {
    return std::ranges::find(left_out, key) == left_out.end();
  };
  nlohmann::json labels = nlohmann::json::object();  // sorted: the key ignores order
  for (const auto& [key, value] : c.labels.items())
    if (kept(key)) labels[key] = value;
  return (kept("family") ? c.family : std::string()) + '\n' + tools::dump_json(labels);
}

// Which one more label, left out, would pair the most of the cases that
// found no partner: a hint for cases that differ in, say, their ranks.
void find_blocking_label(Comparison& c) {
  std::vector<std::string> candidates;
  for (const auto* side : {&c.only_old, &c.only_new})
    for (const ResultCase* x : *side)
      for (const auto& [key, value] : x->labels.items())
        if (std::ranges::find(c.paired_without, key) == c.paired_without.end() &&
            std::ranges::find(candidates, key) == candidates.end())
          candidates.push_back(key);
  for (const std::string& label : candidates) {
    std::vector<std::string> left_out = c.paired_without;
    left_out.push_back(label);
    std::map<std::string, int> old_keys;
    for (const ResultCase* x : c.only_old) ++old_keys[pairing_key(*x, left_out)];
    int pairs = 0;
    for (const ResultCase* y : c.only_new) {
      auto it = old_keys.find(pairing_key(*y, left_out));
      if (it != old_keys.end() && it->second > 0) {
        --it->second;
        ++pairs;
      }
    }
    if (pairs > c.would_pair) {
      c.would_pair = pairs;
      c.blocking_label = label;
    }
  }
}

// The cases `filter` selects, keyed by what pairs them; throws when it
// selects none or two that pair alike.
Keyed select(const ResultFile& file, const CaseFilter& filter,
             const std::vector<std::string>& left_out) {
  Keyed keyed;
  std::map<std::string, const ResultCase*> seen;
  for (const ResultCase& c : file.cases) {
    if (!filter.matches(c)) continue;
    const std::string key = pairing_key(c, left_out);
    if (const auto [it, added] = seen.try_emplace(key, &c); !added)
      throw std::invalid_argument(
          fmt::format("{}: {} and {} would pair alike; narrow it (e.g. with case=...)", filter.text,
                      shown_case(*it->second), shown_case(c)));
    keyed.emplace_back(key, &c);
  }
  if (!keyed.empty()) return keyed;
  // Say what the file has instead.
  for (const auto& [key, value] : filter.terms) {
    std::vector<std::string> values;
    for (const ResultCase& c : file.cases)
      if (const auto text = label_text(c, key);
          text && std::ranges::find(values, *text) == values.end())
        values.push_back(*text);
    if (values.empty())
      throw std::invalid_argument(
          fmt::format("{}: no case of {} has a label '{}'", filter.text, file.path, key));
    if (std::ranges::find(values, value) == values.end()) {
      std::string list;
      for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
      throw std::invalid_argument(fmt::format("{}: no case of {} has {}={}; {} is {} there",
                                              filter.text, file.path, key, value, key, list));
    }
  }
  throw std::invalid_argument(
      fmt::format("{}: no case of {} has all of these labels", filter.text, file.path));
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
  pair_cases(c, by_key(old_file), by_key(new_file), o);
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

CaseFilter CaseFilter::parse(const std::string& text) {
  CaseFilter f;
  f.text = text;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    // A comma followed by something without '=' before the next comma
    // belongs to the value: "layout=2,2".
    while (comma != std::string::npos) {
      const std::size_t next = text.find(',', comma + 1);
      const std::string piece = text.substr(comma + 1, next - comma - 1);
      if (piece.find('=') != std::string::npos) break;
      comma = next;
    }
    const std::string term = text.substr(start, comma - start);
    const std::size_t equals = term.find('=');
    if (equals == std::string::npos || equals == 0)
      throw std::invalid_argument(
          fmt::format("'{}': expected LABEL=VALUE[,LABEL=VALUE...], e.g. impl=mpi", text));
    f.terms.emplace_back(term.substr(0, equals), term.substr(equals + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return f;
}

bool CaseFilter::matches(const ResultCase& c) const {
  return std::ranges::all_of(terms, [&](const auto& term) {
    const auto value = label_text(c, term.first);
    return value && *value == term.second;
  });
}

std::optional<std::string> label_text(const ResultCase& c, const std::string& key) {
  if (key == "family") return c.family;
  if (key == "name") return c.name;
  for (const Json* labels : {&c.labels, &c.layout}) {
    const auto it = labels->find(key);
    if (it != labels->end()) return text_of(*it);
  }
  return std::nullopt;
}

Comparison compare_within(const ResultFile& file, const CaseFilter& baseline,
                          const CaseFilter& contender, const std::vector<std::string>& ignore,
                          const CompareSettings& o) {
  Comparison c;
  c.within_file = true;
  c.old_side = {&file, baseline.text};
  c.new_side = {&file, contender.text};
  std::vector<std::string>& left_out = c.paired_without;
  const auto leave_out = [&](const std::string& key) {
    if (std::ranges::find(left_out, key) == left_out.end()) left_out.push_back(key);
  };
  for (const CaseFilter* f : {&baseline, &contender})
    for (const auto& term : f->terms) leave_out(term.first);
  leave_out("case");
  for (const char* label : placement_labels) leave_out(label);
  for (const auto& label : ignore) leave_out(label);
  for (const ResultCase& x : file.cases)
    if (baseline.matches(x) && contender.matches(x))
      throw std::invalid_argument(fmt::format("{} is selected by both {} and {}", shown_case(x),
                                              baseline.text, contender.text));
  const Keyed old_cases = select(file, baseline, left_out);  // the baseline's errors first
  const Keyed new_cases = select(file, contender, left_out);
  pair_cases(c, old_cases, new_cases, o);
  for (CaseDiff& d : c.cases) {
    d.name = merged_name(d.old_case->name, d.new_case->name);
    d.labels = Json::object();
    for (const auto& [key, value] : d.old_case->labels.items())
      if (std::ranges::find(left_out, key) == left_out.end()) d.labels[key] = value;
  }
  find_blocking_label(c);
  summarise(c);
  return c;
}

}  // namespace ep::results
