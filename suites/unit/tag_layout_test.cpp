#include "ranks/tag_layout.hpp"

#include <gtest/gtest.h>

#include <climits>

namespace ep::detail {
namespace {

TEST(TagLayout, OpenMpiRangeWithThreeEndpoints) {
  auto layout = TagLayout::make(INT_MAX, 3);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits(), 2);
  EXPECT_EQ(layout->user_bits(), 28);
  EXPECT_EQ(layout->user_tag_ub(), (1 << 28) - 1);
  EXPECT_EQ(layout->encode({true, 2, 5}), (1 << 30) | (2 << 28) | 5);
}

TEST(TagLayout, OneEndpointPerProcessNeedsNoSourceBits) {
  auto layout = TagLayout::make(INT_MAX, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits(), 0);
  EXPECT_EQ(layout->user_tag_ub(), (1 << 30) - 1);
}

TEST(TagLayout, RoundTripsEveryFieldAtItsLimits) {
  for (int tag_ub : {INT_MAX, (1 << 23) - 1}) {
    for (int eps : {1, 2, 3, 7, 8, 64}) {
      auto layout = TagLayout::make(tag_ub, eps);
      ASSERT_TRUE(layout) << tag_ub << " " << eps;
      for (bool sync : {false, true}) {
        for (int local : {0, eps - 1}) {
          for (int tag : {0, 1, layout->user_tag_ub()}) {
            const Envelope e{sync, local, tag};
            const int mpi_tag = layout->encode(e);
            EXPECT_GE(mpi_tag, 0);
            EXPECT_LE(mpi_tag, tag_ub) << "tag_ub " << tag_ub << " eps " << eps;
            EXPECT_EQ(layout->decode(mpi_tag), e);
          }
        }
      }
    }
  }
}

TEST(TagLayout, NonPowerOfTwoBoundUsesOnlyWholeBits) {
  // 99999 holds every value below 2^16, so 16 bits are usable: the sync
  // bit and 15 user bits, and no room for a second endpoint per process.
  auto layout = TagLayout::make(99999, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits() + layout->user_bits() + 1, 16);
  EXPECT_EQ(layout->user_tag_ub(), 32767);
  EXPECT_LE(layout->encode({true, 0, 32767}), 99999);
  EXPECT_FALSE(TagLayout::make(99999, 2));
}

TEST(TagLayout, RefusesWhenUsersWouldGetLessThanMpiMinimum) {
  EXPECT_FALSE(TagLayout::make(32767, 2));  // 15 bits in all: no room
  EXPECT_TRUE(TagLayout::make(65535, 1));   // 16 bits: sync + 15 user bits
  EXPECT_FALSE(TagLayout::make(65535, 2));
  EXPECT_FALSE(TagLayout::make(0, 1));
}

}  // namespace
}  // namespace ep::detail
