// What the reductions (Reduce, Allreduce, Reduce_scatter, Scan, Exscan)
// share: the arguments an endpoint publishes, the call as their entries
// checked it, and the local combine step of the hierarchical algorithms.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "coll/checks.hpp"
#include "coll/elements.hpp"
#include "coll/entry.hpp"
#include "ranks/block_layout.hpp"
#include "team/meeting.hpp"

namespace ep::detail {

/// What an endpoint publishes: where its operand is and where its result
/// goes. With MPI_IN_PLACE the operand is in `output`, and input == output.
struct ReduceArgs {
  const void* input = nullptr;
  void* output = nullptr;
  bool in_place() const { return input == output; }
};

/// One endpoint's call of a reduction, checked.
struct ReduceCall {
  Endpoint* e = nullptr;
  ReduceArgs args;
  int count = 0;
  Reduction reduction;
  int root = -1;       // Reduce only
  bool block = false;  // is_block_layout of the communicator

  std::int64_t bytes() const { return std::int64_t{count} * reduction.layout.size; }
  /// The hierarchical algorithms keep rank order: exact for a commutative
  /// op on any layout, and for any op on the block layout.
  bool hierarchical_exact() const { return reduction.commutative || block; }
};

/// Predicates of the algorithm tables of Reduce and Allreduce: the
/// hierarchical algorithms are exact (see ReduceCall::hierarchical_exact),
/// and the call is small enough that one endpoint combines faster than
/// several hand off, and its result fits a mailbox.
bool reduce_hierarchical(const ReduceCall& call);
bool reduce_small(const ReduceCall& call);

/// A reduction's call, once its entry has checked count, datatype and op.
ReduceCall reduce_call(const Entered& in, int count, MPI_Datatype type, MPI_Op op);

/// The operands of the process's endpoints, by local rank (= rank order on
/// the block layout). Waits until each has entered the call.
std::vector<const void*> local_inputs(const Meeting& m);

/// The same, without touching the heap for teams of up to kInline
/// endpoints: for the small reductions, where an allocation per call shows.
class LocalInputs {
 public:
  static constexpr int kInline = 16;
  explicit LocalInputs(const Meeting& m);
  LocalInputs(const LocalInputs&) = delete;
  LocalInputs& operator=(const LocalInputs&) = delete;
  std::span<const void* const> get() const { return {data_, size_}; }

 private:
  std::array<const void*, kInline> inline_{};
  std::vector<const void*> heap_;
  const void** data_ = nullptr;
  std::size_t size_ = 0;
};

/// This endpoint's share of combining `in` into `acc` (which holds operand
/// `holds`, or -1) when `parts` endpoints share it; a no-op for endpoints
/// beyond `parts`. Returns an MPI error code.
int reduce_my_part(const Meeting& m, const ReduceCall& call, const std::vector<const void*>& in,
                   void* acc, int holds, int parts);

}  // namespace ep::detail
