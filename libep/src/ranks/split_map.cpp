#include "ranks/split_map.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace ep::detail {

std::vector<SplitGroup> split_groups(const RankMap& old, std::span<const SplitArgs> args,
                                     int undefined, int only_process) {
  std::map<int, std::vector<int>> by_color;  // ordered: groups come in ascending color
  for (int rank = 0; rank < static_cast<int>(args.size()); ++rank) {
    const int color = args[static_cast<std::size_t>(rank)].color;
    if (color != undefined) by_color[color].push_back(rank);
  }
  std::vector<SplitGroup> groups;
  for (auto& [color, members] : by_color) {
    SplitGroup g;
    g.color = color;
    g.members = std::move(members);
    // Stable sort on the key keeps old-rank order among equal keys.
    std::stable_sort(g.members.begin(), g.members.end(), [&](int a, int b) {
      return args[static_cast<std::size_t>(a)].key < args[static_cast<std::size_t>(b)].key;
    });
    for (int m : g.members) g.processes.push_back(old.at(m).mpi_rank);
    std::sort(g.processes.begin(), g.processes.end());
    g.processes.erase(std::unique(g.processes.begin(), g.processes.end()), g.processes.end());
    if (only_process >= 0 &&
        !std::binary_search(g.processes.begin(), g.processes.end(), only_process)) {
      continue;
    }
    std::vector<int> next_local(g.processes.size(), 0);
    std::vector<Location> locations;
    for (int m : g.members) {
      const auto it = std::lower_bound(g.processes.begin(), g.processes.end(), old.at(m).mpi_rank);
      const auto p = static_cast<std::size_t>(it - g.processes.begin());
      locations.push_back({static_cast<int>(p), next_local[p]++});
    }
    std::string why;
    g.map =
        *RankMap::from_locations(std::move(locations), static_cast<int>(g.processes.size()), &why);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace ep::detail
