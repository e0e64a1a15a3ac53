#include "mpi_lifetime.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0' || std::strlen(value) > 9) continue;
    if (std::strspn(value, "0123456789") != std::strlen(value)) continue;
    return std::atoi(value);
  }
  return -1;
}

int early_verdict(const std::string& text, int status) {
  std::FILE* out = status == 0 ? stdout : stderr;
  if (launcher_rank() < 0) {
    std::fputs(text.c_str(), out);
    return status;
  }
  int provided = 0;
  if (init_mpi(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    std::fputs(text.c_str(), out);
    return status;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::fputs(text.c_str(), out);
  std::fflush(out);
  MPI_Barrier(MPI_COMM_WORLD);
  finalize_mpi();
  return status;
}

}  // namespace ep::tools
