// Open MPI's reading of its boolean MCA settings, which libep follows to
// know whether Open MPI yields the core (base/mpi_yield.hpp). The expected
// values are ompi_info's for OMPI_MCA_mpi_yield_when_idle (Open MPI 4.1.4).
// And YieldingInMpi, which turns that yield on for a while.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "base/mpi_yield.hpp"

namespace {

using ep::detail::mca_flag;
using ep::detail::YieldingInMpi;

// Open MPI's own setting, as its progress loop reads it; null under MPICH.
const bool* open_mpi_yields() {
  return static_cast<const bool*>(dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle"));
}

TEST(YieldingInMpi, OnWhileOneLivesThenAsBefore) {
  const bool* yields = open_mpi_yields();
  if (yields == nullptr) GTEST_SKIP() << "not Open MPI";
  const bool before = *yields;
  {
    const YieldingInMpi outer;
    EXPECT_TRUE(*yields);
    { const YieldingInMpi inner; }
    EXPECT_TRUE(*yields);  // the inner one's end left it on
  }
  EXPECT_EQ(*yields, before);
}

TEST(McaFlag, UnsetOrEmptyIsTheFallback) {
  EXPECT_FALSE(mca_flag(nullptr, false));
  EXPECT_TRUE(mca_flag(nullptr, true));
  EXPECT_TRUE(mca_flag("", true));
}

TEST(McaFlag, IntegersAreTrueUnlessZero) {
  EXPECT_TRUE(mca_flag("1", false));
  EXPECT_TRUE(mca_flag("2", false));
  EXPECT_TRUE(mca_flag("-1", false));
  EXPECT_FALSE(mca_flag("0", true));
}

TEST(McaFlag, WordsInLowerCase) {
  for (const char* on : {"true", "yes", "y", "t", "enabled"})
    EXPECT_TRUE(mca_flag(on, false)) << on;
  for (const char* off : {"false", "no", "f", "disabled"}) EXPECT_FALSE(mca_flag(off, true)) << off;
}

TEST(McaFlag, WhatOpenMpiRefusesKeepsTheFallback) {
  for (const char* refused : {"on", "off", "TRUE", "banana", "1x"}) {
    EXPECT_FALSE(mca_flag(refused, false)) << refused;
    EXPECT_TRUE(mca_flag(refused, true)) << refused;
  }
}

}  // namespace
