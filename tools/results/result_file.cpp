#include "result_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "json_input.hpp"
#include "json_output.hpp"

namespace ep::results {

namespace {

using Json = nlohmann::ordered_json;

/// Entry fields that say which case an entry measures: the parameters
/// ep-bench's subcommands write (tools/ep-bench: the labels of each series
/// and of its run). Only these pair cases: results/README.md asks readers to
/// ignore fields they do not know, and an unknown field (a later version's,
/// or a user's note) made every case of a file unpaired.
constexpr std::string_view identifying_fields[] = {"bytes",        "case",       "colors",
                                                   "count",        "datatype",   "groups",
                                                   "impl",         "layout",     "memcpy_reference",
                                                   "op",           "operation",  "pairs",
                                                   "phase",        "placement",  "ranks",
                                                   "root",         "subcommand", "sync",
                                                   "test_calls",   "win_model",  "window",
                                                   "window_bytes", "window_kind"};

std::string describe_type(const Json& value) {
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

[[noreturn]] void bad(const std::string& path, const std::string& pointer, std::string_view what) {
  throw ResultFileError(fmt::format("{}: {}: {}", path, pointer.empty() ? "/" : pointer, what));
}

// The member `key` of `object`, which must be `expected` ("a string", ...)
// according to `is`; nullptr when absent and optional.
template <typename Predicate>
const Json* member(const std::string& path, const std::string& pointer, const Json& object,
                   const char* key, const char* expected, Predicate is, bool required = true) {
  const std::string where = pointer + "/" + key;
  const auto it = object.find(key);
  if (it == object.end()) {
    if (required) bad(path, where, fmt::format("missing, expected {}", expected));
    return nullptr;
  }
  if (!is(*it))
    bad(path, where, fmt::format("expected {}, found {}", expected, describe_type(*it)));
  return &*it;
}

bool is_string(const Json& v) { return v.is_string(); }
bool is_number(const Json& v) { return v.is_number(); }
bool is_object(const Json& v) { return v.is_object(); }
bool is_array(const Json& v) { return v.is_array(); }

double microseconds_per(const std::string& path, const std::string& pointer,
                        const std::string& unit) {
  if (unit == "ns") return 1e-3;
  if (unit == "us") return 1;
  if (unit == "ms") return 1e3;
  if (unit == "s") return 1e6;
  bad(path, pointer,
      fmt::format("expected one of \"ns\", \"us\", \"ms\", \"s\", found \"{}\"", unit));
}

bool is_identifying(std::string_view key) {
  return std::ranges::find(identifying_fields, key) != std::end(identifying_fields);
}

bool is_layout(std::string_view key) {
  return std::ranges::any_of(layout_fields, [&](const char* f) { return key == f; });
}

// Bounds on what a file may hold, so that the statistics over its
// repetitions (sums for the mean, squares for the deviation) stay finite: a
// repetition of 1e308 s overflowed to infinity, its median became NaN, and
// NaN compared as "faster". No benchmark runs a repetition of 30 years.
// The lower bound keeps ratios of times finite: a real_time of 0 (or
// 1e-300) made the change "+inf%" (or a 300-digit percentage), its ratio
// null and dropped the family's geometric mean. Nothing is timed at less
// than a picosecond per iteration.
constexpr double min_time_seconds = 1e-12;
constexpr double max_time_seconds = 1e9;
// Counts (iterations, repetitions, repetition_index) are integers a signed
// 64-bit counter holds.
constexpr std::int64_t max_count = std::numeric_limits<std::int64_t>::max();
constexpr double max_rate_per_second = 1e21;

// A rate (bytes_per_second, items_per_second) of an entry, when it is a
// number (a non-number is ignored: only compare's summaries read rates).
std::optional<double> rate(const std::string& path, const std::string& pointer, const Json& entry,
                           const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!(value >= 0 && value <= max_rate_per_second))
    bad(path, pointer + "/" + key,
        fmt::format("{} is out of range (expected a rate from 0 to {:g} per second)", it->dump(),
                    max_rate_per_second));
  return value;
}

// A count of an entry, when it has one: an integer from `lo` to `hi`.
std::optional<std::int64_t> count(const std::string& path, const std::string& pointer,
                                  const Json& entry, const char* key, std::int64_t lo,
                                  std::int64_t hi) {
  const auto it = entry.find(key);
  if (it == entry.end()) return std::nullopt;
  const std::string expected = fmt::format("expected an integer from {} to {}", lo, hi);
  if (!it->is_number_integer())
    bad(path, pointer + "/" + key,
        fmt::format("{} is not an integer ({})", tools::dump_json(*it), expected));
  const bool in_range = it->is_number_unsigned()
                            ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) &&
                                  static_cast<std::int64_t>(it->get<std::uint64_t>()) >= lo
                            : it->get<std::int64_t>() >= lo && it->get<std::int64_t>() <= hi;
  if (!in_range)
    bad(path, pointer + "/" + key,
        fmt::format("{} is out of range ({})", tools::dump_json(*it), expected));
  return it->get<std::int64_t>();
}

// The counts an entry may have: a time per iteration needs an iteration,
// and a repetition's index is below the repetitions of its series.
void check_counts(const std::string& path, const std::string& pointer, const Json& entry) {
  count(path, pointer, entry, "iterations", 1, max_count);
  const auto repetitions = count(path, pointer, entry, "repetitions", 1, max_count);
  count(path, pointer, entry, "repetition_index", 0, repetitions ? *repetitions - 1 : max_count);
}

/// One entry, checked: the case it belongs to (without times) and its time
/// in microseconds.
struct Entry {
  ResultCase c;
  double time = 0;
};

Entry read_entry(const std::string& path, const std::string& pointer, const Json& entry) {
  const Json& name = *member(path, pointer, entry, "name", "a string", is_string);
  const Json* run_name = member(path, pointer, entry, "run_name", "a string", is_string, false);
  const Json* family = member(path, pointer, entry, "family", "a string", is_string, false);
  const Json& real = *member(path, pointer, entry, "real_time", "a number", is_number);
  const Json* unit = member(path, pointer, entry, "time_unit", "a string", is_string, false);
  const double scale =
      unit ? microseconds_per(path, pointer + "/time_unit", unit->get<std::string>()) : 1.0;
  // The bound is checked in seconds, after the unit: 1e308 is a double, but
  // 1e308 s is not one in microseconds.
  if (const double seconds = real.get<double>() * scale * 1e-6;
      !(seconds >= min_time_seconds && seconds <= max_time_seconds))
    bad(path, pointer + "/real_time",
        fmt::format("{} {} is out of range (expected a time from {:g} to {:g} s)",
                    tools::dump_json(real), unit ? unit->get<std::string>() : "us",
                    min_time_seconds, max_time_seconds));
  check_counts(path, pointer, entry);

  Entry e;
  ResultCase& c = e.c;
  c.name = run_name ? run_name->get<std::string>() : name.get<std::string>();
  c.family = family ? family->get<std::string>() : std::string();
  nlohmann::json sorted_labels = nlohmann::json::object();  // sorted: the key ignores order
  for (const auto& [key, value] : entry.items()) {
    if (!is_identifying(key) && !is_layout(key)) continue;
    if (!(value.is_string() || value.is_boolean() || value.is_number_integer())) continue;
    if (is_layout(key)) {
      c.layout[key] = value;
    } else {
      c.labels[key] = value;
      sorted_labels[key] = value;
    }
  }
  c.key = c.family + '\n' + c.name + '\n' + tools::dump_json(sorted_labels);
  e.time = real.get<double>() * scale;
  return e;
}

// Adds one repetition (an entry with run_type "iteration") to its case.
void add_repetition(ResultFile& file, std::map<std::string, std::size_t>& index, const Json& entry,
                    const std::string& pointer) {
  Entry e = read_entry(file.path, pointer, entry);
  auto [it, added] = index.try_emplace(e.c.key, file.cases.size());
  if (added) file.cases.push_back(std::move(e.c));
  ResultCase& c = file.cases[it->second];
  c.times.push_back(e.time);
  if (const auto bytes = rate(file.path, pointer, entry, "bytes_per_second"))
    c.bytes_per_second.push_back(*bytes);
  if (const auto items = rate(file.path, pointer, entry, "items_per_second"))
    c.items_per_second.push_back(*items);
}

// A median aggregate, kept in case the file has no repetitions of its case.
// Aggregates were never checked (they can be recomputed), so a malformed
// one is passed over rather than refused.
void add_median(std::vector<ResultCase>& medians, const std::string& path,
                const std::string& pointer, const Json& entry) {
  const auto aggregate = entry.find("aggregate_name");
  if (aggregate == entry.end() || *aggregate != "median") return;
  try {
    Entry e = read_entry(path, pointer, entry);
    e.c.from_aggregates = true;
    e.c.times = {e.time};
    if (const auto bytes = rate(path, pointer, entry, "bytes_per_second"))
      e.c.bytes_per_second = {*bytes};
    if (const auto items = rate(path, pointer, entry, "items_per_second"))
      e.c.items_per_second = {*items};
    medians.push_back(std::move(e.c));
  } catch (const ResultFileError&) {
  }
}

// A file of another layout could be read, wrongly: its fields may have
// other meanings or units.
void check_schema_version(const std::string& path, const Json& context) {
  const Json* version = member(path, "/context", context, "schema_version",
                               "the result file version, an integer", is_number, false);
  if (version == nullptr)
    bad(path, "/context/schema_version",
        fmt::format("missing: not an ep-bench result file, or one from before versions (expected "
                    "{})",
                    result_schema_version));
  if (!version->is_number_integer() || version->get<std::int64_t>() != result_schema_version)
    bad(path, "/context/schema_version",
        fmt::format("version {} is not one this ep-bench reads (expected {})", version->dump(),
                    result_schema_version));
}

}  // namespace

