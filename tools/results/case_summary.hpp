// What a result file holds, case by case: the statistics of each case's
// repetitions (time and rates), for people (a table) and for programs
// (JSON). scripts/plot.py draws these medians rather than reading result
// files itself, so that a plot and `ep-bench compare` read a file alike.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "result_file.hpp"
#include "stats.hpp"

namespace ep::results {

struct CaseSummary {
  const ResultCase* result = nullptr;
  Summary time;  ///< of real_time, in microseconds
  std::optional<Summary> bytes_per_second;
  std::optional<Summary> items_per_second;
};

/// Every case of `file` (its median-only cases last).
std::vector<CaseSummary> summarize_file(const ResultFile& file);

/// {"path", "context", "cases": [{"name", "family", "labels", "layout",
/// "repetitions", "from_aggregates", "real_time": {median, mean, min, max,
/// p90, stddev}, "bytes_per_second": {...}, "items_per_second": {...}}]},
/// the rates only where the case reports them; times in microseconds.
nlohmann::ordered_json summary_json(const ResultFile& file);

/// One table per file: each case's repetitions, median, min and max time
/// (us), and its median bandwidth (MB/s) where it has one.
void print_summary(std::FILE* out, const ResultFile& file);

}  // namespace ep::results
