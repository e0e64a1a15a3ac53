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

namespace ep::detail {

struct TypeLayout {
  int size = 0;                // bytes of data in one element
  MPI_Aint extent = 0;         // stride between elements
  MPI_Aint true_lb = 0;        // offset of the first byte from the buffer address
  MPI_Aint true_extent = 0;    // span of one element's data

  bool contiguous(int count) const {
    return size == true_extent && (count <= 1 || extent == size);
  }
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

/// Copies the message `from` into `to`, at most to's capacity: whole
/// elements of `to` for derived types, every byte that fits for contiguous
/// ones. Nothing beyond `to`'s capacity is written.
void copy_typed(const ConstTyped& from, const Typed& to);

/// Packs the whole message into `out`, which holds from.bytes() bytes.
void pack(const ConstTyped& from, std::byte* out);

/// Unpacks `bytes` packed bytes into `to`, at most to's capacity.
void unpack(const std::byte* in, std::int64_t bytes, const Typed& to);

}  // namespace ep::detail
