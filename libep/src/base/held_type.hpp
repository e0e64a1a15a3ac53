// Datatypes held for operations that use them after their call returned
// (point-to-point requests, the non-blocking collectives).
//
// MPI lets a user free a datatype while operations that use it are pending:
// the free is deferred until they complete. libep reads a datatype later
// than MPI would (a receive's data moves in the receiver's Test or Wait, a
// non-blocking collective unpacks in the endpoint's), so it holds its own
// duplicate of a derived datatype (MPI_Type_dup) for as long as it needs
// one. A predefined datatype needs no hold and costs nothing.
#pragma once

#include <mpi.h>

#include <utility>
#include <vector>

#include "base/datatype.hpp"

namespace ep::detail {

/// One datatype, held for as long as the object lives.
class HeldType {
 public:
  HeldType() = default;
  HeldType(const HeldType&) = delete;
  HeldType& operator=(const HeldType&) = delete;
  HeldType(HeldType&& other) noexcept : copy_(std::exchange(other.copy_, MPI_DATATYPE_NULL)) {}
  HeldType& operator=(HeldType&& other) noexcept;
  ~HeldType() {
    if (holding()) release();
  }

  /// Holds *type (letting go of what was held before) and makes *type the
  /// held datatype: a duplicate when derived. Returns an MPI error code
  /// (*type then unchanged, nothing held).
  int hold(MPI_Datatype* type);
  /// Whether a duplicate is held.
  bool holding() const { return copy_ != MPI_DATATYPE_NULL; }
  /// The duplicate held, or MPI_DATATYPE_NULL.
  MPI_Datatype duplicate() const { return copy_; }

 private:
  void release();

  MPI_Datatype copy_ = MPI_DATATYPE_NULL;  // the duplicate of a derived datatype
};

/// The datatypes of several buffers of one operation: each derived
/// datatype duplicated once, however many buffers use it.
class HeldTypes {
 public:
  HeldTypes() = default;
  HeldTypes(const HeldTypes&) = delete;
  HeldTypes& operator=(const HeldTypes&) = delete;
  HeldTypes(HeldTypes&&) noexcept = default;
  HeldTypes& operator=(HeldTypes&&) = delete;
  ~HeldTypes() = default;

  /// Makes `t` use the held copy of its datatype. Returns an MPI error code
  /// (`t` then keeps the user's datatype).
  int hold(Typed* t);

 private:
  std::vector<std::pair<MPI_Datatype, HeldType>> copies_;  // (user's, held)
};

}  // namespace ep::detail
