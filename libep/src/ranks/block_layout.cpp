#include "ranks/block_layout.hpp"

namespace ep::detail {

bool is_block_layout(const RankMap& map) {
  int next = 0;
  for (int p = 0; p < map.num_processes(); ++p) {
    for (const int rank : map.ranks_on(p)) {
      if (rank != next++) return false;
    }
  }
  return true;
}

ProcessOrder::ProcessOrder(const RankMap& map)
    : first_(static_cast<std::size_t>(map.num_processes()) + 1, 0),
      slot_(static_cast<std::size_t>(map.size()), 0) {
  for (int p = 0; p < map.num_processes(); ++p) {
    const auto ranks = map.ranks_on(p);
    first_[static_cast<std::size_t>(p) + 1] =
        first_[static_cast<std::size_t>(p)] + static_cast<int>(ranks.size());
    for (std::size_t l = 0; l < ranks.size(); ++l) {
      slot_[static_cast<std::size_t>(ranks[l])] =
          first_[static_cast<std::size_t>(p)] + static_cast<int>(l);
    }
  }
}

}  // namespace ep::detail
