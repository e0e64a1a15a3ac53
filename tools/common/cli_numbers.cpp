#include "cli_numbers.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

namespace ep::tools {

namespace {

// The value as a message shows it: quoted when blanks would hide in it.
std::string shown(std::string_view text) {
  if (text.empty()) return "an empty value";
  const bool blank =
      std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; });
  return blank ? fmt::format("'{}'", text) : std::string(text);
}

std::string integer_expected(std::int64_t min, std::int64_t max) {
  return fmt::format("expected a decimal integer from {} to {}", min, max);
}

std::string number_expected(double min, double max) {
  return fmt::format("expected a finite number from {} to {}", min, max);
}

// from_chars takes no '+', which CLI11 took: "+5" stays allowed, "+-5" not.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+')
    text.remove_prefix(1);
  return text;
}

}  // namespace

std::int64_t parse_integer(std::string_view text, std::int64_t min, std::int64_t max) {
  const std::string_view digits = without_plus(text);
  std::int64_t value = 0;
  // Base 10 only: "010" is ten and "0x10" stops at the x. Overflow is an
  // error (errc::result_out_of_range), never a clamped value.
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() ||
      value < min || value > max)
    throw std::invalid_argument(fmt::format("{}: {}", shown(text), integer_expected(min, max)));
  return value;
}

double parse_number(std::string_view text, double min, double max) {
  const std::string_view digits = without_plus(text);
  double value = 0;
  // chars_format::general: decimal and exponent forms, no hexadecimal; nan
  // and inf parse but are not finite.
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                            std::chars_format::general);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() ||
      !std::isfinite(value) || value < min || value > max)
    throw std::invalid_argument(fmt::format("{}: {}", shown(text), number_expected(min, max)));
  return value;
}

std::vector<std::int64_t> parse_integer_list(std::string_view text, std::int64_t min,
                                             std::int64_t max, std::string_view what) {
  std::vector<std::int64_t> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    try {
      values.push_back(parse_integer(item, min, max));
    } catch (const std::invalid_argument&) {
      if (item.empty())
        throw std::invalid_argument(
            fmt::format("'{}': item {} is empty (expected {} from {} to {} after each comma)", text,
                        values.size() + 1, what, min, max));
      throw std::invalid_argument(fmt::format(
          "'{}': '{}' is not {} from {} to {} (a decimal integer)", text, item, what, min, max));
    }
    if (comma == text.size()) return values;
    start = comma + 1;
  }
}

CLI::Validator integer_in(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](std::string& input) -> std::string {
        try {
          input = std::to_string(parse_integer(input, min, max));
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      fmt::format("INT in [{} - {}]", min, max));
}

CLI::Validator number_in(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& input) -> std::string {
        try {
          (void)parse_number(input, min, max);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      fmt::format("FLOAT in [{} - {}]", min, max));
}

}  // namespace ep::tools
