#include "ranks/tag_layout.hpp"

#include <gtest/gtest.h>

#include <climits>

namespace ep::detail {
namespace {

TEST(TagLayout, OpenMpiRangeWithThreeEndpoints) {
  auto layout = TagLayout::make(INT_MAX, 3);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->channels(), 1);
  EXPECT_EQ(layout->per_channel(), 3);
  EXPECT_EQ(layout->dest_bits(), 2);
  EXPECT_EQ(layout->source_bits(), 2);
  EXPECT_EQ(layout->user_bits(), 27);
  EXPECT_EQ(layout->user_tag_ub(), (1 << 27) - 1);
  EXPECT_EQ(layout->encode({1, 2, 5}), (1 << 29) | (2 << 27) | 5);
}

TEST(TagLayout, OneEndpointPerProcessNeedsNoEnvelopeBits) {
  auto layout = TagLayout::make(INT_MAX, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->channels(), 1);
  EXPECT_EQ(layout->source_bits(), 0);
  EXPECT_EQ(layout->dest_bits(), 0);
  EXPECT_EQ(layout->user_tag_ub(), INT_MAX);
}

TEST(TagLayout, OneChannelWhileTheTagRangeAllows) {
  // Open MPI: 31 bits, 16 of them beyond the 15 users are owed.
  for (int eps : {2, 64, 256}) {
    auto layout = TagLayout::make(INT_MAX, eps);
    ASSERT_TRUE(layout) << eps;
    EXPECT_EQ(layout->channels(), 1) << eps;
  }
  // MPICH 4.0: 28 bits. 64 endpoints take 6 + 6 bits and leave 16.
  auto mpich64 = TagLayout::make((1 << 28) - 1, 64);
  ASSERT_TRUE(mpich64);
  EXPECT_EQ(mpich64->channels(), 1);
  EXPECT_EQ(mpich64->user_bits(), 16);
}

TEST(TagLayout, MoreChannelsOnlyWhenTheDestinationBitsRunOut) {
  // MPICH 4.0, 256 endpoints: 8 source bits leave 5 for the destination,
  // 32 endpoints per channel, 8 channels; users keep 15 bits.
  auto layout = TagLayout::make((1 << 28) - 1, 256);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->channels(), 8);
  EXPECT_EQ(layout->per_channel(), 32);
  EXPECT_EQ(layout->user_bits(), 15);
  // Open MPI, 1000 endpoints: 10 source bits leave 6: 64 per channel.
  auto many = TagLayout::make(INT_MAX, 1000);
  ASSERT_TRUE(many);
  EXPECT_EQ(many->channels(), 16);
  EXPECT_EQ(many->per_channel(), 63);
  // Every local endpoint has a channel and a slot, and they map back.
  for (int local = 0; local < 1000; ++local) {
    EXPECT_LT(many->channel_of(local), many->channels());
    EXPECT_EQ(many->local_of(many->channel_of(local), many->slot_of(local)), local);
  }
}

TEST(TagLayout, RoundTripsEveryFieldAtItsLimits) {
  for (int tag_ub : {INT_MAX, (1 << 28) - 1, (1 << 23) - 1}) {
    for (int eps : {1, 2, 3, 7, 8, 64, 100}) {
      auto layout = TagLayout::make(tag_ub, eps);
      ASSERT_TRUE(layout) << tag_ub << " " << eps;
      for (int local : {0, eps - 1}) {
        for (int dest : {0, eps - 1}) {
          for (int tag : {0, 1, layout->user_tag_ub()}) {
            const Envelope e{layout->slot_of(dest), local, tag};
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
  // 99999 holds every value below 2^16, so 16 bits are usable: 16 user
  // bits for one endpoint per process; for two, a source bit and 15 user
  // bits, with no room for a destination bit: a channel per endpoint.
  auto layout = TagLayout::make(99999, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->source_bits() + layout->user_bits(), 16);
  EXPECT_EQ(layout->user_tag_ub(), 65535);
  auto two = TagLayout::make(99999, 2);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->user_tag_ub(), 32767);
  EXPECT_EQ(two->channels(), 2);
  EXPECT_LE(two->encode({0, 1, 32767}), 99999);
  EXPECT_FALSE(TagLayout::make(99999, 3));
}

TEST(TagLayout, RefusesMoreChannelsThanTheCap) {
  // Open MPI's 31 bits: 4096 endpoints take 12 source bits, leaving 4
  // destination bits, 16 slots per channel: 256 channels, the most allowed.
  auto open_mpi = TagLayout::make(INT_MAX, 4096);
  ASSERT_TRUE(open_mpi);
  EXPECT_EQ(open_mpi->channels(), TagLayout::kMaxChannels);
  EXPECT_FALSE(TagLayout::make(INT_MAX, 4097));   // 13 source bits: 513 channels
  EXPECT_FALSE(TagLayout::make(INT_MAX, 32769));  // MPI ran out of communicators making them
  auto mpich = TagLayout::make((1 << 28) - 1, 1024);
  ASSERT_TRUE(mpich);
  EXPECT_EQ(mpich->channels(), 128);
  EXPECT_FALSE(TagLayout::make((1 << 28) - 1, 1025));  // 257 channels
}

TEST(TagLayout, NamesTheLargestEndpointCountItAccepts) {
  for (int tag_ub : {INT_MAX, (1 << 28) - 1, (1 << 23) - 1, 99999, 65535, 32767}) {
    const int most = TagLayout::max_endpoints_per_process(tag_ub);
    EXPECT_TRUE(TagLayout::make(tag_ub, most)) << tag_ub;
    EXPECT_FALSE(TagLayout::make(tag_ub, most + 1)) << tag_ub;
  }
  EXPECT_EQ(TagLayout::max_endpoints_per_process(INT_MAX), 4096);
  EXPECT_EQ(TagLayout::max_endpoints_per_process((1 << 28) - 1), 1024);
  EXPECT_EQ(TagLayout::max_endpoints_per_process(65535), 2);
  EXPECT_EQ(TagLayout::max_endpoints_per_process(32767), 1);
  EXPECT_EQ(TagLayout::max_endpoints_per_process(0), 0);
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
