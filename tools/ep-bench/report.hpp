// Results for people and for programs: JSON entries shaped like
// google/benchmark's ("benchmarks": one entry per repetition plus aggregate
// entries), aligned tables, and a progress line on a terminal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result_file.hpp"
#include "stats.hpp"

namespace ep::bench {

// The statistics are the result toolkit's (tools/results), which compare
// and the plots read files with: a file says what the tables said.
using results::assess_noise;
using results::default_noise_threshold;
using results::format_number;
using results::Noise;
using results::noise_hint;
using results::summarize;
using results::Summary;

using results::result_schema_version;

/// One repetition, already reduced over ranks (its time is the slowest rank's).
struct Repetition {
  double real_time = 0;  ///< per iteration unit of the family, in microseconds
  double cpu_time = 0;   ///< the busiest rank's CPU time, in the same unit
  std::optional<double> bytes_per_second;
  std::optional<double> items_per_second;
  // Non-blocking collectives with a computation in flight (ibcast/overlap,
  // iallreduce/overlap): real_time is then the overall time per call.
  std::optional<double> compute_time;  ///< us per call spent computing
  std::optional<double> pure_time;     ///< us per call of start + Wait alone
  std::optional<double> overlap;       ///< percent of pure_time hidden
};

/// Every repetition of one benchmark (one family at one message size).
struct Series {
  std::string name;               ///< e.g. "p2p/latency/ep/intra/8"
  std::string family;             ///< e.g. "p2p/latency"
  nlohmann::ordered_json labels;  ///< impl, placement, bytes, ...: copied into every entry
  std::int64_t iterations = 0;
  std::vector<Repetition> repetitions;
  std::optional<std::int64_t> validation_errors;  ///< set when --validate ran
};

/// Summary of one metric over the repetitions of a series.
Summary summarize_metric(const Series& series, double Repetition::*metric);
std::optional<Summary> summarize_metric(const Series& series,
                                        std::optional<double> Repetition::*metric);

/// One entry per repetition ("run_type": "iteration"), then one per statistic
/// ("run_type": "aggregate", "aggregate_name": median, mean, min, max, p90,
/// stddev). Each statistic is taken of each metric on its own: the "min"
/// entry holds the lowest time and also the lowest bandwidth. Every entry
/// says how far the repetitions' times spread ("spread", "noisy", and a
/// "noise_hint" when noisy, per `noise_threshold`); returns that verdict.
Noise append_entries(nlohmann::ordered_json& benchmarks, const Series& series,
                     double noise_threshold = default_noise_threshold);

/// Writes a JSON document to path ("-": stdout) as tools::write_output does
/// (tools/common/output_file.hpp: links followed, files replaced atomically,
/// devices, pipes and descriptors written in place). Throws
/// tools::OutputError naming the path and why.
void write_json(const std::string& path, const nlohmann::ordered_json& document);

/// compare and summary, before reading anything: throws UsageError if --json
/// `path` is one of the result files `inputs` (writing it would destroy the
/// input) or cannot be written. "" passes.
void check_json_output(const std::string& path, const std::vector<std::string>& inputs);

/// A right-aligned text table, printed row by row as results arrive.
class Table {
 public:
  struct Column {
    std::string title;
    int width;
  };
  Table(std::FILE* out, std::vector<Column> columns) : out_(out), columns_(std::move(columns)) {}
  void print_title(std::string_view title) const;
  void print_header() const;
  /// `note` follows the last column (e.g. the noise mark).
  void print_row(const std::vector<std::string>& cells, std::string_view note = {}) const;

 private:
  std::FILE* out_;
  std::vector<Column> columns_;
};

/// A single self-overwriting status line on stderr; silent unless enabled
/// (one rank, stderr a terminal, no --quiet).
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void show(std::string_view text);
  void clear();

 private:
  bool enabled_;
  bool showing_ = false;
};

}  // namespace ep::bench
