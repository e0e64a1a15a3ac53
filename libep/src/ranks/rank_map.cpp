#include "ranks/rank_map.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ep::detail {

RankMap RankMap::from_counts(std::span<const int> counts) {
  RankMap map;
  map.ranks_on_.resize(counts.size());
  for (std::size_t p = 0; p < counts.size(); ++p) {
    for (int local = 0; local < counts[p]; ++local) {
      map.ranks_on_[p].push_back(map.size());
      map.locations_.push_back({static_cast<int>(p), local});
    }
    map.max_per_process_ = std::max(map.max_per_process_, counts[p]);
  }
  return map;
}

std::optional<RankMap> RankMap::from_locations(std::vector<Location> locations, int num_processes,
                                               std::string* why) {
  RankMap map;
  map.ranks_on_.resize(static_cast<std::size_t>(std::max(num_processes, 0)));
  std::vector<std::vector<int>>& on = map.ranks_on_;
  for (std::size_t rank = 0; rank < locations.size(); ++rank) {
    const Location loc = locations[rank];
    if (loc.mpi_rank < 0 || loc.mpi_rank >= num_processes || loc.local_rank < 0) {
      *why = fmt::format("rank {} is placed on process {} as local endpoint {}, outside 0..{}",
                         rank, loc.mpi_rank, loc.local_rank, num_processes - 1);
      return std::nullopt;
    }
    auto& slots = on[static_cast<std::size_t>(loc.mpi_rank)];
    if (slots.size() <= static_cast<std::size_t>(loc.local_rank)) {
      slots.resize(static_cast<std::size_t>(loc.local_rank) + 1, -1);
    }
    int& slot = slots[static_cast<std::size_t>(loc.local_rank)];
    if (slot != -1) {
      *why = fmt::format("ranks {} and {} are both local endpoint {} of process {}", slot, rank,
                         loc.local_rank, loc.mpi_rank);
      return std::nullopt;
    }
    slot = static_cast<int>(rank);
  }
  for (std::size_t p = 0; p < on.size(); ++p) {
    auto hole = std::find(on[p].begin(), on[p].end(), -1);
    if (hole != on[p].end()) {
      *why = fmt::format("process {} has no local endpoint {} but has a higher one", p,
                         hole - on[p].begin());
      return std::nullopt;
    }
    map.max_per_process_ = std::max(map.max_per_process_, static_cast<int>(on[p].size()));
  }
  map.locations_ = std::move(locations);
  return map;
}

}  // namespace ep::detail
