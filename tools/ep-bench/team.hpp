// The threads of one process that take part in a benchmark, and the
// synchronisation that makes the threads of all processes act as one team.
//
// Worker 0 is the main thread: it alone calls MPI on MPI_COMM_WORLD for the
// harness (barriers between repetitions, reductions of timings), so a plain
// MPI run needs no more than MPI_THREAD_SINGLE. Workers 1..n-1 are
// std::threads. Every member function except run() is collective over all
// workers of all processes and is called by each worker with its index.
#pragma once

#include <mpi.h>

#include <barrier>
#include <functional>
#include <span>
#include <vector>

namespace ep::bench {

class Team {
 public:
  explicit Team(int workers);

  int workers() const { return workers_; }

  /// Runs body(worker) for every worker and returns when all have returned.
  /// An exception escaping a body aborts the job: its peers in other threads
  /// and processes would otherwise wait for it forever.
  void run(const std::function<void(int worker)>& body);

  /// Returns once every worker of every process has arrived: the start line
  /// of a timed repetition.
  void start_together(int worker);

  /// Element-wise maximum (op MPI_MAX) or sum (MPI_SUM) of `values` over
  /// every worker of every process; each worker gets the result.
  std::vector<double> allreduce(int worker, std::span<const double> values, MPI_Op op);

 private:
  int workers_;
  std::barrier<> local_;  // libstdc++ waits on a futex after a short spin
  std::vector<std::vector<double>> contributions_;
  std::vector<double> result_;
};

}  // namespace ep::bench
