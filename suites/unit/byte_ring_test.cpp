// The ring of records (base/byte_ring.hpp): order, payloads and lengths
// across many laps, a full ring, and a producer and a consumer thread.
#include "base/byte_ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

using ep::detail::RingConsumer;
using ep::detail::RingProducer;
using ep::detail::RingShared;

// Shared memory stand-in: zeroed, as MPI_Win_allocate_shared's is not
// promised to be but libep's setup makes it.
struct Ring {
  explicit Ring(std::size_t capacity)
      : memory(RingShared::footprint(capacity) / sizeof(RingShared) + 1),
        shared(new (memory.data()) RingShared),
        producer(shared, capacity),
        consumer(shared, capacity) {}
  std::vector<RingShared> memory;
  RingShared* shared;
  RingProducer producer;
  RingConsumer consumer;
};

// Record i: its length (any up to `max`, or exactly -max when max < 0), and
// its bytes (i and the offset, mixed).
std::uint32_t length_of(std::uint32_t i, std::int64_t max) {
  if (max < 0) return static_cast<std::uint32_t>(-max);
  return static_cast<std::uint32_t>((i * 2654435761u) % (max + 1));
}
unsigned char byte_of(std::uint32_t i, std::uint32_t k) {
  return static_cast<unsigned char>(i * 31 + k * 7 + 1);
}

bool put(RingProducer& p, std::uint32_t i, std::int64_t max) {
  const std::uint32_t length = length_of(i, max);
  auto* out = static_cast<unsigned char*>(p.reserve(length));
  if (!out) return false;
  for (std::uint32_t k = 0; k < length; ++k) out[k] = byte_of(i, k);
  p.publish();
  return true;
}

// Checks record i; false if none is there.
bool take(RingConsumer& c, std::uint32_t i, std::int64_t max) {
  std::uint32_t length = 0;
  const auto* in = static_cast<const unsigned char*>(c.peek(&length));
  if (!in) return false;
  EXPECT_EQ(length, length_of(i, max)) << "record " << i;
  for (std::uint32_t k = 0; k < length && k < length_of(i, max); ++k) {
    if (in[k] != byte_of(i, k)) {
      ADD_FAILURE() << "record " << i << " byte " << k;
      break;
    }
  }
  c.pop();
  return true;
}

// Nothing left to take, and the producer knows it.
void expect_empty(Ring& r) {
  std::uint32_t length = 0;
  EXPECT_EQ(r.consumer.peek(&length), nullptr);
  EXPECT_TRUE(r.producer.drained());
}

TEST(ByteRing, EmptyRingHasNothing) {
  Ring r(256);
  expect_empty(r);
}

TEST(ByteRing, RecordsComeOutInOrderOverManyLaps) {
  Ring r(1024);
  const std::uint32_t max = r.producer.max_length();
  EXPECT_EQ(max, 1024u / 4 - 16);
  for (std::uint32_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(put(r.producer, i, max));
    ASSERT_TRUE(take(r.consumer, i, max));
  }
  expect_empty(r);
}

TEST(ByteRing, FullRingRefusesUntilConsumed) {
  Ring r(256);
  std::uint32_t put_count = 0;
  while (put(r.producer, put_count, -8)) ++put_count;
  // 8-byte payloads take 32 bytes each: the whole ring, and no more.
  EXPECT_EQ(put_count, 256u / 32);
  EXPECT_FALSE(r.producer.drained());
  ASSERT_TRUE(take(r.consumer, 0, -8));
  // One record consumed is not yet published (a quarter of the ring is):
  // the producer still sees it full.
  EXPECT_FALSE(put(r.producer, put_count, -8));
  ASSERT_TRUE(take(r.consumer, 1, -8));
  EXPECT_TRUE(put(r.producer, put_count++, -8));
  for (std::uint32_t i = 2; i < put_count; ++i) ASSERT_TRUE(take(r.consumer, i, -8));
  expect_empty(r);
}

TEST(ByteRing, LargestRecordFitsAtEveryOffset) {
  Ring r(256);
  const std::uint32_t max = r.producer.max_length();
  for (std::uint32_t shift = 0; shift < 20; ++shift) {
    ASSERT_TRUE(put(r.producer, 3, 0));  // a 16-byte record moves the lap's end
    ASSERT_TRUE(take(r.consumer, 3, 0));
    auto* out = static_cast<unsigned char*>(r.producer.reserve(max));
    ASSERT_NE(out, nullptr) << "shift " << shift;
    std::memset(out, 0x5a, max);
    r.producer.publish();
    std::uint32_t length = 0;
    const auto* in = static_cast<const unsigned char*>(r.consumer.peek(&length));
    ASSERT_NE(in, nullptr);
    EXPECT_EQ(length, max);
    EXPECT_EQ(in[0], 0x5a);
    EXPECT_EQ(in[max - 1], 0x5a);
    r.consumer.pop();
  }
}

TEST(ByteRing, ProducerAndConsumerThreads) {
  for (std::size_t capacity : {256u, 4096u}) {
    Ring r(capacity);
    const std::uint32_t max = r.producer.max_length();
    const std::uint32_t n = 20000;
    std::thread producer([&] {
      for (std::uint32_t i = 0; i < n; ++i) {
        while (!put(r.producer, i, max)) std::this_thread::yield();
      }
    });
    for (std::uint32_t i = 0; i < n; ++i) {
      while (!take(r.consumer, i, max)) std::this_thread::yield();
      if (::testing::Test::HasFailure()) break;
    }
    producer.join();
    expect_empty(r);
  }
}

}  // namespace
