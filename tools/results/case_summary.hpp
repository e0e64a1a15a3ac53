// What a result file holds, case by case: the statistics of each case's
// repetitions (time and rates), for people (a table) and for programs
// (JSON). scripts/plot.py draws these medians rather than reading result
// files itself, so that a plot and `ep-bench compare` read a file alike.
// Twins: each libep case beside the plain-MPI case with the same parameters
// and as many ranks, and the ratio of their medians (`ep-bench summary
// --ratios`, the end of scripts/bench.sh).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

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

/// Labels in which a libep case and its plain-MPI twin may differ: who runs
/// the case (impl), where its ranks sit (placement, layout) and what the
/// suite calls it (case). Every other label (family, bytes, ranks, pairs,
/// op, sync, phase, window, ...) must be equal.
inline constexpr const char* twin_free_labels[] = {"impl", "placement", "layout", "case"};

/// A libep case (impl "ep") beside its plain-MPI twin (impl "mpi"): the case
/// of the same family and labels, twin_free_labels aside, so with as many
/// ranks. The pointers are into the summaries they were paired from.
struct TwinPair {
  const CaseSummary* ep = nullptr;
  const CaseSummary* mpi = nullptr;  ///< nullptr: no twin in the files
  /// ep median time / mpi median time: below 1 libep is faster. For
  /// bandwidth and message rate too, since twins send the same messages: 0.5
  /// is twice the rate. None without a twin (or with a twin of time 0).
  std::optional<double> ratio;
};

/// Every libep case of `cases` (in their order) with its twin, looked up in
/// all of `cases`, so that twins may come from different files (the jobs of
/// one suite, each with its own process count). A case without a rank count
/// (label ranks, or layout total_ranks) has no twin; of several twins the
/// first is taken.
std::vector<TwinPair> pair_twins(const std::vector<CaseSummary>& cases);

/// {"time_unit": "us", "ratio": "ep / mpi time", "pairs": [{"family", "ranks",
/// "ep": {"name", "case", "median"}, "mpi": {...} or null, "ratio" or null}],
/// "geomean": {family: ratio}, "without_twin": n}.
nlohmann::ordered_json twins_json(const std::vector<TwinPair>& pairs);

/// One table per family: each libep case, its median, its twin's median and
/// the ratio, then the geometric mean of the family's ratios (where it has
/// more than one). Returns the number of libep cases without a twin (also
/// printed).
std::size_t print_twins(std::FILE* out, const std::vector<TwinPair>& pairs);

}  // namespace ep::results
