// The first two steps of the exact fallbacks of the reductions: every
// endpoint's input, gathered by rank at every process (or at one).
//
// When a process's endpoints do not hold a block of consecutive ranks, the
// hierarchical reductions would combine operands out of rank order. The
// fallbacks then gather every contribution and reduce them in rank order
// where the result is needed: linear in the number of ranks, exact for every
// op. Used by Reduce, Allreduce, Reduce_scatter, Scan and Exscan, whose files
// say when they take it.
//
//   1. local: each endpoint copies its own input into the process's scratch
//             at its place in process order (in parallel, one copy each);
//   2. MPI:   the leader completes the scratch with MPI_Allgatherv (or
//             MPI_Gatherv to one process) in place.
//
// Every fallback enters the same way, through gather_operands():
//   return gather_operands(call, to_process, stage,
//                          [&](Meeting& m, const Contributions& all, int rc) {
//                            ... step 3: reduce all.of_ranks(...) ...
//                          });
// The scratch stays valid until step 3's next barrier that the leader
// passes after every reader (rule 3 of team/meeting.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/reduction.hpp"
#include "ranks/block_layout.hpp"
#include "team/meeting.hpp"

namespace ep::detail {

class Contributions {
 public:
  static constexpr int kScratch = 0;

  /// Scratch bytes for `ranks` contributions of `count` elements.
  static std::size_t bytes(int ranks, int count, const TypeLayout& layout);

  /// `count` elements of `type` per rank; `to_process` is the MPI rank of
  /// the one process that needs them, or -1 for all.
  Contributions(const Meeting& m, int count, MPI_Datatype type, const TypeLayout& layout,
                int to_process);

  /// Steps 1 and 2; `stage` is the Meeting stage the leader signals when the
  /// MPI step is over. Returns the MPI error code of the MPI step (on every
  /// endpoint of the process) or of this endpoint's copy.
  int gather(Meeting& m, const void* input, int stage);

  /// The base address of `rank`'s contribution (valid at the receiving
  /// processes after gather()).
  const void* of(int rank) const { return all_.at(std::int64_t{order_.slot_of(rank)} * count_); }

  /// Contributions of ranks [first, first + n), in rank order.
  std::vector<const void*> of_ranks(int first, int n) const;

 private:
  int count_;
  int to_process_;
  ProcessOrder order_;
  Typed all_;  // every contribution, process order
};

/// Steps 1 and 2 of a reduction's gather_all fallback, on every endpoint of
/// the process: the leader sizes the scratch, the endpoints meet, and every
/// operand is gathered by rank to `to_process` (-1: to every process); the
/// leader signals `stage` when the MPI step is over. Then step 3,
/// finish(meeting, contributions, rc of steps 1-2), whose code it returns.
template <class Finish>
int gather_operands(const ReduceCall& c, int to_process, int stage, Finish&& finish) {
  if (c.e->local == 0) {
    c.e->shared->team->scratch_acquire(
        Contributions::kScratch,
        Contributions::bytes(c.e->shared->map.size(), c.count, c.reduction.layout));
  }
  Meeting m(c.e, &c.args);
  Contributions all(m, c.count, c.reduction.type, c.reduction.layout, to_process);
  const int rc = all.gather(m, c.args.input, stage);
  return finish(m, all, rc);
}

}  // namespace ep::detail
