#include "sync.hpp"

#include <mpi.h>

namespace eptest {

namespace {
// One round: every process contributes whether it has finished. A round
// where every process says so is the last one.
int world_round(int finished) {
  int finished_processes = 0;
  MPI_Allreduce(&finished, &finished_processes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return finished_processes;
}
}  // namespace

ProcessBarrier::ProcessBarrier(int local_ranks) : local_(local_ranks > 0 ? local_ranks : 1) {}

void ProcessBarrier::WorldRound::operator()() noexcept { world_round(0); }

void ProcessBarrier::arrive_and_wait() { local_.arrive_and_wait(); }

void ProcessBarrier::finish() {
  int processes = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  while (world_round(1) < processes) {
  }
}

}  // namespace eptest
