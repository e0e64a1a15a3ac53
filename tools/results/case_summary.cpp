#include "case_summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "json_output.hpp"

namespace ep::results {

namespace {

using Json = nlohmann::ordered_json;

std::optional<Summary> summary_of(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return summarize(values);
}

Json statistics_json(const Summary& s) {
  return {{"median", s.median}, {"mean", s.mean}, {"min", s.min},
          {"max", s.max},       {"p90", s.p90},   {"stddev", s.stddev}};
}

std::string shown_name(const ResultCase& c) {
  const auto it = c.labels.find("case");
  if (it != c.labels.end() && it->is_string())
    return fmt::format("{} [{}]", c.name, it->get<std::string>());
  return c.name;
}

}  // namespace

std::vector<CaseSummary> summarize_file(const ResultFile& file) {
  std::vector<CaseSummary> out;
  for (const auto* list : {&file.cases, &file.median_only})
    for (const ResultCase& c : *list)
      out.push_back(
          {&c, summarize(c.times), summary_of(c.bytes_per_second), summary_of(c.items_per_second)});
  return out;
}

Json summary_json(const ResultFile& file) {
  Json cases = Json::array();
  for (const CaseSummary& s : summarize_file(file)) {
    const ResultCase& c = *s.result;
    Json entry = {{"name", c.name},
                  {"family", c.family},
                  {"labels", c.labels},
                  {"layout", c.layout},
                  {"repetitions", c.times.size()},
                  {"from_aggregates", c.from_aggregates},
                  {"real_time", statistics_json(s.time)}};
    if (s.bytes_per_second) entry["bytes_per_second"] = statistics_json(*s.bytes_per_second);
    if (s.items_per_second) entry["items_per_second"] = statistics_json(*s.items_per_second);
    cases.push_back(std::move(entry));
  }
  return {{"path", file.path},
          {"context", file.context},
          {"time_unit", "us"},
          {"cases", std::move(cases)}};
}

void print_summary(std::FILE* out, const ResultFile& file) {
  const std::vector<CaseSummary> summaries = summarize_file(file);
  std::size_t width = 4;
  for (const CaseSummary& s : summaries) width = std::max(width, shown_name(*s.result).size());
  const auto row = [&](const std::string& name, const std::string& reps, const std::string& median,
                       const std::string& min, const std::string& max, const std::string& rate) {
    std::string line = fmt::format("{:<{}}  {:>6}  {:>10}  {:>10}  {:>10}  {:>10}", name, width,
                                   reps, median, min, max, rate);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print(out, "{}\n", line);
  };
  fmt::print(out, "{}: {} cases; real_time in us, median MB/s = 10^6 bytes/s\n", file.path,
             summaries.size());
  row("case", "reps", "median", "min", "max", "MB/s");
  for (const CaseSummary& s : summaries) {
    const std::string reps =
        s.result->from_aggregates ? "median" : std::to_string(s.result->times.size());
    row(shown_name(*s.result), reps, format_number(s.time.median), format_number(s.time.min),
        format_number(s.time.max),
        s.bytes_per_second ? format_number(s.bytes_per_second->median * 1e-6) : "");
  }
}

namespace {

bool is_twin_free(std::string_view key) {
  return std::ranges::any_of(twin_free_labels, [&](const char* f) { return key == f; });
}

std::string string_label(const ResultCase& c, const char* key) {
  const Json* value = results::member(c.labels, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

// The ranks of a case: its label, else its layout's total_ranks (files of
// other tools may lack the label).
std::optional<std::int64_t> rank_count(const ResultCase& c) {
  for (const auto& [where, key] : {std::pair{&c.labels, "ranks"}, {&c.layout, "total_ranks"}})
    if (const Json* value = results::member(*where, key); value && value->is_number_integer())
      return value->get<std::int64_t>();
  return std::nullopt;
}

// What twins share: the family, the rank count and every label that says
// what was measured (sorted, so that the order of labels does not matter).
std::string twin_key(const ResultCase& c, std::int64_t ranks) {
  nlohmann::json shared = nlohmann::json::object();
  for (const auto& [key, value] : c.labels.items())
    if (!is_twin_free(key)) shared[key] = value;
  shared["ranks"] = ranks;
  return c.family + '\n' + tools::dump_json(shared);
}

std::string shown_twin(const ResultCase& c) {
  const std::string suite_case = string_label(c, "case");
  return suite_case.empty() ? c.name : suite_case;
}

// Geometric mean of the ratios of each family that has any, in the order
// the families first appear.
std::vector<std::pair<std::string, double>> family_geomeans(const std::vector<TwinPair>& pairs) {
  std::vector<std::pair<std::string, double>> out;
  std::map<std::string, std::pair<double, int>> logs;  // family -> (sum of logs, count)
  for (const TwinPair& p : pairs) {
    if (!p.ratio || *p.ratio <= 0) continue;
    auto [it, added] = logs.try_emplace(p.ep->result->family, 0.0, 0);
    if (added) out.emplace_back(p.ep->result->family, 0.0);
    it->second.first += std::log(*p.ratio);
    ++it->second.second;
  }
  for (auto& [family, mean] : out) mean = std::exp(logs[family].first / logs[family].second);
  return out;
}

}  // namespace

std::vector<TwinPair> pair_twins(const std::vector<CaseSummary>& cases) {
  std::map<std::string, const CaseSummary*> mpi;
  for (const CaseSummary& s : cases)
    if (string_label(*s.result, "impl") == "mpi")
      if (const auto ranks = rank_count(*s.result))
        mpi.try_emplace(twin_key(*s.result, *ranks), &s);
  std::vector<TwinPair> out;
  for (const CaseSummary& s : cases) {
    if (string_label(*s.result, "impl") != "ep") continue;
    TwinPair pair{&s, nullptr, std::nullopt};
    if (const auto ranks = rank_count(*s.result)) {
      if (const auto it = mpi.find(twin_key(*s.result, *ranks)); it != mpi.end()) {
        pair.mpi = it->second;
        if (pair.mpi->time.median > 0) pair.ratio = s.time.median / pair.mpi->time.median;
      }
    }
    out.push_back(pair);
  }
  return out;
}

Json twins_json(const std::vector<TwinPair>& pairs) {
  const auto side = [](const CaseSummary& s) {
    return Json{{"name", s.result->name},
                {"case", string_label(*s.result, "case")},
                {"median", s.time.median}};
  };
  Json list = Json::array();
  std::size_t without = 0;
  for (const TwinPair& p : pairs) {
    const auto ranks = rank_count(*p.ep->result);
    list.push_back({{"family", p.ep->result->family},
                    {"ranks", ranks ? Json(*ranks) : Json()},
                    {"ep", side(*p.ep)},
                    {"mpi", p.mpi ? side(*p.mpi) : Json()},
                    {"ratio", p.ratio ? Json(*p.ratio) : Json()}});
    without += p.mpi ? 0 : 1;
  }
  Json geomeans = Json::object();
  for (const auto& [family, mean] : family_geomeans(pairs)) geomeans[family] = mean;
  return {{"time_unit", "us"},
          {"ratio", "ep median real_time / mpi median real_time; below 1 libep is faster"},
          {"pairs", std::move(list)},
          {"geomean", std::move(geomeans)},
          {"without_twin", without}};
}

std::size_t print_twins(std::FILE* out, const std::vector<TwinPair>& pairs) {
  std::size_t width = 7;  // "geomean"
  for (const TwinPair& p : pairs) width = std::max(width, shown_name(*p.ep->result).size());
  const auto row = [&](const std::string& name, const std::string& ranks, const std::string& ep,
                       const std::string& mpi, const std::string& ratio, const std::string& twin) {
    std::string line = fmt::format("  {:<{}}  {:>5}  {:>10}  {:>10}  {:>7}  {}", name, width, ranks,
                                   ep, mpi, ratio, twin);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print(out, "{}\n", line);
  };
  fmt::print(out,
             "ep / mpi: each libep case beside its plain-MPI twin (same family and parameters, as "
             "many ranks),\nmedian real_time in us; ep/mpi = ep time / mpi time, below 1 libep is "
             "faster (bandwidth and\nmessage rate time the same messages: 0.5 is twice the "
             "rate)\n");
  const auto geomeans = family_geomeans(pairs);
  std::vector<std::string> families;
  for (const TwinPair& p : pairs)
    if (std::ranges::find(families, p.ep->result->family) == families.end())
      families.push_back(p.ep->result->family);
  std::size_t without = 0;
  for (const std::string& family : families) {
    fmt::print(out, "\n{}\n", family);
    row("libep case", "ranks", "ep", "mpi", "ep/mpi", "mpi twin");
    int ratios = 0;
    for (const TwinPair& p : pairs) {
      if (p.ep->result->family != family) continue;
      const auto ranks = rank_count(*p.ep->result);
      without += p.mpi ? 0 : 1;
      ratios += p.ratio ? 1 : 0;
      row(shown_name(*p.ep->result), ranks ? std::to_string(*ranks) : "-",
          format_number(p.ep->time.median), p.mpi ? format_number(p.mpi->time.median) : "-",
          p.ratio ? fmt::format("{:.2f}", *p.ratio) : "-",
          p.mpi ? shown_twin(*p.mpi->result) : "no twin with as many ranks");
    }
    const auto mean = std::ranges::find(geomeans, family, &std::pair<std::string, double>::first);
    if (ratios > 1 && mean != geomeans.end())
      row("geomean", "", "", "", fmt::format("{:.2f}", mean->second), "");
  }
  if (pairs.empty()) fmt::print(out, "\nno libep case (impl ep) in the files\n");
  if (without > 0)
    fmt::print(out, "\n{} libep case{} without a plain-MPI twin with as many ranks\n", without,
               without == 1 ? "" : "s");
  return without;
}

}  // namespace ep::results
