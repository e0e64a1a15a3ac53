// Unit tests of the collectives' pure parts: how endpoints split a range of
// elements, and the memory a typed buffer covers for either sign of extent.
// (Which layouts are "block" is rank arithmetic: suites/unit.) No MPI
// processes are started.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "base/datatype.hpp"
#include "coll/elements.hpp"

namespace ep::detail {
namespace {

TEST(CollLayout, PartsCoverTheRangeOnceWithLineAlignedBoundaries) {
  TypeLayout ints{4, 4, 0, 4};
  for (const int count : {0, 1, 15, 16, 17, 1000, 12345}) {
    for (const int parts : {1, 2, 3, 7}) {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const ElementRange r = part_of(count, parts, p, ints);
        EXPECT_EQ(r.first, next) << count << " in " << parts;
        if (r.count > 0 && r.first + r.count < count) {
          EXPECT_EQ(r.count % 16, 0);  // 16 ints: a cache line
        }
        next = r.first + r.count;
      }
      EXPECT_EQ(next, count) << count << " in " << parts;
    }
  }
}

TEST(CollLayout, SmallWorkIsNotShared) {
  EXPECT_EQ(sharing_endpoints(1024, 4), 1);
  EXPECT_EQ(sharing_endpoints(1 << 20, 1), 1);
  EXPECT_EQ(sharing_endpoints(1 << 20, 4), 4);
  EXPECT_EQ(sharing_endpoints(64 * 1024, 8), 2);
}

TEST(CollLayout, FootprintCoversTrueExtentAndStride) {
  // 4 ints of data in a 5-int slot, starting 8 bytes into it.
  const TypeLayout padded{16, 20, 8, 16};
  const Footprint three = padded.footprint(3);
  EXPECT_EQ(three.bytes, std::size_t{2 * 20 + 16});
  EXPECT_EQ(three.offset, 8);
  EXPECT_EQ(padded.footprint(0).bytes, std::size_t{0});
}

TEST(CollLayout, FootprintOfANegativeExtentRunsDownwards) {
  // MPI_Type_create_resized(MPI_INT, 0, -4): element i at base - 4i, so
  // 3 elements cover [base - 8, base + 4).
  const TypeLayout reversed{4, -4, 0, 4};
  const Footprint three = reversed.footprint(3);
  EXPECT_EQ(three.offset, -8);
  EXPECT_EQ(three.bytes, std::size_t{12});
  // A vector of 2 ints with stride -2, resized to extent -12: its data lies
  // 8 bytes below each element's start.
  const TypeLayout vector{8, -12, -8, 12};
  const Footprint two = vector.footprint(2);
  EXPECT_EQ(two.offset, -8 - 12);
  EXPECT_EQ(two.bytes, std::size_t{12 + 12});
}

TEST(CollLayout, ElementsOfAScratchStayInsideItsFootprint) {
  // Every element of a scratch buffer, for either sign of extent and lower
  // bound, lies in the memory it owns; the base may lie outside it.
  for (const TypeLayout layout :
       {TypeLayout{4, 4, 0, 4}, TypeLayout{4, -4, 0, 4}, TypeLayout{8, 12, -8, 12},
        TypeLayout{8, -12, -8, 12}, TypeLayout{16, -20, 8, 16}}) {
    for (const int count : {1, 2, 7}) {
      const Footprint f = layout.footprint(count);
      auto memory = std::make_unique<std::byte[]>(f.bytes);
      const Typed buffer{typed_base(memory.get(), count, layout), count, MPI_BYTE, layout};
      for (int i = 0; i < count; ++i) {
        const auto* first = static_cast<std::byte*>(buffer.at(i)) + layout.true_lb;
        EXPECT_GE(first, memory.get()) << layout.extent << " x " << count;
        EXPECT_LE(first + layout.true_extent, memory.get() + f.bytes)
            << layout.extent << " x " << count;
      }
      // The same through TypedScratch, whose writes AddressSanitizer checks.
      const TypedScratch scratch(count, MPI_BYTE, layout);
      for (int i = 0; i < count; ++i) {
        auto* first = static_cast<std::byte*>(scratch.typed().at(i)) + layout.true_lb;
        std::fill(first, first + layout.true_extent, std::byte{1});
      }
    }
  }
}

}  // namespace
}  // namespace ep::detail
