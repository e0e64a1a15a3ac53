#include "report.hpp"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "json_output.hpp"
#include "output_file.hpp"
#include "subcommand.hpp"

namespace ep::bench {

namespace {

using Statistic = std::pair<const char*, double Summary::*>;
constexpr std::array<Statistic, 6> statistics{{{"median", &Summary::median},
                                               {"mean", &Summary::mean},
                                               {"min", &Summary::min},
                                               {"max", &Summary::max},
                                               {"p90", &Summary::p90},
                                               {"stddev", &Summary::stddev}}};

// An entry with google/benchmark's field order: identity first, then the
// labels of the series, then the numbers.
nlohmann::ordered_json start_entry(const Series& series, std::string name, const char* run_type) {
  nlohmann::ordered_json entry = {{"name", std::move(name)},
                                  {"family", series.family},
                                  {"run_name", series.name},
                                  {"run_type", run_type},
                                  {"repetitions", series.repetitions.size()}};
  return entry;
}

void finish_entry(nlohmann::ordered_json& entry, const Series& series, const Noise& noise,
                  const Repetition& values) {
  entry.update(series.labels);
  entry["iterations"] = series.iterations;
  entry["real_time"] = values.real_time;
  entry["cpu_time"] = values.cpu_time;
  entry["time_unit"] = "us";
  if (values.bytes_per_second) entry["bytes_per_second"] = *values.bytes_per_second;
  if (values.items_per_second) entry["items_per_second"] = *values.items_per_second;
  if (values.compute_time) entry["compute_time"] = *values.compute_time;
  if (values.pure_time) entry["pure_time"] = *values.pure_time;
  if (values.overlap) entry["overlap"] = *values.overlap;
  entry["validated"] = series.validation_errors.has_value();
  if (series.validation_errors) entry["validation_errors"] = *series.validation_errors;
  entry["spread"] = noise.spread;
  entry["noisy"] = noise.noisy;
  if (noise.noisy) entry["noise_hint"] = noise_hint;
}

}  // namespace

Summary summarize_metric(const Series& series, double Repetition::*metric) {
  std::vector<double> values;
  for (const auto& rep : series.repetitions) values.push_back(rep.*metric);
  return summarize(std::move(values));
}

std::optional<Summary> summarize_metric(const Series& series,
                                        std::optional<double> Repetition::*metric) {
  std::vector<double> values;
  for (const auto& rep : series.repetitions) {
    if (!(rep.*metric)) return std::nullopt;
    values.push_back(*(rep.*metric));
  }
  return summarize(std::move(values));
}

Noise append_entries(nlohmann::ordered_json& benchmarks, const Series& series,
                     double noise_threshold) {
  const Summary real = summarize_metric(series, &Repetition::real_time);
  const Noise noise = assess_noise(real, noise_threshold);
  for (std::size_t i = 0; i < series.repetitions.size(); ++i) {
    const Repetition& rep = series.repetitions[i];
    auto entry = start_entry(series, series.name, "iteration");
    entry["repetition_index"] = i;
    finish_entry(entry, series, noise, rep);
    benchmarks.push_back(std::move(entry));
  }
  const Summary cpu = summarize_metric(series, &Repetition::cpu_time);
  using Optional = std::optional<double> Repetition::*;
  constexpr std::array<Optional, 5> optionals{
      &Repetition::bytes_per_second, &Repetition::items_per_second, &Repetition::compute_time,
      &Repetition::pure_time, &Repetition::overlap};
  std::array<std::optional<Summary>, optionals.size()> summaries;
  for (std::size_t m = 0; m < optionals.size(); ++m)
    summaries[m] = summarize_metric(series, optionals[m]);
  for (const auto& [statistic, field] : statistics) {
    auto entry = start_entry(series, fmt::format("{}_{}", series.name, statistic), "aggregate");
    entry["aggregate_name"] = statistic;
    Repetition values;
    values.real_time = real.*field;
    values.cpu_time = cpu.*field;
    for (std::size_t m = 0; m < optionals.size(); ++m)
      if (summaries[m]) values.*optionals[m] = (*summaries[m]).*field;
    finish_entry(entry, series, noise, values);
    benchmarks.push_back(std::move(entry));
  }
  return noise;
}

void write_json(const std::string& path, const nlohmann::ordered_json& document) {
  std::string text;
  try {
    text = tools::dump_json(document, 2) + "\n";
  } catch (const std::exception& e) {
    // Said like a write that failed: a run keeps going and reports it at
    // the end, never aborts its job over the file (type_error.316 did).
    throw tools::OutputError(fmt::format("cannot write --json '{}': {}", path, e.what()));
  }
  tools::write_output("--json", path, text);
}
void check_json_output(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) return;
  std::vector<tools::NamedFile> files;
  for (const std::string& input : inputs) files.push_back({"the result file", input});
  if (std::string collision = tools::output_collision({{"--json", path}}, files);
      !collision.empty())
    throw UsageError(collision);
  const tools::OutputTarget target = tools::resolve_output(path);
  if (const std::string reason = tools::output_problem(target); !reason.empty())
    throw UsageError(
        fmt::format("--json: cannot write {}: {}", tools::describe_output(target), reason));
}

void Table::print_title(std::string_view title) const {
  fmt::print(out_, "\n# {}\n", title);
  std::fflush(out_);
}

void Table::print_header() const {
  std::string line;
  for (const auto& c : columns_) line += fmt::format("{:>{}}", c.title, c.width);
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

void Table::print_row(const std::vector<std::string>& cells, std::string_view note) const {
  std::string line;
  for (std::size_t i = 0; i < cells.size() && i < columns_.size(); ++i)
    line += fmt::format("{:>{}}", cells[i], columns_[i].width);
  if (!note.empty()) line += fmt::format("  {}", note);
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

void Progress::show(std::string_view text) {
  if (!enabled_) return;
  fmt::print(stderr, "\r\033[K{}", text);
  std::fflush(stderr);
  showing_ = true;
}

void Progress::clear() {
  if (!showing_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  showing_ = false;
}

}  // namespace ep::bench
