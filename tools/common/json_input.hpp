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
// And the file itself is read here (read_input_file): a regular file of
// bounded size only, since /dev/zero never ends and a directory or a pipe
// is no document.
// Both flavours the tools use are offered: ordered_json keeps the file's key
// order (ep-bench), json sorts keys (ep-inspect).
#pragma once

#include <cstddef>
#include <cstdint>
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

/// How large a file the tools read: result files and suites are kilobytes
/// to megabytes, and a document in memory takes several times its text.
inline constexpr std::uintmax_t default_max_input_bytes = std::uintmax_t{1} << 30;  // 1 GiB

/// A file that cannot be read. what() is "FILE: REASON".
class InputFileError : public std::runtime_error {
 public:
  InputFileError(const std::string& file, const std::string& reason);
  /// Without the file: "is a directory, not a regular file".
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

/// The text of `file` (links followed), which must be a regular file of at
/// most `max_bytes`. A directory, a device, a pipe or a socket is refused
/// by what it is, before anything is read; a file that cannot be opened or
/// read with the system's reason. Throws InputFileError.
std::string read_input_file(const std::string& file,
                            std::uintmax_t max_bytes = default_max_input_bytes);

/// Parses `text`, which came from `file` (named in errors only). Throws
/// JsonInputError. Never recurses, so any input is safe to give it.
nlohmann::ordered_json parse_json_ordered(std::string_view text, const std::string& file,
                                          std::size_t max_depth = default_max_json_depth);
nlohmann::json parse_json(std::string_view text, const std::string& file,
                          std::size_t max_depth = default_max_json_depth);

}  // namespace ep::tools
