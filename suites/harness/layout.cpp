#include "layout.hpp"

#include <fmt/format.h>

#include <charconv>
#include <numeric>

namespace eptest {

int Layout::total() const { return std::accumulate(per_process.begin(), per_process.end(), 0); }

int Layout::first_rank(int process) const {
  return std::accumulate(per_process.begin(), per_process.begin() + process, 0);
}

Layout parse_layout(std::string_view text, int processes) {
  Layout layout;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int value = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || value < 0) {
      layout.error =
          fmt::format("layout '{}': '{}' is not a non-negative endpoint count", text, item);
      return layout;
    }
    layout.per_process.push_back(value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (layout.per_process.size() == 1) {
    layout.per_process.assign(static_cast<std::size_t>(processes), layout.per_process.front());
  }
  if (static_cast<int>(layout.per_process.size()) != processes) {
    layout.error = fmt::format("layout '{}' lists {} processes but the job has {}", text,
                               layout.per_process.size(), processes);
  } else if (layout.total() == 0) {
    layout.error = fmt::format("layout '{}' has no endpoints at all", text);
  }
  return layout;
}

}  // namespace eptest
