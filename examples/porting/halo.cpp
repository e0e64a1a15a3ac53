// Porting a threaded MPI code to endpoints: a halo exchange on a ring.
//
//   mpirun -np 2 ./halo 3     # 2 processes x 3 threads: the ring in 6 blocks
//
// A ring of cells is cut into one block per thread. Each step, every block
// gets the cell beyond each of its ends (its halos) from its neighbours and
// updates its cells by diffusion. At the end each block compares itself with
// the same computation done serially over the whole ring, and the total, which
// diffusion keeps, is checked; the program exits 1 if either is off.
//
// BEFORE: threads share their process's rank on one communicator
// (MPI_THREAD_MULTIPLE). A neighbour is a (process, thread) pair worked out by
// hand, and since all threads of a process receive on the same rank, the tag
// has to say which thread a halo is for:
//
//   const int block = p * T + t, blocks = P * T;  // process p of P, thread t of T
//   const int left = (block + blocks - 1) % blocks, right = (block + 1) % blocks;
//   MPI_Irecv(&u[0], 1, MPI_DOUBLE, left / T, 2 * t + kFromLeft, MPI_COMM_WORLD, &r[0]);
//   MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right / T, 2 * t + kFromRight, MPI_COMM_WORLD, &r[1]);
//   MPI_Isend(&u[1], 1, MPI_DOUBLE, left / T, 2 * (left % T) + kFromRight, MPI_COMM_WORLD, &r[2]);
//   MPI_Isend(&u[n], 1, MPI_DOUBLE, right / T, 2 * (right % T) + kFromLeft, MPI_COMM_WORLD, &r[3]);
//   MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
//
// and a global sum takes two steps, the threads of a process then the processes:
//
//   process_sum += my_sum;                    // atomically, then a barrier of the threads
//   if (t == 0) MPI_Allreduce(&process_sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
//   ...                                       // another barrier before anyone reads total
//
// AFTER (run_block below): each thread has its own endpoint, a rank of its
// own. Neighbours are rank - 1 and rank + 1, tags only say which side, and a
// collective takes every thread of every process at once. What changed:
// MPI_ became ep::, MPI_COMM_WORLD became the thread's endpoint, and the rank
// arithmetic and the two-step reduction went away.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ep/ep.hpp>
#include <thread>
#include <vector>

namespace {

constexpr int kCells = 16;  // cells per block
constexpr int kSteps = 100;
constexpr double kRate = 0.25;
// Tags: which side of the receiver a halo comes from.
constexpr int kFromLeft = 0;
constexpr int kFromRight = 1;

// Cell i of the whole ring at the start: anything uneven will do.
double initial(int i) { return (i * 37) % 11 + 0.5 * (i % 3); }

// One step of diffusion over u[1..n]; u[0] and u[n+1] are the halos.
void diffuse(const std::vector<double>& u, std::vector<double>& next) {
  for (std::size_t i = 1; i + 1 < u.size(); ++i) {
    next[i] = u[i] + kRate * (u[i - 1] - 2 * u[i] + u[i + 1]);
  }
}

// The whole ring computed by one thread: what every block must match.
std::vector<double> serial(int cells) {
  std::vector<double> u(cells + 2), next(cells + 2);
  for (int i = 0; i < cells; ++i) u[i + 1] = initial(i);
  for (int step = 0; step < kSteps; ++step) {
    u[0] = u[cells];
    u[cells + 1] = u[1];
    diffuse(u, next);
    std::swap(u, next);
  }
  return u;
}

struct Result {
  int endpoints = 0;
  double max_error = 0;  // the largest difference from the serial ring, over all blocks
  double total = 0;      // the sum of all cells at the end ...
  double expected = 0;   // ... and at the start
};

// One thread's block, on its own endpoint.
Result run_block(ep::Comm comm) {
  int rank = 0;
  int size = 0;
  ep::Comm_rank(comm, &rank);
  ep::Comm_size(comm, &size);
  const int left = (rank + size - 1) % size;
  const int right = (rank + 1) % size;

  std::vector<double> u(kCells + 2), next(kCells + 2);
  for (int i = 0; i < kCells; ++i) u[i + 1] = initial(rank * kCells + i);
  for (int step = 0; step < kSteps; ++step) {
    ep::Request r[4];
    ep::Irecv(&u[0], 1, MPI_DOUBLE, left, kFromLeft, comm, &r[0]);
    ep::Irecv(&u[kCells + 1], 1, MPI_DOUBLE, right, kFromRight, comm, &r[1]);
    ep::Isend(&u[1], 1, MPI_DOUBLE, left, kFromRight, comm, &r[2]);
    ep::Isend(&u[kCells], 1, MPI_DOUBLE, right, kFromLeft, comm, &r[3]);
    ep::Waitall(4, r, ep::STATUSES_IGNORE);
    diffuse(u, next);
    std::swap(u, next);
  }

  const std::vector<double> ring = serial(size * kCells);
  double error = 0;
  double sum = 0;
  double start = 0;
  for (int i = 0; i < kCells; ++i) {
    error = std::max(error, std::fabs(u[i + 1] - ring[rank * kCells + i + 1]));
    sum += u[i + 1];
    start += initial(rank * kCells + i);
  }
  // Every endpoint gets the results of all of them.
  Result result;
  result.endpoints = size;
  ep::Allreduce(&error, &result.max_error, 1, MPI_DOUBLE, MPI_MAX, comm);
  ep::Allreduce(&sum, &result.total, 1, MPI_DOUBLE, MPI_SUM, comm);
  ep::Allreduce(&start, &result.expected, 1, MPI_DOUBLE, MPI_SUM, comm);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "halo: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (threads < 1) {
    std::fprintf(stderr, "usage: halo [THREADS_PER_PROCESS >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);

  // New: the endpoints, one per thread, made once per process before the
  // threads start. The threads themselves are started as before.
  std::vector<ep::Comm> comm(threads);
  ep::Comm_create_endpoints(MPI_COMM_WORLD, threads, MPI_INFO_NULL, comm.data());
  std::vector<Result> results(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      results[t] = run_block(comm[t]);
      ep::Comm_free(&comm[t]);
    });
  }
  for (auto& worker : workers) worker.join();

  // The reductions gave every endpoint the same numbers, so every process
  // reaches the same verdict and exit status.
  const Result& r = results[0];
  const bool ok = r.max_error <= 1e-12 && std::fabs(r.total - r.expected) <= 1e-9 * r.expected;
  if (world_rank == 0) {
    std::printf(
        "halo: %d endpoints, %d steps, largest difference from the serial ring %g, "
        "total %.6f (at the start %.6f): %s\n",
        r.endpoints, kSteps, r.max_error, r.total, r.expected, ok ? "correct" : "FAILED");
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
