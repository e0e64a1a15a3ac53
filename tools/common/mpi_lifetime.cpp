#include "mpi_lifetime.hpp"

#include <mpi.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace ep::tools {

int init_mpi(int* argc, char*** argv, int required, int* provided) {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_disable();
#endif
  const int rc = MPI_Init_thread(argc, argv, required, provided);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  return rc;
}

int finalize_mpi() {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
  return MPI_Finalize();
}

int shared_verdict(int status, bool printer) { return printer ? status : 0; }

}  // namespace ep::tools
