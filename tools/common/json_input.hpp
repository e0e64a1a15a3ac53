// Reading JSON that a user hands the tools (suite files, result files,
// EP_INSPECT dumps): nlohmann's parser with three limits it lacks.
//   - Nesting depth is bounded. nlohmann parses and destroys without
//     recursion, but copying a value recurses once per level, and an
//     ordered_json object copies its members whenever it grows (a member
//     whose key is const cannot be moved): 200 000 nested arrays followed
//     by another key overflowed the stack inside nlohmann's own parse, and
//     the tools copy, compare and dump what they read. A document past the
//     bound is refused while it is read, with the line where it got too deep.
//   - A key given twice in one object is refused (nlohmann keeps the last
//     one silently, so a typo'd duplicate in a suite case would go unseen).
//   - A number too large for a double (1e400) is refused rather than read as
//     infinity.
// Both flavours the tools use are offered: ordered_json keeps the file's key
// order (ep-bench), json sorts keys (ep-inspect).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ep::tools {

/// How deep a document the tools accept: far beyond any file they write
/// (result files and suites nest 5 levels), far below what recursion over
/// a value can take.
inline constexpr std::size_t default_max_json_depth = 128;

/// JSON text that cannot be used. what() is "FILE: line L: REASON", or for
/// a syntax error "FILE: parse error at line L, column C: ...".
class JsonInputError : public std::runtime_error {
 public:
  enum class Kind {
    syntax,         ///< not JSON
    too_deep,       ///< nesting deeper than the limit
    duplicate_key,  ///< a key given twice in one object
    out_of_range,   ///< a number no double can hold
  };
  JsonInputError(Kind kind, const std::string& file, std::size_t line, const std::string& reason);

  Kind kind() const { return kind_; }
  /// 1-based; for syntax errors nlohmann's line is inside reason().
  std::size_t line() const { return line_; }
  /// The message without the file and line: "key \"a\" given twice".
  const std::string& reason() const { return reason_; }

 private:
  Kind kind_;
  std::size_t line_;
  std::string reason_;
};

/// Parses `text`, which came from `file` (named in errors only). Throws
/// JsonInputError. Never recurses, so any input is safe to give it.
nlohmann::ordered_json parse_json_ordered(std::string_view text, const std::string& file,
                                          std::size_t max_depth = default_max_json_depth);
nlohmann::json parse_json(std::string_view text, const std::string& file,
                          std::size_t max_depth = default_max_json_depth);

}  // namespace ep::tools
