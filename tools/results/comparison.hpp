// Comparing result files case by case, with the Mann-Whitney U test over the
// repetitions deciding what is noise. Modelled on google/benchmark's
// tools/compare.py. How it decides, per case (a benchmark at one set of
// parameters, found on both sides):
//   - it compares the median of the repetitions' real_time, lower being
//     better. Cases that also report bytes_per_second or items_per_second
//     are judged on time too: the rates are derived from the same time, so
//     they would only repeat the verdict inverted;
//   - change = new median / old median - 1;
//   - p = the two-sided Mann-Whitney U test over the repetitions of both
//     sides (mann_whitney.hpp), which asks whether the difference could be
//     noise, without assuming the times are normally distributed;
//   - a regression is a change above +threshold with p < alpha, an
//     improvement one below -threshold with p < alpha; a change beyond the
//     threshold with p >= alpha is reported as not significant, and does not
//     fail the comparison. With fewer than 5 repetitions on a side the test
//     can hardly ever reach significance: the report says so.
// A geometric mean of the new/old ratios summarises each family.
#pragma once

#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "mann_whitney.hpp"
#include "result_file.hpp"
#include "stats.hpp"

namespace ep::results {

struct CompareSettings {
  double threshold = 5;  ///< percent change of the median time that counts
  double alpha = 0.05;   ///< significance level of the U test
};

/// Fewer repetitions than this on a side: the U test means little.
inline constexpr std::size_t min_meaningful_repetitions = 5;

enum class Verdict { unchanged, regression, improvement, not_significant };

const char* verdict_name(Verdict v);

/// One case found on both sides.
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

  Counts& operator+=(const Counts& other);
};

/// One side of a comparison: a whole file.
struct Side {
  const ResultFile* file = nullptr;
  std::string name;  ///< how the report names it: the path
};

struct Comparison {
  Side old_side;
  Side new_side;
  std::vector<std::pair<std::string, std::string>> context_lines;  ///< field, "old -> new"
  nlohmann::ordered_json context_differences = nlohmann::ordered_json::array();
  std::vector<CaseDiff> cases;  ///< each family's cases together
  std::vector<FamilyMean> means;
  std::vector<const ResultCase*> only_old;
  std::vector<const ResultCase*> only_new;
  std::size_t fewest_repetitions = 0;      ///< on either side of any paired case
  std::vector<std::string> forced_layout;  ///< layout differences that `force` let pass
  Counts counts;
};

/// Compares `new_file` against `old_file`, pairing cases by family, name and
/// parameters. Files whose layouts differ (processes, ranks, endpoints or
/// threads per process) throw ResultFileError naming the fields, unless
/// `force`.
Comparison compare_files(const ResultFile& old_file, const ResultFile& new_file,
                         const CompareSettings& settings, bool force);

/// The table, the differences of context and the verdict line, as
/// `ep-bench compare` prints them; `several`: name the new side in the
/// verdict (one of several comparisons).
void print_comparison(std::FILE* out, const Comparison& c, const CompareSettings& settings,
                      bool several);

/// One verdict in words: "no change (5 cases ...)", "1 regression beyond 5% ...".
std::string verdict_line(const Comparison& c, const CompareSettings& settings);

/// The comparison as JSON: every case with both sides' statistics and
/// repetitions, the geometric means, the unpaired cases and the counts.
nlohmann::ordered_json comparison_json(const Comparison& c, const CompareSettings& settings);
nlohmann::ordered_json counts_json(const Counts& counts);

}  // namespace ep::results
