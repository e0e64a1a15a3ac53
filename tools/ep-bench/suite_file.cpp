#include "suite_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "json_input.hpp"

namespace ep::bench {

namespace {

constexpr std::array<std::string_view, 4> case_keys{"name", "subcommand", "processes",
                                                    "description"};
constexpr std::array<std::string_view, 4> suite_wide{"json", "csv", "quiet", "watchdog"};

// JSON pointer escaping (RFC 6901): "~" -> "~0", "/" -> "~1".
std::string pointer_to(const std::string& parent, const std::string& key) {
  std::string escaped;
  for (const char c : key) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return parent + "/" + escaped;
}

std::string type_of(const nlohmann::ordered_json& v) {
  if (v.is_string()) return fmt::format("the string \"{}\"", v.get<std::string>());
  if (v.is_number_integer()) return fmt::format("the number {}", v.dump());
  return v.type_name();
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const {
    throw SuiteError(file_, pointer, what);
  }

  // An option's value: a string, a number, a boolean, or an array of strings
  // and numbers.
  void check_value(const std::string& name, const nlohmann::ordered_json& v,
                   const std::string& pointer) const {
    const bool sizes = name == "sizes" || name == "msgrate-sizes";
    const char* expected = sizes ? "expected a string like \"1:4M:x2\" or an array of sizes"
                                 : "expected a string, a number, true/false, or an array of "
                                   "strings and numbers";
    if (v.is_string() || v.is_number() || (v.is_boolean() && !sizes)) return;
    if (!v.is_array() || v.empty()) fail(pointer, fmt::format("{}, not {}", expected, type_of(v)));
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!v[i].is_string() && !v[i].is_number())
        fail(pointer_to(pointer, std::to_string(i)),
             fmt::format("{}, not {}", expected, type_of(v[i])));
  }

  SuiteOption option(const std::string& key, const nlohmann::ordered_json& v,
                     const std::string& parent, bool from_defaults) const {
    const std::string pointer = pointer_to(parent, key);
    if (key.empty() || key.front() == '-')
      fail(pointer, "expected an option name without dashes, e.g. \"sizes\" for --sizes");
    if (is_suite_wide_option(key))
      fail(pointer, fmt::format("--{} is set for the whole suite on the ep-bench run command line, "
                                "not per case",
                                key));
    check_value(key, v, pointer);
    return {key, v, pointer, from_defaults};
  }

  SuiteCase one_case(const nlohmann::ordered_json& c, std::size_t index,
                     const std::vector<SuiteOption>& defaults) const {
    SuiteCase out;
    out.pointer = fmt::format("/cases/{}", index);
    if (!c.is_object())
      fail(out.pointer,
           fmt::format("expected an object with name, subcommand and options, not {}", type_of(c)));
    for (const char* key : {"name", "subcommand"}) {
      if (!c.contains(key))
        fail(out.pointer, fmt::format("missing \"{}\" (expected a string)", key));
      if (!c[key].is_string() || c[key].get<std::string>().empty())
        fail(pointer_to(out.pointer, key),
             fmt::format("expected a non-empty string, not {}", type_of(c[key])));
    }
    out.name = c["name"].get<std::string>();
    // The name starts the table's and --dry-run's lines of the case: a line
    // break or another control character in it would break them.
    for (std::size_t at = 0; at < out.name.size(); ++at) {
      const auto byte = static_cast<unsigned char>(out.name[at]);
      if (byte < 0x20 || byte == 0x7f)
        fail(pointer_to(out.pointer, "name"),
             fmt::format("case {}: the name {} holds the control character U+{:04X} at byte {}; "
                         "expected a name without control characters (it starts lines of "
                         "the table and of --dry-run)",
                         index, nlohmann::ordered_json(out.name).dump(), byte, at));
    }
    out.subcommand = c["subcommand"].get<std::string>();
    if (c.contains("description") && !c["description"].is_string())
      fail(pointer_to(out.pointer, "description"),
           fmt::format("expected a string, not {}", type_of(c["description"])));
    if (c.contains("processes")) {
      const auto& p = c["processes"];
      if (!p.is_number_integer() || p.get<std::int64_t>() < 1 || p.get<std::int64_t>() > 100000)
        fail(pointer_to(out.pointer, "processes"),
             fmt::format("expected the number of MPI processes the case needs (mpirun -np), "
                         "a positive integer, not {}",
                         type_of(p)));
      out.processes = p.get<int>();
    }
    std::set<std::string> own;
    for (const auto& [key, value] : c.items()) {
      if (std::find(case_keys.begin(), case_keys.end(), key) != case_keys.end()) continue;
      out.options.push_back(option(key, value, out.pointer, false));
      own.insert(key);
    }
    // Defaults go first, so that the command line reads in the file's order
    // after them; run_suite drops those the subcommand lacks.
    std::vector<SuiteOption> inherited;
    for (const auto& d : defaults)
      if (own.count(d.name) == 0) inherited.push_back(d);
    out.options.insert(out.options.begin(), inherited.begin(), inherited.end());
    return out;
  }

