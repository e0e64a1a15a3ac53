// An out-of-band barrier: synchronises all ranks of a test without sending
// anything on the communicator under test, where wildcard receives would take
// a barrier's messages. Local ranks meet on a std::barrier; the last to arrive
// joins the processes in an MPI_Allreduce on MPI_COMM_WORLD.
//
// Every process takes part in every round, also one hosting no endpoint (and
// one whose ranks have finished): `finish` keeps answering rounds until all
// processes are finished. So all ranks must call the barrier equally often,
// as with any barrier.
#pragma once

#include <barrier>

namespace eptest {

class ProcessBarrier {
 public:
  /// `local_ranks` threads of this process will call arrive_and_wait.
  explicit ProcessBarrier(int local_ranks);

  /// Blocks until every rank of every process has arrived.
  void arrive_and_wait();

  /// Called once per process, by the main thread, after its ranks are done
  /// (at once if it hosts none): takes part in the rounds of the other
  /// processes until every process has finished.
  static void finish();

 private:
  struct WorldRound {
    void operator()() noexcept;
  };
  std::barrier<WorldRound> local_;
};

}  // namespace eptest
