// Shared by the one-sided (RMA) tests: the few collectives and communicator
// calls they need besides the window API, windows made the same way in both
// programs of a differential test, and small helpers for output lines.
//
// api::Put etc. are ep::Put in the endpoint program and MPI_Put in the
// plain-MPI one (the window API is in the harness's mpi_shim); rcoll::Allreduce
// etc. are ep::Allreduce or MPI_Allreduce (the shim has point-to-point only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "helpers.hpp"

#if defined(EPTEST_MODE_EP)
namespace rcoll = ::ep;
#else
namespace eptest::rma_coll_shim {
using Comm = MPI_Comm;
inline int Barrier(Comm c) { return MPI_Barrier(c); }
inline int Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Allreduce(sb, rb, n, t, op, c);
}
inline int Allgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                     Comm c) {
  return MPI_Allgather(sb, sn, st, rb, rn, rt, c);
}
inline int Comm_split(Comm c, int color, int key, Comm* out) {
  return MPI_Comm_split(c, color, key, out);
}
}  // namespace eptest::rma_coll_shim
namespace rcoll = ::eptest::rma_coll_shim;
#endif

namespace eptest::rma {

/// A window of `ints` ints per rank made by Win_allocate, with
/// MPI_ERRORS_RETURN set on it (a failing call is reported by the test, not
/// by an abort). The size is rounded up to a multiple of 64 bytes: MPICH
/// 4.0.2 misplaces data in Win_allocate windows whose size is not a
/// multiple of 16 bytes (see reference_mpi.hpp), and the reference program
/// must be right. The memory is zeroed and published with a fence, so every
/// rank may start passive-target epochs on it.
struct Window {
  api::Win win = api::WIN_NULL;
  int* base = nullptr;
  int ints = 0;
};
Window allocate(Context& t, api::Comm comm, int ints, int disp_unit = sizeof(int));
/// Win_free, checked; the handle must be WIN_NULL after.
void free_window(Context& t, api::Win& win);

/// Reads `count` ints at displacement `disp` (in ints) of rank `target`
/// under a shared lock: the way to look at window memory that others may
/// have written in passive-target epochs.
std::vector<int> read_locked(Context& t, api::Win win, int target, int disp, int count);

/// "1 2 3".
std::string join(const std::vector<int>& v);
std::string join(const int* v, int count);
/// The class name of an error code ("MPI_ERR_RMA_RANGE"), "MPI_SUCCESS" for 0.
std::string class_of(int rc);
/// "MPI_WIN_FLAVOR_CREATE", "MPI_WIN_UNIFIED", ...
std::string flavor_name(int flavor);
std::string model_name(int model);

}  // namespace eptest::rma
