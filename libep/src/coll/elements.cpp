#include "coll/elements.hpp"

#include <algorithm>

namespace ep::detail {

namespace {

// Below this a single endpoint does the whole copy or reduction: splitting
// costs a barrier, which is worth more than reducing a few KiB.
constexpr std::int64_t kShareFrom = 64 * 1024;
// Each sharing endpoint gets at least this much.
constexpr std::int64_t kShareChunk = 32 * 1024;
constexpr MPI_Aint kCacheLine = 64;

int reduce_local(const void* in, void* inout, int count, const Reduction& r) {
  if (count == 0) return MPI_SUCCESS;
  return MPI_Reduce_local(in, inout, count, r.type, r.op);
}

}  // namespace

int sharing_endpoints(std::int64_t bytes, int team_size) {
  if (bytes < kShareFrom || team_size <= 1) return 1;
  return static_cast<int>(std::min<std::int64_t>(team_size, bytes / kShareChunk));
}

ElementRange part_of(int count, int parts, int index, const TypeLayout& layout) {
  std::int64_t per = (std::int64_t{count} + parts - 1) / parts;
  if (layout.extent > 0 && layout.extent < kCacheLine && kCacheLine % layout.extent == 0) {
    const std::int64_t line = kCacheLine / layout.extent;
    per = (per + line - 1) / line * line;
  }
  const std::int64_t first = std::min<std::int64_t>(count, per * index);
  const std::int64_t last = std::min<std::int64_t>(count, first + per);
  return {first, static_cast<int>(last - first)};
}

int reduce_in_order(const Reduction& r, std::span<const void* const> in, void* acc, int holds,
                    ElementRange range) {
  const int n = static_cast<int>(in.size());
  if (range.count == 0 || n == 0) return MPI_SUCCESS;
  const auto part = [&](const void* base) {
    return ConstTyped{base, range.count, r.type, r.layout}.at(range.first);
  };
  const Typed out = Typed{acc, range.count, r.type, r.layout}.slice(range.first, range.count);
  const auto operand = [&](int i) {
    return ConstTyped{part(in[i]), range.count, r.type, r.layout};
  };
  int rc = MPI_SUCCESS;
  if (holds < 0 || holds == n - 1 || r.commutative) {
    // acc starts as the last operand (or as the in-place one, when the op
    // lets operands be reordered) and takes the others from the left.
    const int start = holds < 0 ? n - 1 : holds;
    if (holds < 0) rc = copy_typed(operand(start), out);
    for (int i = n - 1; i >= 0 && rc == MPI_SUCCESS; --i) {
      if (i != start) rc = reduce_local(part(in[i]), out.buf, range.count, r);
    }
    return rc;
  }
  // Non-commutative and acc holds a middle operand: fold the operands to
  // its right in a temporary, put acc's operand in front, then the rest.
  const TypedScratch temp(range.count, r.type, r.layout);
  rc = copy_typed(operand(n - 1), temp.typed());
  for (int i = n - 2; i >= 0 && rc == MPI_SUCCESS; --i) {
    rc = reduce_local(i == holds ? out.buf : part(in[i]), temp.base(), range.count, r);
  }
  if (rc == MPI_SUCCESS) rc = copy_typed(temp.typed(), out);
  return rc;
}

}  // namespace ep::detail
