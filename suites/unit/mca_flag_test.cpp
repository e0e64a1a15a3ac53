// Open MPI's reading of its boolean MCA settings, which libep follows to
// know whether Open MPI yields the core (base/mpi_yield.hpp). The expected
// values are ompi_info's for OMPI_MCA_mpi_yield_when_idle (Open MPI 4.1.4).
#include <gtest/gtest.h>

#include "base/mpi_yield.hpp"

namespace {

using ep::detail::mca_flag;

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
