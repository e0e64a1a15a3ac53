// Typed buffers as collectives see them: ranges of elements to copy, to
// reduce in rank order and to split between the endpoints of a process.
//
// An element is one instance of the datatype: element i of a buffer starts
// at base + i * extent, as in MPI. Ranges of elements are what the
// endpoints of a process divide among themselves when a copy or reduction is
// large: MPI ops work element by element, so any split is exact.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "base/datatype.hpp"

namespace ep::detail {

/// `count` elements of `type` at `base` (the address one passes to MPI).
struct TypedBuf {
  const void* base = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;

  void* data() const { return const_cast<void*>(base); }
  /// The address of element `i`.
  void* at(std::int64_t i) const { return static_cast<std::byte*>(data()) + i * layout.extent; }
  /// Elements [first, first + n) as a buffer of their own.
  TypedBuf slice(std::int64_t first, int n) const { return {at(first), n, type, layout}; }
  std::int64_t bytes() const { return std::int64_t{count} * layout.size; }
};

/// Copies the data of `from` into `to` (type signatures as MPI matches
/// them), at most to's capacity.
void copy_data(const TypedBuf& from, const TypedBuf& to);

/// Bytes of memory `count` elements of a type cover, and the offset of the
/// first of them from the base address (true_lb, or lower with a negative
/// extent).
std::size_t span_bytes(int count, const TypeLayout& layout, MPI_Aint* offset);

/// Memory for `count` elements of a type, laid out as a buffer of that type.
class TypedStorage {
 public:
  TypedStorage() = default;
  TypedStorage(int count, MPI_Datatype type, const TypeLayout& layout, bool zeroed = false);
  TypedBuf buf() const { return {base_, count_, type_, layout_}; }
  void* base() const { return base_; }

 private:
  std::unique_ptr<std::byte[]> memory_;
  void* base_ = nullptr;
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  TypeLayout layout_;
};

/// The base address for `count` elements laid out in `memory`, which holds
/// span_bytes(count, layout) bytes.
void* typed_base(std::byte* memory, int count, const TypeLayout& layout);

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
