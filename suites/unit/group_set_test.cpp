#include "ranks/group_set.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

namespace ep::detail {
namespace {

// The worked example of the header: A, B, C, D, E as identities.
constexpr std::int64_t A = 10, B = 11, C = 1LL << 32, D = (1LL << 32) + 1, E = 3;
const Members kA{A, B, C, D};
const Members kB{D, B, E};

TEST(GroupSet, WorkedExampleOfTheHeader) {
  EXPECT_EQ(group_union(kA, kB), (Members{A, B, C, D, E}));
  EXPECT_EQ(group_intersection(kA, kB), (Members{B, D}));
  EXPECT_EQ(group_difference(kA, kB), (Members{A, C}));
  std::vector<int> out;
  std::string why;
  const std::vector<int> ranks{1, 2, 3};
  ASSERT_EQ(translate_ranks(kA, ranks, kB, MPI_UNDEFINED, MPI_PROC_NULL, &out, &why),
            RanksError::none);
  EXPECT_EQ(out, (std::vector<int>{1, MPI_UNDEFINED, 0}));
  const std::vector<std::array<int, 3>> range{{3, 0, -2}};
  std::vector<int> expanded;
  ASSERT_EQ(expand_ranges(4, range, &expanded, &why), RanksError::none);
  EXPECT_EQ(group_incl(kA, expanded), (Members{D, B}));
}

TEST(GroupSet, UnionKeepsFirstOrderThenNewcomersInSecondOrder) {
  EXPECT_EQ(group_union(kB, kA), (Members{D, B, E, A, C}));
  EXPECT_EQ(group_union({}, kB), kB);
  EXPECT_EQ(group_union(kA, {}), kA);
  EXPECT_EQ(group_intersection(kB, kA), (Members{D, B}));
  EXPECT_TRUE(group_difference(kA, kA).empty());
}

TEST(GroupSet, CompareIdentSimilarUnequal) {
  EXPECT_EQ(compare_groups(kA, kA), GroupRelation::ident);
  EXPECT_EQ(compare_groups({}, {}), GroupRelation::ident);
  EXPECT_EQ(compare_groups(kA, (Members{D, C, B, A})), GroupRelation::similar);
  EXPECT_EQ(compare_groups(kA, (Members{A, B, C})), GroupRelation::unequal);
  EXPECT_EQ(compare_groups(kA, (Members{A, B, C, E})), GroupRelation::unequal);
}

TEST(GroupSet, InclExclAndTheirRanks) {
  const std::vector<int> ranks{3, 0};
  EXPECT_EQ(group_incl(kA, ranks), (Members{D, A}));
  EXPECT_EQ(group_excl(kA, ranks), (Members{B, C}));
  std::string why;
  EXPECT_EQ(check_ranks(4, ranks, &why), RanksError::none);
  const std::vector<int> out_of_range{0, 4};
  EXPECT_EQ(check_ranks(4, out_of_range, &why), RanksError::rank);
  EXPECT_NE(why.find("ranks[1] = 4"), std::string::npos) << why;
  const std::vector<int> negative{-1};
  EXPECT_EQ(check_ranks(4, negative, &why), RanksError::rank);
  const std::vector<int> twice{2, 1, 2};
  EXPECT_EQ(check_ranks(4, twice, &why), RanksError::rank);
  EXPECT_NE(why.find("twice"), std::string::npos) << why;
}

TEST(GroupSet, RangesWalkBothWaysAndRefuseBadTriplets) {
  std::vector<int> ranks;
  std::string why;
  const std::vector<std::array<int, 3>> two{{0, 5, 2}, {7, 6, -1}};
  ASSERT_EQ(expand_ranges(8, two, &ranks, &why), RanksError::none);
  EXPECT_EQ(ranks, (std::vector<int>{0, 2, 4, 7, 6}));
  const std::vector<std::array<int, 3>> single{{3, 3, -4}};
  ASSERT_EQ(expand_ranges(8, single, &ranks, &why), RanksError::none);
  EXPECT_EQ(ranks, (std::vector<int>{3}));
  for (const std::array<int, 3> bad :
       {std::array<int, 3>{0, 3, 0}, std::array<int, 3>{3, 1, 1}, std::array<int, 3>{1, 3, -1},
        std::array<int, 3>{0, 8, 1}, std::array<int, 3>{-1, 2, 1}}) {
    const std::vector<std::array<int, 3>> one{bad};
    EXPECT_EQ(expand_ranges(8, one, &ranks, &why), RanksError::arg)
        << bad[0] << "," << bad[1] << "," << bad[2];
  }
  const std::vector<std::array<int, 3>> overlapping{{0, 3, 1}, {3, 5, 1}};
  EXPECT_EQ(expand_ranges(8, overlapping, &ranks, &why), RanksError::arg);
  EXPECT_NE(why.find("twice"), std::string::npos) << why;
}

TEST(GroupSet, TranslateProcNullAndBadRanks) {
  std::vector<int> out;
  std::string why;
  const std::vector<int> ranks{MPI_PROC_NULL, 0};
  ASSERT_EQ(translate_ranks(kB, ranks, kA, MPI_UNDEFINED, MPI_PROC_NULL, &out, &why),
            RanksError::none);
  EXPECT_EQ(out, (std::vector<int>{MPI_PROC_NULL, 3}));
  // Into an empty group too (both reference MPIs say MPI_UNDEFINED there:
  // suites/harness/reference_mpi.hpp).
  ASSERT_EQ(translate_ranks(kB, ranks, {}, MPI_UNDEFINED, MPI_PROC_NULL, &out, &why),
            RanksError::none);
  EXPECT_EQ(out, (std::vector<int>{MPI_PROC_NULL, MPI_UNDEFINED}));
  const std::vector<int> bad{3};
  EXPECT_EQ(translate_ranks(kB, bad, kA, MPI_UNDEFINED, MPI_PROC_NULL, &out, &why),
            RanksError::rank);
  EXPECT_EQ(rank_in(kA, C), 2);
  EXPECT_EQ(rank_in(kB, C), -1);
}

}  // namespace
}  // namespace ep::detail
