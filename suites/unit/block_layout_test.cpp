// Unit tests of ranks/block_layout: which layouts are "block" (ranks
// numbered process by process, where the hierarchical reductions keep rank
// order) and the process order the collectives' leaders use. No MPI.
#include "ranks/block_layout.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ranks/rank_map.hpp"

namespace ep::detail {
namespace {

RankMap map_of(std::vector<Location> locations, int processes) {
  std::string why;
  auto map = RankMap::from_locations(std::move(locations), processes, &why);
  EXPECT_TRUE(map.has_value()) << why;
  return *map;
}

TEST(BlockLayout, CreationOrderIsBlock) {
  const std::vector<int> counts{2, 1, 3};
  EXPECT_TRUE(is_block_layout(RankMap::from_counts(counts)));
  const std::vector<int> one{4};
  EXPECT_TRUE(is_block_layout(RankMap::from_counts(one)));
}

TEST(BlockLayout, InterleavedRanksAreNotBlock) {
  // Ranks 0 and 2 on process 0, rank 1 on process 1 (after a split by key).
  EXPECT_FALSE(is_block_layout(map_of({{0, 0}, {1, 0}, {0, 1}}, 2)));
}

TEST(BlockLayout, ContiguousButReversedIsNotBlock) {
  // Process 0's ranks in decreasing local order.
  EXPECT_FALSE(is_block_layout(map_of({{0, 1}, {0, 0}, {1, 0}}, 2)));
  // Blocks of consecutive ranks, but process 1 holds the lower ones.
  EXPECT_FALSE(is_block_layout(map_of({{1, 0}, {1, 1}, {0, 0}}, 2)));
}

TEST(BlockLayout, ProcessOrderPlacesRanksByProcessThenLocalRank) {
  // The worked example of ranks/block_layout.hpp: ranks 0..4 on processes 0 1 2 0 2.
  const RankMap map = map_of({{0, 0}, {1, 0}, {2, 0}, {0, 1}, {2, 1}}, 3);
  const ProcessOrder order(map);
  EXPECT_EQ(order.first(0), 0);
  EXPECT_EQ(order.first(1), 2);
  EXPECT_EQ(order.first(2), 3);
  const std::vector<int> slots{0, 2, 3, 1, 4};
  for (int r = 0; r < map.size(); ++r)
    EXPECT_EQ(order.slot_of(r), slots[static_cast<std::size_t>(r)]);
}

}  // namespace
}  // namespace ep::detail
