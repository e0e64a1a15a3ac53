// Typed buffers as collectives see them (base/datatype.hpp): ranges of
// elements to copy, to reduce in rank order and to split between the
// endpoints of a process.
//
// Ranges of elements are what the endpoints of a process divide among
// themselves when a copy or reduction is large: MPI ops work element by
// element, so any split is exact.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>

#include "base/datatype.hpp"

namespace ep::detail {

/// Elements [first, first + count) of a range that `parts` endpoints share.
struct ElementRange {
  std::int64_t first = 0;
  int count = 0;
};

/// How many of a process's `team_size` endpoints should share a copy or a
/// reduction of `bytes` bytes: one below a size where splitting pays for
/// the extra hand-offs, then one per chunk of a few tens of KiB.
int sharing_endpoints(std::int64_t bytes, int team_size);

/// Part `index` of `parts` of `count` elements. Boundaries are rounded to
/// whole cache lines where the type allows, so that endpoints writing
/// neighbouring parts do not share a line.
ElementRange part_of(int count, int parts, int index, const TypeLayout& layout);

/// An MPI_Op with what the reductions need to know about it.
struct Reduction {
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;
  bool commutative = true;
};

/// acc[range] = in[0] op in[1] op ... op in[n-1] over the elements of
/// `range`, where each in[i] is the base address of a buffer of the
/// reduction's type. `holds` is the index of the input that already lives
/// in `acc` (an MPI_IN_PLACE contribution), or -1. Operands are combined
/// right to left (MPI_Reduce_local(in, inout) computes inout = in op inout),
/// which keeps rank order for non-commutative ops without a temporary,
/// except when acc holds an input that is not the last one.
/// Returns an MPI error code.
int reduce_in_order(const Reduction& r, std::span<const void* const> in, void* acc, int holds,
                    ElementRange range);

}  // namespace ep::detail
