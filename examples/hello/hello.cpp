// Hello, endpoints: every OpenMP thread of every MPI process becomes a rank of
// one endpoint communicator and talks to the others as an MPI process would,
// whether they are threads of its own process or of another.
//
//   OMP_NUM_THREADS=3 mpirun -np 2 ./hello     # 2 processes x 3 threads = 6 ranks
//
// Each endpoint passes its rank to the next one round a ring, then all of them
// add up their ranks. Both results are known in advance; the program checks
// them and exits 1 if any endpoint got a wrong one.
//
// Errors are fatal by default (MPI_ERRORS_ARE_FATAL), as in MPI, so the return
// codes of the calls below need no checking.
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <ep/ep.hpp>
#include <vector>

int main(int argc, char** argv) {
  // Endpoint threads call MPI at the same time (libep does, underneath), which
  // MPI allows only at MPI_THREAD_MULTIPLE.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "hello: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (world_rank == 0) {
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(library, &length);
    // The first line is enough to tell which MPI this is.
    std::printf("hello: MPI library %.*s\n", static_cast<int>(std::strcspn(library, "\n")),
                library);
  }

  // One endpoint per thread. The call is made once per process, by one
  // thread, and is collective over MPI_COMM_WORLD; processes may ask for
  // different numbers. Ranks follow the process order, then the handle order:
  // process 0's endpoints are ranks 0..threads-1, and so on.
  const int threads = omp_get_max_threads();
  std::vector<ep::Comm> comm(threads);
  ep::Comm_create_endpoints(MPI_COMM_WORLD, threads, MPI_INFO_NULL, comm.data());

  int failures = 0;
  int endpoints = 0;
#pragma omp parallel num_threads(threads) reduction(+ : failures)
  {
    // Thread t drives comm[t], and only thread t does: an endpoint is one
    // rank, used by one thread at a time, like an MPI process.
    const int t = omp_get_thread_num();
    int rank = 0;
    int size = 0;
    ep::Comm_rank(comm[t], &rank);
    ep::Comm_size(comm[t], &size);

    // Round the ring: each rank sends its number to the right and receives
    // its left neighbour's. Some neighbours are threads of this process, some
    // of another; the call is the same.
    const int right = (rank + 1) % size;
    const int left = (rank + size - 1) % size;
    int from_left = -1;
    ep::Sendrecv(&rank, 1, MPI_INT, right, 0, &from_left, 1, MPI_INT, left, 0, comm[t],
                 ep::STATUS_IGNORE);

    // A collective over every endpoint, threads and processes alike.
    int sum = 0;
    ep::Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm[t]);

    const bool ok = from_left == left && sum == size * (size - 1) / 2;
    std::printf("hello from rank %d of %d (process %d, thread %d): %d from the left, sum %d: %s\n",
                rank, size, world_rank, t, from_left, sum, ok ? "ok" : "WRONG");
    if (!ok) ++failures;
    if (rank == 0) endpoints = size;

    // Collective over all endpoints, as MPI_Comm_free.
    ep::Comm_free(&comm[t]);
  }

  // Whether any endpoint anywhere went wrong, for every process's exit status.
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) {
    std::printf("hello: %d endpoints, %s\n", endpoints,
                all_failures == 0 ? "all correct" : "FAILED");
  }
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
