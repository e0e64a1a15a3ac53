// Numbers on the tools' command lines, read one way for every option of
// ep-bench and ep-inspect (and the same options in suite files, which
// ep-bench run turns into command lines).
//
// CLI11 alone reads an empty value as 0 (past any range check), integers in
// the base their prefix says (010 is 8, 0x10 is 16), clamps integers that
// overflow, and prints a double's range with every digit of DBL_MAX. Here an
// integer is decimal digits with an optional sign, a floating value a finite
// decimal number; neither may be empty or carry whitespace; and a value out
// of range is named with the range it missed, readably.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ep::tools {

/// Reads a decimal integer from `min` to `max`. Throws std::invalid_argument
/// whose message quotes the text and says what was expected, e.g. "0x10:
/// expected a decimal integer from 1 to 4096".
std::int64_t parse_integer(std::string_view text, std::int64_t min, std::int64_t max);

/// Reads a finite decimal number from `min` to `max` (no hexadecimal, no
/// nan or inf). Throws std::invalid_argument as parse_integer does.
double parse_number(std::string_view text, double min, double max);

/// Reads "N" or "N0,N1,...": decimal integers from `min` to `max` joined by
/// single commas, without empty items or whitespace ("2," and " 2" are
/// refused). Throws std::invalid_argument naming the list, the item and the
/// range, the items called `what`: "'2,x': 'x' is not an endpoint count from
/// 1 to 256".
std::vector<std::int64_t> parse_integer_list(std::string_view text, std::int64_t min,
                                             std::int64_t max, std::string_view what);

/// The check for an integer option, given with Option::transform (check()
/// would discard the rewriting): its value must be what parse_integer
/// accepts, and is handed on to CLI11's conversion in canonical decimal form
/// (so that "010" reaches it as 10, not as octal 8). The option's target
/// must hold `max`. CLI11 prefixes the option's name to the message.
CLI::Validator integer_in(std::int64_t min, std::int64_t max);

/// The check for a floating option: what parse_number accepts.
CLI::Validator number_in(double min, double max);

/// integer_in over the whole range of the option's type from `min`.
template <class T>
CLI::Validator integer_at_least(T min) {
  static_assert(std::numeric_limits<T>::is_integer && std::numeric_limits<T>::is_signed);
  return integer_in(min, std::numeric_limits<T>::max());
}

}  // namespace ep::tools
