#include "coll/typed.hpp"

#include <algorithm>
#include <cstring>

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

void copy_data(const TypedBuf& from, const TypedBuf& to) {
  copy_typed({from.base, from.count, from.type, from.layout},
             {to.data(), to.count, to.type, to.layout});
}

std::size_t span_bytes(int count, const TypeLayout& layout, MPI_Aint* offset) {
  if (count <= 0) {
    *offset = 0;
    return 1;
  }
  const MPI_Aint stretch = static_cast<MPI_Aint>(count - 1) * layout.extent;
  const MPI_Aint low = layout.true_lb + std::min<MPI_Aint>(0, stretch);
  const MPI_Aint high = layout.true_lb + layout.true_extent + std::max<MPI_Aint>(0, stretch);
  *offset = low;
  return static_cast<std::size_t>(std::max<MPI_Aint>(high - low, 1));
}

void* typed_base(std::byte* memory, int count, const TypeLayout& layout) {
  MPI_Aint offset = 0;
  span_bytes(count, layout, &offset);
  // MPI addresses elements from the base, which may lie before the memory
  // when the type's data starts after its lower bound.
  return memory - offset;
}

TypedStorage::TypedStorage(int count, MPI_Datatype type, const TypeLayout& layout, bool zeroed)
    : count_(count), type_(type), layout_(layout) {
  MPI_Aint offset = 0;
  const std::size_t bytes = span_bytes(count, layout, &offset);
  memory_ = zeroed ? std::make_unique<std::byte[]>(bytes)
                   : std::make_unique_for_overwrite<std::byte[]>(bytes);
  base_ = memory_.get() - offset;
}

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
    return TypedBuf{base, 0, r.type, r.layout}.at(range.first);
  };
  void* const out = part(acc);
  int rc = MPI_SUCCESS;
  if (holds < 0 || holds == n - 1 || r.commutative) {
    // acc starts as the last operand (or as the in-place one, when the op
    // lets operands be reordered) and takes the others from the left.
    const int start = holds < 0 ? n - 1 : holds;
    if (holds < 0)
      copy_data({part(in[start]), range.count, r.type, r.layout},
                {out, range.count, r.type, r.layout});
    for (int i = n - 1; i >= 0 && rc == MPI_SUCCESS; --i) {
      if (i != start) rc = reduce_local(part(in[i]), out, range.count, r);
    }
    return rc;
  }
  // Non-commutative and acc holds a middle operand: fold the operands to
  // its right in a temporary, put acc's operand in front, then the rest.
  TypedStorage temp(range.count, r.type, r.layout);
  copy_data({part(in[n - 1]), range.count, r.type, r.layout}, temp.buf());
  for (int i = n - 2; i >= 0 && rc == MPI_SUCCESS; --i) {
    rc = reduce_local(i == holds ? out : part(in[i]), temp.base(), range.count, r);
  }
  if (rc == MPI_SUCCESS) copy_data(temp.buf(), {out, range.count, r.type, r.layout});
  return rc;
}

}  // namespace ep::detail
