#include "sizes.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace ep::bench {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::int64_t multiplier(std::string_view suffix) {
  const std::string s = lower(suffix);
  if (s.empty() || s == "b") return 1;
  for (const auto& [names, factor] :
       {std::pair{std::vector<std::string>{"k", "kb", "ki", "kib"}, std::int64_t{1} << 10},
        std::pair{std::vector<std::string>{"m", "mb", "mi", "mib"}, std::int64_t{1} << 20},
        std::pair{std::vector<std::string>{"g", "gb", "gi", "gib"}, std::int64_t{1} << 30}}) {
    if (std::find(names.begin(), names.end(), s) != names.end()) return factor;
  }
  return 0;
}

std::int64_t parse_count(std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty())
    throw std::invalid_argument(fmt::format("'{}' is not a {}", text, what));
  return value;
}

// Appends lo, lo*f, ... (or lo, lo+s, ...) up to hi.
void expand_range(std::string_view item, std::vector<std::int64_t>& out) {
  const auto first = item.find(':');
  const auto second = item.find(':', first + 1);
  const std::int64_t lo = parse_size(item.substr(0, first));
  const std::int64_t hi = parse_size(
      item.substr(first + 1, second == std::string_view::npos ? second : second - first - 1));
  std::string_view step = second == std::string_view::npos ? "x2" : item.substr(second + 1);
  if (lo > hi) throw std::invalid_argument(fmt::format("range '{}' ends below its start", item));
  const bool multiply = !step.empty() && (step.front() == 'x' || step.front() == '*');
  const bool add = !step.empty() && step.front() == '+';
  if (!multiply && !add)
    throw std::invalid_argument(
        fmt::format("range '{}': the step must be xF (multiply) or +S (add), e.g. 1:4M:x2", item));
  const std::int64_t by =
      multiply ? parse_count(step.substr(1), "factor") : parse_size(step.substr(1));
  if (multiply && (by < 2 || lo == 0))
    throw std::invalid_argument(fmt::format(
        "range '{}': a multiplying range needs a factor of at least 2 and a start above 0", item));
  if (add && by < 1)
    throw std::invalid_argument(fmt::format("range '{}': the step must be at least 1", item));
  // Stop before the next step would pass hi, without ever overflowing.
  for (std::int64_t size = lo;; size = multiply ? size * by : size + by) {
    out.push_back(size);
    if (multiply ? size > hi / by : size > hi - by) break;
  }
}

}  // namespace

std::int64_t parse_size(std::string_view text) {
  const auto digits_end =
      std::find_if(text.begin(), text.end(), [](unsigned char c) { return !std::isdigit(c); });
  const auto digits = text.substr(0, static_cast<std::size_t>(digits_end - text.begin()));
  const auto suffix = text.substr(digits.size());
  const std::int64_t factor = multiplier(suffix);
  if (digits.empty() || factor == 0 || digits.size() > 12)
    throw std::invalid_argument(
        fmt::format("'{}' is not a size (expected e.g. 8, 1K, 64KiB, 4M)", text));
  const std::int64_t bytes = parse_count(digits, "size") * factor;
  if (bytes > max_message_bytes)
    throw std::invalid_argument(fmt::format("'{}' is larger than the largest message, {}", text,
                                            format_size(max_message_bytes)));
  return bytes;
}

std::vector<std::int64_t> parse_size_list(std::string_view text) {
  std::vector<std::int64_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const auto item = text.substr(start, end - start);
    if (item.empty())
      throw std::invalid_argument(fmt::format("empty item in size list '{}'", text));
    if (item.find(':') != std::string_view::npos)
      expand_range(item, sizes);
    else
      sizes.push_back(parse_size(item));
    start = end + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string format_size(std::int64_t bytes) {
  constexpr std::pair<std::int64_t, char> units[] = {
      {1 << 30, 'G'}, {1 << 20, 'M'}, {1 << 10, 'K'}};
  for (const auto& [unit, letter] : units) {
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, letter);
  }
  return fmt::format("{}", bytes);
}

}  // namespace ep::bench
