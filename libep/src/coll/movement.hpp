// What the collectives that move data (Gather(v), Scatter(v), Allgather(v),
// Alltoall(v)) share: blocks addressed by rank through counts and
// displacements, and the equal counts of the non-v variants.
//
// All of them run the same three steps:
//   1. local:  every endpoint publishes its buffers; pieces between two
//              endpoints of the same process are copied directly, by the
//              endpoint that receives them (so a process's copies run in
//              parallel, one copy per byte);
//   2. MPI:    the leader moves every piece between processes with one
//              MPI_Alltoallw (coll/exchange.hpp), straight from the buffer
//              it starts in to the buffer it ends in;
//   3. end:    a barrier, after which nobody reads or writes another
//              endpoint's buffers.
// Allgather(v) adds one step: a block from another process arrives once, in
// the leader's receive buffer, and the other endpoints copy it from there.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "base/datatype.hpp"

namespace ep::detail {

/// Buffer `buf` as counts[r] elements at displacement displs[r] per rank:
/// SendBlocks to read from, RecvBlocks to write to.
template <class Void>
struct BasicBlocks {
  Void* buf = nullptr;
  const int* counts = nullptr;
  const int* displs = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;
  /// Alltoallw: every rank's block given whole (its own datatype, a byte
  /// displacement), in place of the above.
  const BasicTyped<Void>* each = nullptr;

  BasicTyped<Void> block(int rank) const {
    if (each) return each[rank];
    const BasicTyped<Void> all{buf, 0, type, layout};
    return all.slice(displs[rank], counts[rank]);
  }
};
using SendBlocks = BasicBlocks<const void>;
using RecvBlocks = BasicBlocks<void>;

/// The counts and displacements of a non-v collective: `count` elements
/// per rank, rank r's block at r * count.
struct EqualBlocks {
  EqualBlocks(int ranks, int count)
      : counts(static_cast<std::size_t>(ranks), count), displs(static_cast<std::size_t>(ranks)) {
    for (int r = 0; r < ranks; ++r) displs[static_cast<std::size_t>(r)] = r * count;
  }
  std::vector<int> counts;
  std::vector<int> displs;
};

}  // namespace ep::detail
