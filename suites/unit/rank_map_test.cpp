#include "ranks/rank_map.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ep::detail {
namespace {

TEST(RankMap, FromCountsOrdersByProcessThenIndex) {
  const std::vector<int> counts{2, 0, 3};
  const RankMap map = RankMap::from_counts(counts);
  ASSERT_EQ(map.size(), 5);
  EXPECT_EQ(map.num_processes(), 3);
  EXPECT_EQ(map.max_per_process(), 3);
  const std::vector<Location> expected{{0, 0}, {0, 1}, {2, 0}, {2, 1}, {2, 2}};
  for (int r = 0; r < map.size(); ++r) {
    EXPECT_EQ(map.at(r), expected[static_cast<std::size_t>(r)]) << "rank " << r;
    EXPECT_EQ(map.rank_of(map.at(r).mpi_rank, map.at(r).local_rank), r);
  }
  EXPECT_EQ(map.count_on(0), 2);
  EXPECT_EQ(map.count_on(1), 0);
  EXPECT_EQ(map.count_on(2), 3);
}

TEST(RankMap, FromCountsOneEach) {
  const std::vector<int> counts{1, 1, 1, 1};
  const RankMap map = RankMap::from_counts(counts);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(map.at(r), (Location{r, 0}));
  EXPECT_EQ(map.max_per_process(), 1);
}

TEST(RankMap, FromCountsEmpty) {
  const std::vector<int> counts{0, 0};
  const RankMap map = RankMap::from_counts(counts);
  EXPECT_EQ(map.size(), 0);
  EXPECT_EQ(map.max_per_process(), 0);
}

TEST(RankMap, FromLocationsAllowsInterleavedRanks) {
  // Ranks 0 and 2 on process 0, rank 1 on process 1: what a split by key makes.
  std::string why;
  auto map = RankMap::from_locations({{0, 1}, {1, 0}, {0, 0}}, 2, &why);
  ASSERT_TRUE(map) << why;
  EXPECT_EQ(map->rank_of(0, 0), 2);
  EXPECT_EQ(map->rank_of(0, 1), 0);
  EXPECT_EQ(map->rank_of(1, 0), 1);
  const std::vector<int> on0(map->ranks_on(0).begin(), map->ranks_on(0).end());
  EXPECT_EQ(on0, (std::vector<int>{2, 0}));
}

TEST(RankMap, FromLocationsRejectsDuplicates) {
  std::string why;
  EXPECT_FALSE(RankMap::from_locations({{0, 0}, {0, 0}}, 1, &why));
  EXPECT_NE(why.find("both local endpoint 0"), std::string::npos) << why;
}

TEST(RankMap, FromLocationsRejectsHolesAndBadProcesses) {
  std::string why;
  EXPECT_FALSE(RankMap::from_locations({{0, 1}}, 1, &why));
  EXPECT_NE(why.find("no local endpoint 0"), std::string::npos) << why;
  EXPECT_FALSE(RankMap::from_locations({{3, 0}}, 2, &why));
  EXPECT_FALSE(RankMap::from_locations({{0, -1}}, 2, &why));
}

}  // namespace
}  // namespace ep::detail
