// User-defined reduction ops held while an operation that uses them after
// its call returned is pending (the non-blocking reductions).
//
// MPI lets a user free an op right after starting a non-blocking reduction:
// the free is deferred until the operations that use the op complete. A
// datatype libep holds by duplicating it (MPI_Type_dup), but MPI has no way
// to duplicate an op or to read its function back. So libep defines
// MPI_Op_free itself, through MPI's profiling interface (every MPI function
// is also PMPI_..., and a program's own MPI_X replaces the library's): an op
// that libep holds is only marked when the user frees it (the user's handle
// becomes MPI_OP_NULL, as MPI makes it), and the last holder frees it with
// PMPI_Op_free. Any other op goes to PMPI_Op_free at once. The definition
// lives in held_op.cpp with the registry, so that whichever program links a
// holder (the non-blocking reductions, from a static libep.a too) links the
// definition as well.
#pragma once

#include <mpi.h>

namespace ep::detail {

/// A hold on an op for as long as the object lives; copies hold it again.
/// Predefined ops need no hold and cost nothing.
class HeldOp {
 public:
  HeldOp() = default;
  explicit HeldOp(MPI_Op op);
  HeldOp(const HeldOp& other);
  HeldOp& operator=(const HeldOp& other);
  HeldOp(HeldOp&& other) noexcept;
  HeldOp& operator=(HeldOp&& other) noexcept;
  ~HeldOp() { release(); }

  MPI_Op get() const { return op_; }

 private:
  void release();

  MPI_Op op_ = MPI_OP_NULL;
  bool held_ = false;  // whether op_ is in the registry on this object's behalf
};

/// Whether `op` is one of MPI's predefined ops (which MPI_Op_free refuses).
bool is_predefined_op(MPI_Op op);

}  // namespace ep::detail
