// Which hierarchical algorithm a communicator's rank layout allows: pure
// functions of the rank map, no MPI.
//
// The hierarchical reductions combine each process's endpoints first and the
// processes afterwards, in MPI rank order. That is rank order exactly when
// the layout is "block": each process's ranks are contiguous, increasing
// with the local rank, and the blocks follow the MPI ranks of the processes.
//
//   Comm_create_endpoints with 2,1,2 endpoints      after Comm_split with keys
//   rank        0 1 2 3 4                             rank        0 1 2 3 4
//   mpi_rank    0 0 1 2 2   block                     mpi_rank    0 1 2 0 2   not block
//
// On the right, process 0's endpoints hold ranks 0 and 3: combining them
// first would compute r0 op r3 before r1, which a non-commutative op forbids,
// and a prefix (Scan) over processes would not be a prefix over ranks. Such
// layouts take the exact fallbacks of the collective files.
//
// Collectives that move data between processes in one MPI call per process
// (MPI_Allgatherv of every endpoint's contribution) lay the contributions out
// in "process order": process 0's endpoints by local rank, then process 1's,
// and so on. slot_of(rank) is a rank's place in that order; in the block
// layout it is the rank itself.
#pragma once

#include <vector>

#include "ranks/rank_map.hpp"

namespace ep::detail {

/// True when every process's ranks are contiguous, increasing with the local
/// rank, and the processes' blocks are in MPI rank order.
bool is_block_layout(const RankMap& map);

class ProcessOrder {
 public:
  explicit ProcessOrder(const RankMap& map);

  /// Place of process p's first endpoint in process order.
  int first(int mpi_rank) const { return first_[static_cast<std::size_t>(mpi_rank)]; }
  /// Place of `rank` in process order.
  int slot_of(int rank) const { return slot_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<int> first_;  // by process, one more at the end: the total
  std::vector<int> slot_;   // by rank
};

}  // namespace ep::detail
