// The matching rules and the queue that holds posted receives and
// unexpected messages, without MPI processes.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "base/intrusive_fifo.hpp"
#include "object/posted_queue.hpp"
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

// Receives of `count` MPI_BYTEs from `peer` with `tag`; the blocking ones
// accept inline data for good (engine.cpp, start_recv).
struct Receives {
  std::vector<std::unique_ptr<RequestImpl>> all;
  RequestImpl* add(int peer, int tag, int count, bool blocking) {
    auto r = std::make_unique<RequestImpl>();
    r->kind = RequestImpl::Kind::recv;
    r->peer = peer;
    r->tag = tag;
    r->count = count;
    r->layout = TypeLayout{1, 1, 0, 1};
    r->inline_data_state =
        blocking ? RequestImpl::Inline::accepted_for_good : RequestImpl::Inline::accepted;
    all.push_back(std::move(r));
    return all.back().get();
  }
};

TEST(PostedQueue, MatchesInPostingOrderAcrossTheSlotAndTheList) {
  Receives rs;
  PostedQueue q;
  RequestImpl* any = rs.add(MPI_ANY_SOURCE, 5, 8, true);  // into the slot
  RequestImpl* from1 = rs.add(1, 5, 8, false);
  RequestImpl* from2 = rs.add(2, MPI_ANY_TAG, 8, false);
  for (RequestImpl* r : {any, from1, from2}) q.push_back(r);
  EXPECT_EQ(q.size(), 3);
  // From 2 with tag 7: the slot's receive wants tag 5; the list's second.
  EXPECT_EQ(q.take(2, 7).request, from2);
  // From 1 with tag 5: the slot's wildcard was posted before from1.
  EXPECT_EQ(q.take(1, 5).request, any);
  // The slot is empty but the list is not: a new receive queues behind it.
  RequestImpl* late = rs.add(1, 5, 8, true);
  q.push_back(late);
  EXPECT_EQ(q.take(1, 5).request, from1);
  EXPECT_EQ(q.take(1, 5).request, late);
  EXPECT_EQ(q.take(1, 5).request, nullptr);
  EXPECT_EQ(q.size(), 0);
}

TEST(PostedQueue, RemovesFromEitherPlaceAndFindsWithoutTaking) {
  Receives rs;
  PostedQueue q;
  RequestImpl* a = rs.add(0, 1, 8, true);
  RequestImpl* b = rs.add(0, 1, 8, true);
  q.push_back(a);
  q.push_back(b);
  const auto from0 = [](const RequestImpl& r) { return matches(r.peer, r.tag, 0, 1); };
  EXPECT_EQ(q.find_first(from0), a);
  EXPECT_TRUE(q.remove(a));  // the slot
  EXPECT_FALSE(q.remove(a));
  EXPECT_EQ(q.find_first(from0), b);
  EXPECT_TRUE(q.remove(b));  // the list
  EXPECT_EQ(q.size(), 0);
  // Empty again: the next receive takes the slot.
  q.push_back(a);
  EXPECT_EQ(q.take(0, 1).request, a);
}

TEST(PostedQueue, InlineRoomOnlyForBlockingContiguousReceives) {
  Receives rs;
  PostedQueue q;
  q.push_back(rs.add(0, 0, 8, true));   // slot
  q.push_back(rs.add(0, 0, 4, true));   // list: computed when taken
  q.push_back(rs.add(0, 0, 8, false));  // non-blocking: may refuse
  q.push_back(rs.add(0, 0, 100, true));
  EXPECT_EQ(q.take(0, 0).inline_room, 8);
  EXPECT_EQ(q.take(0, 0).inline_room, 4);
  EXPECT_EQ(q.take(0, 0).inline_room, -1);
  EXPECT_EQ(q.take(0, 0).inline_room, RequestImpl::kInlineBytes);
  RequestImpl* strided = rs.add(0, 0, 2, true);
  strided->layout = TypeLayout{4, 8, 0, 4};  // extent 8, size 4: gaps between elements
  q.push_back(strided);
  EXPECT_EQ(q.take(0, 0).inline_room, -1);
}

}  // namespace
}  // namespace ep::detail
