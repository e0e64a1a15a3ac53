// The rank arithmetic of inter-communicators: pure functions, no MPI.
//
// An inter-communicator's traffic travels over one MPI communicator, the
// "carrier", that holds every process hosting an endpoint of either group,
// ranked by MPI_COMM_WORLD rank. The engine addresses "union ranks": the
// first group's ranks, then the second group's. Which group is first is a
// choice both sides make alike (the one whose leader has the smaller
// identity), not the MPI low/high order, which only Intercomm_merge uses.
//
// Worked example: group A = 3 endpoints hosted by world ranks {0, 1, 1},
// group B = 2 endpoints hosted by world ranks {1, 2}; A first.
//
//   union rank      0  1  2  3  4        (A0 A1 A2 B0 B1)
//   carrier rank    0  1  1  1  2        (world 0, 1, 2 -> carrier 0, 1, 2)
//   local index     0  0  1  2  0        (process 1 hosts A1, A2 and B0)
//
// local_rank_map of A = union ranks 0..2, remote_rank_map of A = 3..4, and
// intercomm_rank_map = the whole table. Process 1 hosts endpoints of both
// groups; A's and B's endpoints there are distinct, and messages between
// them stay inside the process.
//
// Intercomm_merge with A high and B low ranks B first: new ranks B0 B1 A0
// A1 A2, and local indices renumbered in that order: process 1 then holds
// new rank 0 (B0) as local 0, 3 (A1) as local 1, 4 (A2) as local 2.
#pragma once

#include <span>
#include <vector>

#include "ranks/rank_map.hpp"

namespace ep::detail {

struct InterLayout {
  std::vector<int> processes;   // world ranks of the carrier's processes, ascending
  RankMap map;                  // union rank -> (carrier rank, local index)
  std::vector<int> members[2];  // [group][rank in group] -> union rank
  std::vector<int> group_of;    // union rank -> group
  std::vector<int> rank_in_group;
};

/// The layout of an inter-communicator whose first group's rank r is hosted
/// by world rank first_hosts[r], and likewise for the second group.
InterLayout inter_layout(std::span<const int> first_hosts, std::span<const int> second_hosts);

/// The rank map of Intercomm_merge over the carrier: group `low` first, each
/// group in its own rank order. `new_rank_of[u]` gives the merged rank of
/// union rank u.
RankMap merge_map(const InterLayout& layout, int low, std::vector<int>* new_rank_of);

}  // namespace ep::detail
