#include "ranks/inter_map.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ep::detail {
namespace {

TEST(InterMap, WorkedExampleOfTheHeader) {
  const std::vector<int> a{0, 1, 1};
  const std::vector<int> b{1, 2};
  const InterLayout layout = inter_layout(a, b);
  EXPECT_EQ(layout.processes, (std::vector<int>{0, 1, 2}));
  const std::vector<Location> expected{{0, 0}, {1, 0}, {1, 1}, {1, 2}, {2, 0}};
  for (int u = 0; u < 5; ++u) EXPECT_EQ(layout.map.at(u), expected[static_cast<std::size_t>(u)]);
  EXPECT_EQ(layout.members[0], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(layout.members[1], (std::vector<int>{3, 4}));
  EXPECT_EQ(layout.rank_in_group, (std::vector<int>{0, 1, 2, 0, 1}));
  EXPECT_EQ(layout.group_of, (std::vector<int>{0, 0, 0, 1, 1}));

  std::vector<int> new_rank_of;
  const RankMap merged = merge_map(layout, /*low=*/1, &new_rank_of);
  EXPECT_EQ(new_rank_of, (std::vector<int>{2, 3, 4, 0, 1}));
  EXPECT_EQ(merged.at(0), (Location{1, 0}));  // B0
  EXPECT_EQ(merged.at(3), (Location{1, 1}));  // A1
  EXPECT_EQ(merged.at(4), (Location{1, 2}));  // A2
  EXPECT_EQ(merged.at(2), (Location{0, 0}));  // A0
}

TEST(InterMap, DisjointProcessesKeepWorldOrder) {
  const std::vector<int> a{3, 3};
  const std::vector<int> b{0};
  const InterLayout layout = inter_layout(a, b);
  EXPECT_EQ(layout.processes, (std::vector<int>{0, 3}));
  EXPECT_EQ(layout.map.at(0), (Location{1, 0}));
  EXPECT_EQ(layout.map.at(1), (Location{1, 1}));
  EXPECT_EQ(layout.map.at(2), (Location{0, 0}));
  std::vector<int> new_rank_of;
  const RankMap low_first = merge_map(layout, 0, &new_rank_of);
  EXPECT_EQ(new_rank_of, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(low_first.at(2), (Location{0, 0}));
}

}  // namespace
}  // namespace ep::detail
