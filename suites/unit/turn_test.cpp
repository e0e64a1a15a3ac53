// The process's turn for blocking communicator creations (comm/turn.hpp):
// one holder at a time, nested turns, a wait that ends, lower-keyed
// intents first, and splits announced by other processes. No assertion depends on how fast the
// machine is: a held turn is never given to another thread, however long it waits.
#include "comm/turn.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace {

using ep::detail::CreationIntent;
using ep::detail::CreationTurn;
using ep::detail::IntentMark;

// Whether a turn taken on another thread (with `key` and `awaited`) got it.
bool other_thread_gets(std::int64_t key, std::vector<IntentMark> awaited = {}) {
  bool got = false;
  std::thread([&] { got = CreationTurn(key, awaited).owner(); }).join();
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

// Open MPI yields the core in the calls made under a turn, and no longer
// after it (base/mpi_yield.hpp).
TEST(CreationTurn, OpenMpiYieldsUnderATurn) {
  const auto* yields =
      static_cast<const bool*>(dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle"));
  if (yields == nullptr) GTEST_SKIP() << "not Open MPI";
  const bool before = *yields;
  {
    const CreationTurn mine;
    EXPECT_TRUE(*yields);
  }
  EXPECT_EQ(*yields, before);
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

// Another process announced split number 1 of communicator 20 in the
// exchange of colors: a turn with a higher key waits for this process's
// part of it, once this process hosts communicator 20, and only then.
TEST(CreationTurn, SplitsAnnouncedElsewhereGoFirstWhereHosted) {
  const std::vector<IntentMark> announced{{20, 1}, {-1, 0}};
  EXPECT_TRUE(other_thread_gets(30, announced));  // 20 is not hosted here
  ep::detail::note_communicator(20);
  EXPECT_FALSE(other_thread_gets(30, announced));  // its split 1 has not started here
  EXPECT_TRUE(other_thread_gets(15, announced));   // lower keys do not wait for it
  {
    const CreationIntent first(20);
    EXPECT_EQ(CreationIntent(21).lowest_other().key, 20);
    EXPECT_EQ(CreationIntent(21).lowest_other().number, 1);
    EXPECT_FALSE(other_thread_gets(30, announced));  // under way here
  }
  EXPECT_TRUE(other_thread_gets(30, announced));  // done here
  ep::detail::forget_communicator(20);
}

}  // namespace
