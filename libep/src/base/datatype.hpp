// Typed buffers: (buf, count, datatype) as MPI sees them, and moving their
// data within one address space.
//
// Element i of a buffer starts at buf + i * extent, as in MPI, and its data
// lies at [true_lb, true_lb + true_extent) from there. MPI allows every one
// of these to be negative (MPI_Type_create_resized with a negative extent, a
// vector with a negative stride), so the memory a buffer covers is not
// [buf, buf + count * extent): Footprint says where it is, for either sign.
//
// An intra-process message goes from the sender's buffer to the receiver's
// in one copy when both sides are contiguous. Derived datatypes go through
// MPI_Pack/MPI_Unpack, whose native representation is the plain bytes of the
// type signature on the homogeneous systems libep runs on (one address
// space), so a packed message is also what a contiguous buffer holds.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace ep::detail {

/// The memory `count` elements of a type cover: [buf + offset, buf + offset
/// + bytes), where buf is the address one passes to MPI.
struct Footprint {
  MPI_Aint offset = 0;
  std::size_t bytes = 0;
};

struct TypeLayout {
  int size = 0;              // bytes of data in one element
  MPI_Aint extent = 0;       // stride between elements; may be negative
  MPI_Aint true_lb = 0;      // offset of an element's first byte from its start
  MPI_Aint true_extent = 0;  // span of one element's data
  bool predefined = false;   // known to be predefined (query_layout's table of common types)

  bool contiguous(int count) const { return size == true_extent && (count <= 1 || extent == size); }
  Footprint footprint(int count) const;
};

/// The layout of a datatype; returns an MPI error code.
int query_layout(MPI_Datatype type, TypeLayout* layout);

/// The predefined types that small messages use most, with their layouts
/// (query_layout's table), where the argument checks of every call can look
/// them up inline: `count` entries are filled, published with release order
/// once, at the first query_layout or is_predefined of the process.
struct KnownTypes {
  static constexpr int kCapacity = 16;
  std::atomic<int> count{0};
  MPI_Datatype types[kCapacity] = {};
  TypeLayout layouts[kCapacity];
};
extern KnownTypes known_types;

/// The layout of `type` if it is in the table (known_types), else nullptr
/// (not yet filled, or another type: query_layout then asks MPI).
inline const TypeLayout* known_layout(MPI_Datatype type) {
  const int count = known_types.count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    if (known_types.types[i] == type) return &known_types.layouts[i];
  }
  return nullptr;
}

/// Whether `type` is a predefined datatype (one MPI_Type_free cannot free).
bool is_predefined(MPI_Datatype type);

/// `count` elements of `type` at `buf`. ConstTyped is data to read, Typed
/// data to write; a Typed converts to a ConstTyped.
template <class Void>
struct BasicTyped {
  using Byte = std::conditional_t<std::is_const_v<Void>, const std::byte, std::byte>;

  Void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeLayout layout;

  std::int64_t bytes() const { return std::int64_t{count} * layout.size; }
  /// The address of element `i` (which may lie below buf).
  Void* at(std::int64_t i) const { return static_cast<Byte*>(buf) + i * layout.extent; }
  /// Elements [first, first + n) as a buffer of their own.
  BasicTyped slice(std::int64_t first, int n) const { return {at(first), n, type, layout}; }
  /// Where the data starts: all of it, if layout.contiguous(count).
  Byte* data_start() const { return static_cast<Byte*>(buf) + layout.true_lb; }

  operator BasicTyped<const void>() const requires(!std::is_const_v<Void>) {
    return {buf, count, type, layout};
  }
};
using ConstTyped = BasicTyped<const void>;
using Typed = BasicTyped<void>;

/// Memory for `count` elements of a type, laid out as a buffer of that type
/// would be: typed() covers exactly its Footprint.
class TypedScratch {
 public:
  enum class Fill { none, zero };

  TypedScratch() = default;
  TypedScratch(int count, MPI_Datatype type, const TypeLayout& layout, Fill fill = Fill::none);
  void* base() const { return typed_.buf; }
  const Typed& typed() const { return typed_; }

 private:
  std::unique_ptr<std::byte[]> memory_;
  Typed typed_;
};

/// The address to pass to MPI for `count` elements laid out in `memory`,
/// which holds at least layout.footprint(count).bytes bytes.
void* typed_base(std::byte* memory, int count, const TypeLayout& layout);

/// Copies the message `from` into `to` (type signatures as MPI matches
/// them), at most to's capacity: every byte that fits, also when the
/// message ends inside an element of `to` (its basic elements received are
/// stored, as MPI stores them). Nothing beyond `to`'s capacity is written.
/// Returns an MPI error code.
int copy_typed(const ConstTyped& from, const Typed& to);

/// Packs the whole message into `out`, which holds from.bytes() bytes.
/// Returns an MPI error code.
int pack(const ConstTyped& from, std::byte* out);

/// Unpacks `bytes` packed bytes into `to`, at most to's capacity, a last
/// partial element included (as copy_typed). Returns an MPI error code.
int unpack(const std::byte* in, std::int64_t bytes, const Typed& to);

}  // namespace ep::detail
