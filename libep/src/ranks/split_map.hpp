// The rank arithmetic of Comm_split: pure functions, no MPI.
//
// MPI orders the new ranks of each color by key, ties broken by old rank,
// across processes. So the endpoints of one process need not get contiguous
// ranks, and one process may host endpoints of several colors.
//
// Worked example: 2 processes x 2 endpoints, old ranks 0,1 on process 0 and
// 2,3 on process 1, split with color = rank % 2 and key = -rank:
//
//   color 0: members by (key, old rank): old 2 (key -2), old 0 (key 0)
//            -> new rank 0 = old 2 on process 1, new rank 1 = old 0 on process 0
//            processes hosting color 0, ascending old MPI rank: {0, 1}
//            -> new MPI ranks 0 (old process 0) and 1 (old process 1)
//            -> rank_map: new 0 -> (mpi 1, local 0), new 1 -> (mpi 0, local 0)
//   color 1: old 3 (key -3), old 1 (key -1) likewise.
//
// Local ranks number a process's members of one color in new-rank order.
#pragma once

#include <span>
#include <vector>

#include "ranks/rank_map.hpp"

namespace ep::detail {

struct SplitArgs {
  int color = 0;  // MPI_UNDEFINED: no new communicator
  int key = 0;
};

struct SplitGroup {
  int color = 0;
  std::vector<int> members;    // old ranks, in new-rank order
  std::vector<int> processes;  // old MPI ranks hosting members, ascending: new MPI rank = index
  RankMap map;                 // new rank -> (new MPI rank, local rank)
};

/// The groups a split makes. `args` is indexed by old rank; `undefined` is
/// the color that means "no communicator" (MPI_UNDEFINED). Groups come in
/// ascending color order. With `only_process` >= 0, only the groups that
/// process takes part in.
std::vector<SplitGroup> split_groups(const RankMap& old, std::span<const SplitArgs> args,
                                     int undefined, int only_process = -1);

}  // namespace ep::detail
