#include "case_summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string>

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

}  // namespace ep::results
