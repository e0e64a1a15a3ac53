#include "base/mpi_yield.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>

namespace ep::detail {

// An MCA flag's text as Open MPI 4.1.4 reads it (checked with ompi_info): a
// decimal integer is true unless 0; "true", "yes", "y", "t" and "enabled"
// are true and "false", "no", "f" and "disabled" false, in lower case only.
// Open MPI refuses anything else and keeps the flag's default: `fallback`,
// as when it is unset.
bool mca_flag(const char* value, bool fallback) {
  if (!value || *value == '\0') return fallback;
  char* end = nullptr;
  const long number = std::strtol(value, &end, 10);
  if (*end == '\0') return number != 0;
  for (const char* on : {"true", "yes", "y", "t", "enabled"}) {
    if (std::strcmp(value, on) == 0) return true;
  }
  for (const char* off : {"false", "no", "f", "disabled"}) {
    if (std::strcmp(value, off) == 0) return false;
  }
  return fallback;
}

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

namespace {

// Open MPI 4.1 keeps the setting in OPAL, which reads it on every pass of
// its progress loop; opal_progress_set_yield_when_idle (exported by
// libopen-pal, which libmpi loads) changes it and returns the previous one.
// Looked up when first needed, so that libep neither links OPAL nor
// depends on its presence.
using SetYield = bool (*)(bool);

SetYield set_yield() {
#ifdef OPEN_MPI
  static const auto set =
      reinterpret_cast<SetYield>(dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle"));
  return set;
#else
  return nullptr;
#endif
}

std::mutex yielding_lock;
int yielding_count = 0;  // under yielding_lock
bool yielded_before = false;

}  // namespace

YieldingInMpi::YieldingInMpi() {
  const SetYield set = set_yield();
  if (set == nullptr) return;
  const std::lock_guard guard(yielding_lock);
  if (yielding_count++ == 0) yielded_before = set(true);
}

YieldingInMpi::~YieldingInMpi() {
  const SetYield set = set_yield();
  if (set == nullptr) return;
  const std::lock_guard guard(yielding_lock);
  if (--yielding_count == 0) set(yielded_before);
}

}  // namespace ep::detail
