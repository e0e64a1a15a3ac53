#include "ranks/tag_layout.hpp"

#include <gtest/gtest.h>

#include <climits>

namespace ep::detail {
namespace {

TEST(TagLayout, OpenMpiRangeWithThreeEndpoints) {
  auto layout = TagLayout::make(INT_MAX, 3);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits(), 2);
  EXPECT_EQ(layout->user_bits(), 29);
  EXPECT_EQ(layout->user_tag_ub(), (1 << 29) - 1);
  EXPECT_EQ(layout->encode({2, 5}), (2 << 29) | 5);
}

TEST(TagLayout, OneEndpointPerProcessNeedsNoSourceBits) {
  auto layout = TagLayout::make(INT_MAX, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits(), 0);
  EXPECT_EQ(layout->user_tag_ub(), INT_MAX);
}

TEST(TagLayout, RoundTripsEveryFieldAtItsLimits) {
  for (int tag_ub : {INT_MAX, (1 << 23) - 1}) {
    for (int eps : {1, 2, 3, 7, 8, 64}) {
      auto layout = TagLayout::make(tag_ub, eps);
      ASSERT_TRUE(layout) << tag_ub << " " << eps;
      for (int local : {0, eps - 1}) {
        for (int tag : {0, 1, layout->user_tag_ub()}) {
          const Envelope e{local, tag};
          const int mpi_tag = layout->encode(e);
          EXPECT_GE(mpi_tag, 0);
          EXPECT_LE(mpi_tag, tag_ub) << "tag_ub " << tag_ub << " eps " << eps;
          EXPECT_EQ(layout->decode(mpi_tag), e);
        }
      }
    }
  }
}

TEST(TagLayout, NonPowerOfTwoBoundUsesOnlyWholeBits) {
  // 99999 holds every value below 2^16, so 16 bits are usable: 16 user
  // bits for one endpoint per process, 15 and a source bit for two, and no
  // room for a third.
  auto layout = TagLayout::make(99999, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits() + layout->user_bits(), 16);
  EXPECT_EQ(layout->user_tag_ub(), 65535);
  auto two = TagLayout::make(99999, 2);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->user_tag_ub(), 32767);
  EXPECT_LE(two->encode({1, 32767}), 99999);
  EXPECT_FALSE(TagLayout::make(99999, 3));
}

TEST(TagLayout, RefusesWhenUsersWouldGetLessThanMpiMinimum) {
  EXPECT_FALSE(TagLayout::make(32767, 2));  // 15 bits in all: no room for a source bit
  EXPECT_TRUE(TagLayout::make(32767, 1));   // 15 user bits
  EXPECT_TRUE(TagLayout::make(65535, 2));   // 16 bits: a source bit + 15 user bits
  EXPECT_FALSE(TagLayout::make(65535, 3));
  EXPECT_FALSE(TagLayout::make(0, 1));
}

}  // namespace
}  // namespace ep::detail
