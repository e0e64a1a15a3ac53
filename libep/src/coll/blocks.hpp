// An endpoint's blocks as the v-collectives and Alltoallw address them, one
// per rank: counts and displacements in elements of one datatype, or
// (Alltoallw) counts, byte displacements and a datatype per rank. Bad
// arguments are endpoint-local errors (coll/checks.hpp): noted, and the
// blocks are then empty, so that the endpoint still takes part.
#pragma once

#include <mpi.h>

#include <vector>

#include "base/datatype.hpp"
#include "coll/checks.hpp"

namespace ep::detail {

/// What the arguments are called, for the error messages.
struct BlockNames {
  const char* counts;
  const char* displs;
  const char* types = nullptr;
};

/// `n` blocks of `type` at `buf`: counts[r] elements at displs[r] elements.
template <class Void>
std::vector<BasicTyped<Void>> v_blocks(Void* buf, int n, const int* counts, const int* displs,
                                       MPI_Datatype type, const TypeLayout& layout,
                                       const BlockNames& names, LocalError& err);

/// `n` blocks at `buf`: counts[r] elements of types[r] at displs[r] bytes.
template <class Void>
std::vector<BasicTyped<Void>> w_blocks(Void* buf, int n, const int* counts, const int* displs,
                                       const MPI_Datatype* types, const BlockNames& names,
                                       LocalError& err);

}  // namespace ep::detail
