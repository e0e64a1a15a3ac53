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
#include <optional>
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
  std::string name;               ///< the run name; within one file both sides' names merged
  nlohmann::ordered_json labels;  ///< what pairs the cases
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

/// One side of a comparison: a whole file, or the cases of a file that a
/// filter selects.
struct Side {
  const ResultFile* file = nullptr;
  std::string name;  ///< how the report names it: the path, or the filter
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
  /// Within one file: the labels left out when pairing (the filters',
  /// the suite case, the layout); empty when comparing files.
  std::vector<std::string> paired_without;
  bool within_file = false;
  /// Within one file: the label whose leaving out would pair the most of
  /// the unpaired cases, and how many pairs that would make (0: none).
  std::string blocking_label;
  int would_pair = 0;
};

/// Compares `new_file` against `old_file`, pairing cases by family, name and
/// parameters. Files whose layouts differ (processes, ranks, endpoints or
/// threads per process) throw ResultFileError naming the fields, unless
/// `force`.
Comparison compare_files(const ResultFile& old_file, const ResultFile& new_file,
                         const CompareSettings& settings, bool force);

/// Selects the cases of a file by their labels (impl, placement, bytes,
/// case, ... as the entries hold them; also family and name): "impl=mpi",
/// or several terms that must all hold, "impl=ep,placement=inter". A comma
/// starts a new term only before KEY=, so "layout=2,2" is one term.
struct CaseFilter {
  std::string text;  ///< as written
  std::vector<std::pair<std::string, std::string>> terms;

  /// Throws std::invalid_argument for a term without '=' or an empty key.
  static CaseFilter parse(const std::string& text);
  bool matches(const ResultCase& c) const;
};

/// A case's value for `key` as a filter compares it: strings as they are,
/// numbers and booleans as JSON writes them; nullopt when the case has no
/// such label.
std::optional<std::string> label_text(const ResultCase& c, const std::string& key);

/// Labels that say how ranks sit on processes rather than what was
/// measured; within one file they differ between implementations by design.
inline constexpr const char* placement_labels[] = {"layout", "processes", "threads_per_process",
                                                   "endpoints_per_process"};

/// Compares, within one file, the cases `contender` selects (new) against
/// those `baseline` selects (old): endpoints against MPI processes of the
/// same run, say. Cases pair when their family and their labels agree,
/// leaving out the labels the filters name, the suite case ("case"), the
/// placement labels and `ignore`. Throws std::invalid_argument when a
/// filter selects nothing (naming the values its labels take in the file),
/// when a case matches both, or when two cases of a side would pair alike.
Comparison compare_within(const ResultFile& file, const CaseFilter& baseline,
                          const CaseFilter& contender, const std::vector<std::string>& ignore,
                          const CompareSettings& settings);

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