  Suite suite(const nlohmann::ordered_json& doc) const {
    Suite s;
    s.file = file_;
    if (!doc.is_object())
      fail("", fmt::format("expected an object with \"cases\", not {}", type_of(doc)));
    for (const auto& [key, value] : doc.items()) {
      if (key != "description" && key != "defaults" && key != "cases")
        fail(pointer_to("", key),
             "unknown key (a suite has \"description\", \"defaults\" and \"cases\")");
    }
    if (doc.contains("description")) {
      if (!doc["description"].is_string())
        fail("/description", fmt::format("expected a string, not {}", type_of(doc["description"])));
      s.description = doc["description"].get<std::string>();
    }
    if (doc.contains("defaults")) {
      const auto& d = doc["defaults"];
      if (!d.is_object())
        fail("/defaults", fmt::format("expected an object of options, not {}", type_of(d)));
      for (const auto& [key, value] : d.items())
        s.defaults.push_back(option(key, value, "/defaults", true));
    }
    if (!doc.contains("cases")) fail("", "missing \"cases\" (expected an array of cases)");
    const auto& cases = doc["cases"];
    if (!cases.is_array() || cases.empty())
      fail("/cases", fmt::format("expected a non-empty array of cases, not {}",
                                 cases.is_array() ? "an empty array" : type_of(cases)));
    std::set<std::string> names;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      SuiteCase c = one_case(cases[i], i, s.defaults);
      if (!names.insert(c.name).second)
        fail(c.pointer + "/name", fmt::format("case name '{}' is used twice", c.name));
      s.cases.push_back(std::move(c));
    }
    return s;
  }

 private:
  std::string file_;
};

}  // namespace

SuiteError::SuiteError(const std::string& file, const std::string& pointer, const std::string& what)
    : std::runtime_error(
          fmt::format("{}: {}: {}", file, pointer.empty() ? std::string("/") : pointer, what)) {}

SuiteError::SuiteError(const std::string& message) : std::runtime_error(message) {}

bool is_suite_wide_option(const std::string& name) {
  return std::find(suite_wide.begin(), suite_wide.end(), name) != suite_wide.end();
}

Suite read_suite(const std::string& file) {
  std::string text;
  try {
    text = tools::read_input_file(file);
  } catch (const tools::InputFileError& e) {
    throw SuiteError(e.what());
  }
  nlohmann::ordered_json doc;
  try {
    doc = tools::parse_json_ordered(text, file);
  } catch (const tools::JsonInputError& e) {
    if (e.kind() == tools::JsonInputError::Kind::syntax)
      throw SuiteError(file, "", fmt::format("not JSON: {}", e.reason()));
    throw SuiteError(e.what());  // too deep, a key twice: by line, as no pointer reaches it
  }
  return Reader(file).suite(doc);
}

}  // namespace ep::bench
