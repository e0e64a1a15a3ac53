// Reading ep-bench result files back (for compare): checked field by field,
// so that a bad file is refused with its name, the JSON path of the problem
// and what was expected there, and grouped into cases, each with the times of
// all its repetitions.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace ep::results {

/// A file that cannot be read as a result file. The message names the file
/// and the JSON path: "a.json: /benchmarks/3/real_time: expected a number".
class ResultFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The version of the result file layout (tools/ep-bench/result.schema.json)
/// that ep-bench writes and reads: context.schema_version. A file without it
/// or with another is refused, since its fields may not mean what they say.
inline constexpr int result_schema_version = 1;

/// Fields that describe the layout of a run (in the context, and copied into
/// the entries of suite files): times of different layouts are not comparable.
inline constexpr const char* layout_fields[] = {"processes", "total_ranks", "threads_per_process",
                                                "endpoints_per_process"};

/// Every repetition of one case (a benchmark at one set of parameters) in one file.
struct ResultCase {
  std::string key;   ///< family, run name and parameters: pairs cases across files
  std::string name;  ///< the run name, for people
  std::string family;
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();  ///< impl, bytes, ...
  nlohmann::ordered_json layout = nlohmann::ordered_json::object();  ///< suite files' entries
  std::vector<double> times;  ///< real_time of each repetition, in microseconds
  /// The rates of each repetition, when every repetition reports them.
  std::vector<double> bytes_per_second;
  std::vector<double> items_per_second;
  /// The file has no repetitions of this case, only aggregates: `times`
  /// holds its median (and the rates theirs).
  bool from_aggregates = false;
};

struct ResultFile {
  std::string path;
  nlohmann::ordered_json context;
  std::vector<ResultCase> cases;  ///< in the order they first appear
  /// Cases with aggregates only (as google/benchmark writes with
  /// --benchmark_report_aggregates_only): read for summaries, never
  /// compared, since one median is no sample.
  std::vector<ResultCase> median_only;
};

/// Reads `path`. Repetitions (run_type "iteration", or none) make the cases;
/// aggregates are skipped, since they can be recomputed from the repetitions,
/// except the median of a case that has no repetitions (median_only).
/// The parameters of a case are the entry's string, integer and boolean
/// fields among those ep-bench writes to say which case it is (impl, bytes,
/// placement, op, case, ...; result_file.cpp lists them) and the layout
/// fields; other fields, measurements or unknown, are ignored. Throws
/// ResultFileError, also for
/// a context.schema_version missing or other than result_schema_version.
ResultFile load_result_file(const std::string& path);

/// The member `key` of `object`, or nullptr when it has none.
inline const nlohmann::ordered_json* member(const nlohmann::ordered_json& object,
                                            const std::string& key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace ep::results
