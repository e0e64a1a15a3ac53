// Built by run_install_test.sh with nothing but `pkg-config --cflags --libs
// libep`: two endpoints per process add up their ranks, and the program
// reports the libep version and the MPI library it runs on.
//   pkgconfig_check EXPECTED_VERSION
// Exits 1 if the version or the sum is not what it should be.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <ep/ep.hpp>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  constexpr int kPerProcess = 2;
  std::vector<ep::Comm> comm(kPerProcess);
  ep::Comm_create_endpoints(MPI_COMM_WORLD, kPerProcess, MPI_INFO_NULL, comm.data());
  std::vector<int> sums(kPerProcess, -1);
  int size = 0;
  ep::Comm_size(comm[0], &size);
  std::vector<std::thread> threads;
  for (int t = 0; t < kPerProcess; ++t) {
    threads.emplace_back([&, t] {
      int rank = 0;
      ep::Comm_rank(comm[t], &rank);
      ep::Allreduce(&rank, &sums[t], 1, MPI_INT, MPI_SUM, comm[t]);
      ep::Comm_free(&comm[t]);
    });
  }
  for (auto& thread : threads) thread.join();

  bool ok = argc > 1 && std::strcmp(ep::version(), argv[1]) == 0;
  for (int sum : sums) ok = ok && sum == size * (size - 1) / 2;
  if (world_rank == 0) {
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(library, &length);
    std::printf("pkgconfig_check: libep %s, %d endpoints, MPI library %.*s: %s\n", ep::version(),
                size, static_cast<int>(std::strcspn(library, "\n")), library,
                ok ? "correct" : "FAILED");
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
