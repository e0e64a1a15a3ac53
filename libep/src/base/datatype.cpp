#include "base/datatype.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace ep::detail {

namespace {

int ask_mpi(MPI_Datatype type, TypeLayout* layout) {
  int rc = MPI_Type_size(type, &layout->size);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint lb = 0;
  rc = MPI_Type_get_extent(type, &lb, &layout->extent);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Type_get_true_extent(type, &layout->true_lb, &layout->true_extent);
}

// The table of known_layout (datatype.hpp): the three MPI queries of a
// layout cost as much as a third of an 8-byte Put (research rma.md 2.5:
// 0.048 us), and a tenth of a message's time at the message rate of
// point-to-point. Only predefined handles are kept: a derived type's handle
// may be freed and reused for another type.
void fill_known_types() {
  static const bool filled = [] {
    int count = 0;
    for (MPI_Datatype t : {MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_INT32_T, MPI_INT64_T,
                           MPI_LONG, MPI_LONG_LONG, MPI_UINT32_T, MPI_UINT64_T, MPI_UNSIGNED,
                           MPI_UNSIGNED_LONG, MPI_FLOAT, MPI_SHORT, MPI_UNSIGNED_CHAR}) {
      TypeLayout layout;
      if (count == KnownTypes::kCapacity || ask_mpi(t, &layout) != MPI_SUCCESS) continue;
      layout.predefined = true;
      known_types.types[count] = t;
      known_types.layouts[count] = layout;
      ++count;
    }
    known_types.count.store(count, std::memory_order_release);
    return true;
  }();
  static_cast<void>(filled);
}

const TypeLayout* find_known(MPI_Datatype type) {
  fill_known_types();
  return known_layout(type);
}

}  // namespace

KnownTypes known_types;

int query_layout(MPI_Datatype type, TypeLayout* layout) {
  if (const TypeLayout* known = find_known(type)) {
    *layout = *known;
    return MPI_SUCCESS;
  }
  return ask_mpi(type, layout);
}

bool is_predefined(MPI_Datatype type) {
  if (find_known(type)) return true;
  int integers = 0;
  int addresses = 0;
  int types = 0;
  int combiner = 0;
  return MPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

Footprint TypeLayout::footprint(int count) const {
  if (count <= 0) return {};
  // The elements run downwards from buf when the extent is negative.
  const MPI_Aint stretch = static_cast<MPI_Aint>(count - 1) * extent;
  const MPI_Aint low = true_lb + std::min<MPI_Aint>(0, stretch);
  const MPI_Aint high = true_lb + true_extent + std::max<MPI_Aint>(0, stretch);
  return {low, static_cast<std::size_t>(high - low)};
}

void* typed_base(std::byte* memory, int count, const TypeLayout& layout) {
  // MPI addresses elements from the base, which lies outside the memory
  // when the lowest byte of data is not at the base.
  return memory - layout.footprint(count).offset;
}

TypedScratch::TypedScratch(int count, MPI_Datatype type, const TypeLayout& layout, Fill fill) {
  // Never empty, so that the base is an address inside an allocation.
  const std::size_t bytes = std::max<std::size_t>(layout.footprint(count).bytes, 1);
  memory_ = fill == Fill::zero ? std::make_unique<std::byte[]>(bytes)
                               : std::make_unique_for_overwrite<std::byte[]>(bytes);
  typed_ = {typed_base(memory_.get(), count, layout), count, type, layout};
}

namespace {

// Whole elements of `to` that `bytes` bytes fill, capped by to's count.
int elements_within(std::int64_t bytes, const Typed& to) {
  if (to.layout.size == 0) return 0;
  return static_cast<int>(std::min<std::int64_t>(to.count, bytes / to.layout.size));
}

// Stores the first `bytes` bytes of one packed element (fewer than its
// size) into `element`: a message that ends inside an element of the
// receive type, of which MPI stores every basic element received
// (MPI_Get_elements counts them). MPI_Unpack takes whole elements only, so
// the element's current contents are packed, the received prefix laid over
// them, and the whole element unpacked back: the basic elements past the
// message get the values they held. The receive buffer is the receive's
// alone until it completes, so rewriting them is not observable.
int unpack_partial(const std::byte* in, std::int64_t bytes, const Typed& element) {
  const int size = element.layout.size;
  auto staging = std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(size));
  int position = 0;
  int rc = MPI_Pack(element.buf, 1, element.type, staging.get(), size, &position, MPI_COMM_SELF);
  if (rc != MPI_SUCCESS) return rc;
  std::memcpy(staging.get(), in, static_cast<std::size_t>(bytes));
  position = 0;
  return MPI_Unpack(staging.get(), size, &position, element.buf, 1, element.type, MPI_COMM_SELF);
}

}  // namespace

int pack(const ConstTyped& from, std::byte* out) {
  if (from.bytes() == 0) return MPI_SUCCESS;
  if (from.layout.contiguous(from.count)) {
    std::memcpy(out, from.data_start(), static_cast<std::size_t>(from.bytes()));
    return MPI_SUCCESS;
  }
  int position = 0;
  return MPI_Pack(from.buf, from.count, from.type, out, static_cast<int>(from.bytes()), &position,
                  MPI_COMM_SELF);
}

int unpack(const std::byte* in, std::int64_t bytes, const Typed& to) {
  const std::int64_t fit = std::min(bytes, to.bytes());
  if (fit <= 0) return MPI_SUCCESS;
  if (to.layout.contiguous(to.count)) {
    std::memcpy(to.data_start(), in, static_cast<std::size_t>(fit));
    return MPI_SUCCESS;
  }
  const int elements = elements_within(fit, to);
  const std::int64_t whole_bytes = std::int64_t{elements} * to.layout.size;
  int rc = MPI_SUCCESS;
  if (elements > 0) {
    int position = 0;
    rc = MPI_Unpack(in, static_cast<int>(whole_bytes), &position, to.buf, elements, to.type,
                    MPI_COMM_SELF);
  }
  if (rc == MPI_SUCCESS && fit > whole_bytes) {
    rc = unpack_partial(in + whole_bytes, fit - whole_bytes, to.slice(elements, 1));
  }
  return rc;
}

int copy_typed(const ConstTyped& from, const Typed& to) {
  const std::int64_t fit = std::min(from.bytes(), to.bytes());
  if (fit <= 0) return MPI_SUCCESS;
  const bool from_contiguous = from.layout.contiguous(from.count);
  if (from_contiguous && to.layout.contiguous(to.count)) {
    std::memcpy(to.data_start(), from.data_start(), static_cast<std::size_t>(fit));
    return MPI_SUCCESS;
  }
  if (from_contiguous) return unpack(from.data_start(), fit, to);
  // The sender's data is scattered: gather it once, then place it.
  auto staging =
      std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(from.bytes()));
  const int rc = pack(from, staging.get());
  return rc == MPI_SUCCESS ? unpack(staging.get(), fit, to) : rc;
}

}  // namespace ep::detail
