#include "ranks/inter_map.hpp"

#include <algorithm>
#include <string>

namespace ep::detail {

namespace {

// Locations for endpoints listed in the order that numbers their local
// indices: each process counts its own.
std::vector<Location> place(const std::vector<int>& processes,
                            std::span<const int> hosts_in_order) {
  std::vector<int> next_local(processes.size(), 0);
  std::vector<Location> locations;
  locations.reserve(hosts_in_order.size());
  for (int host : hosts_in_order) {
    const auto p = static_cast<std::size_t>(
        std::lower_bound(processes.begin(), processes.end(), host) - processes.begin());
    locations.push_back({static_cast<int>(p), next_local[p]++});
  }
  return locations;
}

}  // namespace

InterLayout inter_layout(std::span<const int> first_hosts, std::span<const int> second_hosts) {
  InterLayout layout;
  std::vector<int> hosts(first_hosts.begin(), first_hosts.end());
  hosts.insert(hosts.end(), second_hosts.begin(), second_hosts.end());
  layout.processes = hosts;
  std::sort(layout.processes.begin(), layout.processes.end());
  layout.processes.erase(std::unique(layout.processes.begin(), layout.processes.end()),
                         layout.processes.end());
  std::string why;
  layout.map = *RankMap::from_locations(place(layout.processes, hosts),
                                        static_cast<int>(layout.processes.size()), &why);
  const int first = static_cast<int>(first_hosts.size());
  for (int u = 0; u < static_cast<int>(hosts.size()); ++u) {
    const int g = u < first ? 0 : 1;
    layout.group_of.push_back(g);
    layout.rank_in_group.push_back(g == 0 ? u : u - first);
    layout.members[g].push_back(u);
  }
  return layout;
}

RankMap merge_map(const InterLayout& layout, int low, std::vector<int>* new_rank_of) {
  std::vector<int> order(layout.members[low]);
  order.insert(order.end(), layout.members[1 - low].begin(), layout.members[1 - low].end());
  new_rank_of->assign(order.size(), -1);
  std::vector<int> hosts;
  for (std::size_t n = 0; n < order.size(); ++n) {
    (*new_rank_of)[static_cast<std::size_t>(order[n])] = static_cast<int>(n);
    hosts.push_back(layout.map.at(order[n]).mpi_rank);
  }
  // The carrier's ranks are positions in `processes`, so place() over
  // 0..P-1 keeps them.
  std::vector<int> carrier(layout.processes.size());
  for (std::size_t p = 0; p < carrier.size(); ++p) carrier[p] = static_cast<int>(p);
  std::string why;
  return *RankMap::from_locations(place(carrier, hosts), static_cast<int>(carrier.size()), &why);
}

}  // namespace ep::detail