ResultFile load_result_file(const std::string& path) {
  std::string text;
  try {
    text = tools::read_input_file(path);
  } catch (const tools::InputFileError& e) {
    throw ResultFileError(e.what());
  }
  ResultFile file;
  file.path = path;
  Json document;
  try {
    document = tools::parse_json_ordered(text, path);
  } catch (const tools::JsonInputError& e) {
    if (e.kind() == tools::JsonInputError::Kind::syntax)
      throw ResultFileError(fmt::format("{}: not a JSON document: {}", path, e.reason()));
    throw ResultFileError(e.what());
  }
  if (!document.is_object())
    bad(path, "", fmt::format("expected an object, found {}", describe_type(document)));
  file.context = *member(path, "", document, "context", "an object", is_object);
  check_schema_version(path, file.context);
  const Json& benchmarks = *member(path, "", document, "benchmarks", "an array", is_array);
  std::map<std::string, std::size_t> index;
  std::vector<ResultCase> medians;
  std::set<std::string> median_index;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string pointer = fmt::format("/benchmarks/{}", i);
    const Json& entry = benchmarks[i];
    if (!entry.is_object())
      bad(path, pointer, fmt::format("expected an object, found {}", describe_type(entry)));
    const Json* run_type = member(path, pointer, entry, "run_type", "a string", is_string, false);
    // Aggregates are recomputed from the repetitions, which the U test needs anyway.
    if (run_type && *run_type != "iteration") {
      if (*run_type == "aggregate") add_median(medians, path, pointer, entry);
      continue;
    }
    add_repetition(file, index, entry, pointer);
  }
  for (ResultCase& c : file.cases) {  // a rate counts when every repetition has it
    if (c.bytes_per_second.size() != c.times.size()) c.bytes_per_second.clear();
    if (c.items_per_second.size() != c.times.size()) c.items_per_second.clear();
  }
  for (ResultCase& m : medians)
    if (!index.contains(m.key) && !median_index.contains(m.key)) {
      median_index.insert(m.key);
      file.median_only.push_back(std::move(m));
    }
  return file;
}

}  // namespace ep::results
