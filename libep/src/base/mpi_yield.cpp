#include "base/mpi_yield.hpp"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace ep::detail {

#ifdef OPEN_MPI
namespace {

// An MCA flag's text as Open MPI reads it: true for "1", "true", "yes" or
// "on"; `fallback` when unset.
bool mca_flag(const char* value, bool fallback) {
  if (!value) return fallback;
  for (const char* on : {"1", "true", "yes", "on"}) {
    if (std::strcmp(value, on) == 0) return true;
  }
  return false;
}

}  // namespace
#endif

bool mpi_yields_when_idle() {
#ifdef OPEN_MPI
  // Open MPI's rule (ompi_mpi_init): the setting if given, else on when
  // mpirun found the node oversubscribed. mpirun passes both in the
  // environment; read there rather than through the MPI tool interface,
  // whose start took 208 ms here.
  static const bool on = mca_flag(std::getenv("OMPI_MCA_mpi_yield_when_idle"),
                                  mca_flag(std::getenv("OMPI_MCA_mpi_oversubscribe"), false));
  return on;
#else
  return false;
#endif
}

}  // namespace ep::detail
