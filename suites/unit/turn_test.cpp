// The process's turn for blocking communicator creations (comm/turn.hpp):
// one holder at a time, nested turns, a wait that ends, and lower-keyed
// intents first. No assertion depends on how fast the machine is: a held
// turn is never given to another thread, however long it waits.
#include "comm/turn.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

namespace {

using ep::detail::CreationIntent;
using ep::detail::CreationTurn;

// Whether a turn taken on another thread (with `key`) got it.
bool other_thread_gets(std::int64_t key) {
  bool got = false;
  std::thread([&] { got = CreationTurn(key).owner(); }).join();
  return got;
}

TEST(CreationTurn, OneHolderAtATimeAndTheWaitEnds) {
  {
    const CreationTurn mine;
    ASSERT_TRUE(mine.owner());
    // The other thread waits its bound, then goes on without the turn.
    EXPECT_FALSE(other_thread_gets(0));
  }
  EXPECT_TRUE(other_thread_gets(0));
}

TEST(CreationTurn, NestedTurnsOfTheHolderAreFree) {
  const CreationTurn outer;
  ASSERT_TRUE(outer.owner());
  {
    const CreationTurn inner;
    EXPECT_FALSE(inner.owner());
  }
  // The inner one's end did not give the turn back.
  EXPECT_FALSE(other_thread_gets(0));
}

TEST(CreationTurn, LowerKeyedIntentsGoFirst) {
  {
    const CreationIntent announced(10);
    EXPECT_FALSE(other_thread_gets(11));  // waits for key 10, until its bound
    EXPECT_TRUE(other_thread_gets(9));
    EXPECT_TRUE(other_thread_gets(10));  // its own key does not hold it back
  }
  EXPECT_TRUE(other_thread_gets(11));
}

}  // namespace
