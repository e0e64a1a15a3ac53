#include "ranks/split_map.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace ep::detail {
namespace {

const std::vector<int> kTwoByTwo{2, 2};

TEST(SplitMap, WorkedExampleOfTheHeader) {
  const RankMap old = RankMap::from_counts(kTwoByTwo);
  std::vector<SplitArgs> args;
  for (int r = 0; r < 4; ++r) args.push_back({r % 2, -r});
  const auto groups = split_groups(old, args, MPI_UNDEFINED);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].color, 0);
  EXPECT_EQ(groups[0].members, (std::vector<int>{2, 0}));
  EXPECT_EQ(groups[0].processes, (std::vector<int>{0, 1}));
  EXPECT_EQ(groups[0].map.at(0), (Location{1, 0}));
  EXPECT_EQ(groups[0].map.at(1), (Location{0, 0}));
  EXPECT_EQ(groups[1].members, (std::vector<int>{3, 1}));
}

TEST(SplitMap, TiesBreakByOldRankAcrossProcesses) {
  // Old ranks 0..5 over 3 processes; all the same key: old order kept,
  // even though process 2's endpoints come before nobody.
  const std::vector<int> counts{1, 3, 2};
  const RankMap old = RankMap::from_counts(counts);
  std::vector<SplitArgs> args(6, {7, 42});
  const auto groups = split_groups(old, args, MPI_UNDEFINED);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(groups[0].map.at(3), (Location{1, 2}));
}

TEST(SplitMap, KeysInterleaveProcessesAndLocalRanksFollowNewRanks) {
  // Process 0 hosts old 0,1; process 1 hosts old 2,3. Keys put them
  // 3, 0, 2, 1: new ranks alternate between the processes.
  const RankMap old = RankMap::from_counts(kTwoByTwo);
  const std::vector<SplitArgs> args{{0, 1}, {0, 3}, {0, 2}, {0, 0}};
  const auto groups = split_groups(old, args, MPI_UNDEFINED);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members, (std::vector<int>{3, 0, 2, 1}));
  // new 0 = old 3 (process 1, its first member) ... new 3 = old 1 (process 0, second)
  EXPECT_EQ(groups[0].map.at(0), (Location{1, 0}));
  EXPECT_EQ(groups[0].map.at(1), (Location{0, 0}));
  EXPECT_EQ(groups[0].map.at(2), (Location{1, 1}));
  EXPECT_EQ(groups[0].map.at(3), (Location{0, 1}));
}

TEST(SplitMap, UndefinedAndProcessesWithoutMembers) {
  const std::vector<int> counts{2, 1, 2};
  const RankMap old = RankMap::from_counts(counts);
  // Old rank 2 (process 1) is undefined: color 5 lives on processes 0 and 2
  // only, which become new MPI ranks 0 and 1.
  const std::vector<SplitArgs> args{{5, 0}, {5, 0}, {MPI_UNDEFINED, 0}, {5, -1}, {9, 0}};
  const auto groups = split_groups(old, args, MPI_UNDEFINED);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].members, (std::vector<int>{3, 0, 1}));
  EXPECT_EQ(groups[0].processes, (std::vector<int>{0, 2}));
  EXPECT_EQ(groups[0].map.at(0), (Location{1, 0}));
  EXPECT_EQ(groups[1].members, (std::vector<int>{4}));
  EXPECT_EQ(split_groups(old, args, MPI_UNDEFINED, 1).size(), 0u);  // process 1 takes no part
  EXPECT_EQ(split_groups(old, args, MPI_UNDEFINED, 2).size(), 2u);
}

}  // namespace
}  // namespace ep::detail
