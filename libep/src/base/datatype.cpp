#include "base/datatype.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace ep::detail {

int query_layout(MPI_Datatype type, TypeLayout* layout) {
  int rc = MPI_Type_size(type, &layout->size);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint lb = 0;
  rc = MPI_Type_get_extent(type, &lb, &layout->extent);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Type_get_true_extent(type, &layout->true_lb, &layout->true_extent);
}

namespace {

const std::byte* data_start(const ConstTyped& t) {
  return static_cast<const std::byte*>(t.buf) + t.layout.true_lb;
}
std::byte* data_start(const Typed& t) { return static_cast<std::byte*>(t.buf) + t.layout.true_lb; }

// Whole elements of `to` that `bytes` bytes fill, capped by to's count.
int elements_within(std::int64_t bytes, const Typed& to) {
  if (to.layout.size == 0) return 0;
  return static_cast<int>(std::min<std::int64_t>(to.count, bytes / to.layout.size));
}

}  // namespace

void pack(const ConstTyped& from, std::byte* out) {
  if (from.bytes() == 0) return;
  if (from.layout.contiguous(from.count)) {
    std::memcpy(out, data_start(from), static_cast<std::size_t>(from.bytes()));
    return;
  }
  int position = 0;
  MPI_Pack(from.buf, from.count, from.type, out, static_cast<int>(from.bytes()), &position,
           MPI_COMM_SELF);
}

void unpack(const std::byte* in, std::int64_t bytes, const Typed& to) {
  const std::int64_t fit = std::min(bytes, to.bytes());
  if (fit <= 0) return;
  if (to.layout.contiguous(to.count)) {
    std::memcpy(data_start(to), in, static_cast<std::size_t>(fit));
    return;
  }
  const int elements = elements_within(fit, to);
  if (elements == 0) return;
  int position = 0;
  MPI_Unpack(in, static_cast<int>(fit), &position, to.buf, elements, to.type, MPI_COMM_SELF);
}

void copy_typed(const ConstTyped& from, const Typed& to) {
  const std::int64_t fit = std::min(from.bytes(), to.bytes());
  if (fit <= 0) return;
  const bool from_contiguous = from.layout.contiguous(from.count);
  if (from_contiguous && to.layout.contiguous(to.count)) {
    std::memcpy(data_start(to), data_start(from), static_cast<std::size_t>(fit));
  } else if (from_contiguous) {
    unpack(data_start(from), fit, to);
  } else {
    // The sender's data is scattered: gather it once, then place it.
    auto staging =
        std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(from.bytes()));
    pack(from, staging.get());
    unpack(staging.get(), fit, to);
  }
}

}  // namespace ep::detail
