// The matching rules and the queue that holds posted receives and
// unexpected messages, without MPI processes.
#include <gtest/gtest.h>

#include <vector>

#include "base/intrusive_fifo.hpp"
#include "p2p/engine.hpp"

namespace ep::detail {
namespace {

TEST(Matching, WildcardsAndExactEnvelopes) {
  EXPECT_TRUE(matches(3, 7, 3, 7));
  EXPECT_FALSE(matches(3, 7, 2, 7));
  EXPECT_FALSE(matches(3, 7, 3, 8));
  EXPECT_TRUE(matches(MPI_ANY_SOURCE, 7, 5, 7));
  EXPECT_TRUE(matches(3, MPI_ANY_TAG, 3, 0));
  EXPECT_TRUE(matches(MPI_ANY_SOURCE, MPI_ANY_TAG, 9, 12345));
  EXPECT_FALSE(matches(MPI_ANY_SOURCE, 7, 5, 8));
}

struct Item {
  Item* next = nullptr;
  int source;
  int tag;
  int seq;
};

TEST(IntrusiveFifo, TakesTheFirstMatchAndKeepsOrder) {
  std::vector<Item> items{
      {nullptr, 0, 1, 0}, {nullptr, 1, 1, 1}, {nullptr, 0, 2, 2}, {nullptr, 0, 1, 3}};
  IntrusiveFifo<Item> q;
  for (Item& i : items) q.push_back(&i);
  auto from = [](int s, int t) {
    return [s, t](const Item& i) { return matches(s, t, i.source, i.tag); };
  };
  EXPECT_EQ(q.find_first(from(0, 1))->seq, 0);
  EXPECT_EQ(q.take_first(from(0, 1))->seq, 0);
  EXPECT_EQ(q.take_first(from(0, 1))->seq, 3);  // non-overtaking: 0 before 3
  EXPECT_EQ(q.take_first(from(0, 1)), nullptr);
  EXPECT_EQ(q.take_first(from(MPI_ANY_SOURCE, MPI_ANY_TAG))->seq, 1);
  EXPECT_EQ(q.pop_front()->seq, 2);
  EXPECT_TRUE(q.empty());
}

TEST(IntrusiveFifo, RemoveAtHeadMiddleAndTailKeepsTheQueueUsable) {
  std::vector<Item> items(5);
  IntrusiveFifo<Item> q;
  for (int i = 0; i < 5; ++i) {
    items[static_cast<std::size_t>(i)].seq = i;
    q.push_back(&items[static_cast<std::size_t>(i)]);
  }
  EXPECT_TRUE(q.remove(&items[4]));  // tail
  EXPECT_TRUE(q.remove(&items[0]));  // head
  EXPECT_TRUE(q.remove(&items[2]));  // middle
  EXPECT_FALSE(q.remove(&items[2]));
  Item late{nullptr, 0, 0, 9};
  q.push_back(&late);  // the tail must have moved back correctly
  std::vector<int> order;
  while (Item* i = q.pop_front()) order.push_back(i->seq);
  EXPECT_EQ(order, (std::vector<int>{1, 3, 9}));
}

}  // namespace
}  // namespace ep::detail
