// Moving typed data between two buffers of one address space.
//
// An intra-process message goes from the sender's (buf, count, datatype) to
// the receiver's in one copy when both sides are contiguous. Derived
// datatypes go through MPI_Pack/MPI_Unpack, whose native representation is
// the plain bytes of the type signature on the homogeneous systems libep
// runs on (one address space), so a packed message is also what a
// contiguous buffer holds.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ep::detail {

struct TypeLayout {
  int size = 0;              // bytes of data in one element
  MPI_Aint extent = 0;       // stride between elements
  MPI_Aint true_lb = 0;      // offset of the first byte from the buffer address
  MPI_Aint true_extent = 0;  // span of one element's data

  bool contiguous(int count) const { return size == true_extent && (count <= 1 || extent == size); }
};

/// The layout of a datatype; returns an MPI error code.
int query_layout(MPI_Datatype type, TypeLayout* layout);

struct ConstTyped {
  const void* buf;
  int count;
  MPI_Datatype type;
  TypeLayout layout;
  std::int64_t bytes() const { return std::int64_t{count} * layout.size; }
};

struct Typed {
  void* buf;
  int count;
  MPI_Datatype type;
  TypeLayout layout;
  std::int64_t bytes() const { return std::int64_t{count} * layout.size; }
};

/// A buffer laid out for `count` elements of a datatype, as a receive
/// buffer of that type would be: base() is the address to pass to MPI, the
/// memory covers [base() + true_lb, base() + true_lb + span).
class TypedScratch {
 public:
  TypedScratch(int count, const TypeLayout& layout)
      : span_(count > 0 ? (count - 1) * layout.extent + layout.true_extent : 0),
        memory_(new std::byte[static_cast<std::size_t>(span_ > 0 ? span_ : 1)]),
        true_lb_(layout.true_lb) {}
  void* base() const { return memory_.get() - true_lb_; }

 private:
  MPI_Aint span_;
  std::unique_ptr<std::byte[]> memory_;
  MPI_Aint true_lb_;
};

/// Copies the message `from` into `to`, at most to's capacity: whole
/// elements of `to` for derived types, every byte that fits for contiguous
/// ones. Nothing beyond `to`'s capacity is written.
void copy_typed(const ConstTyped& from, const Typed& to);

/// Packs the whole message into `out`, which holds from.bytes() bytes.
void pack(const ConstTyped& from, std::byte* out);

/// Unpacks `bytes` packed bytes into `to`, at most to's capacity.
void unpack(const std::byte* in, std::int64_t bytes, const Typed& to);

}  // namespace ep::detail
