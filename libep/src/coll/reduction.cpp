#include "coll/reduction.hpp"

namespace ep::detail {

bool reduce_hierarchical(const ReduceCall& call) { return call.hierarchical_exact(); }

bool reduce_small(const ReduceCall& call) {
  return call.bytes() < 64 * 1024 &&
         call.reduction.layout.footprint(call.count).bytes <= LocalTeam::kMailboxBytes;
}

ReduceCall reduce_call(const Entered& in, int count, MPI_Datatype type, MPI_Op op) {
  ReduceCall call;
  call.e = in.e;
  call.count = count;
  call.reduction = {op, type, in.layout, in.commutative};
  call.block = is_block_layout(in.e->shared->map);
  return call;
}

std::vector<const void*> local_inputs(const Meeting& m) {
  std::vector<const void*> in(static_cast<std::size_t>(m.size()));
  for (int l = 0; l < m.size(); ++l) in[static_cast<std::size_t>(l)] = m.args<ReduceArgs>(l).input;
  return in;
}

LocalInputs::LocalInputs(const Meeting& m) : size_(static_cast<std::size_t>(m.size())) {
  data_ = inline_.data();
  if (m.size() > kInline) {
    heap_.resize(size_);
    data_ = heap_.data();
  }
  for (int l = 0; l < m.size(); ++l) data_[l] = m.args<ReduceArgs>(l).input;
}

int reduce_my_part(const Meeting& m, const ReduceCall& call, const std::vector<const void*>& in,
                   void* acc, int holds, int parts) {
  if (m.local() >= parts) return MPI_SUCCESS;
  const ElementRange range = part_of(call.count, parts, m.local(), call.reduction.layout);
  return reduce_in_order(call.reduction, in, acc, holds, range);
}

}  // namespace ep::detail
