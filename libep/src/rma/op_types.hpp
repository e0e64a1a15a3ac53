// Which predefined operations MPI defines on which predefined types (MPI-4.0
// section 6.9.2), for the accumulate family. Open MPI 4.1.4 checks the pair
// in MPI_Accumulate but not in MPI_Fetch_and_op, whose one-sided layer then
// dies of SIGSEGV (MPI_BAND on MPI_FLOAT, MPI_SUM on MPI_2INT), and the
// local path of a one-process window meets it in MPI_Reduce_local, which
// reports through MPI_COMM_WORLD's handler rather than the window's: libep
// checks the pair itself, before either.
#pragma once

#include <mpi.h>

#include <string>

namespace ep::detail {

/// The predefined type every basic element of `type` is, found through the
/// type's constructors (MPI allows accumulate operations only on types built
/// of one predefined type); MPI_DATATYPE_NULL if they are of several.
/// Returns an MPI error code.
int element_type(MPI_Datatype type, MPI_Datatype* element);

/// Whether MPI defines the predefined reduction `op` (not MPI_REPLACE or
/// MPI_NO_OP, which apply to any type) on elements of the predefined type
/// `element`.
bool op_defined_on(MPI_Op op, MPI_Datatype element);

/// Whether MPI_Compare_and_swap takes `type`: a predefined C or Fortran
/// integer, logical or byte type (MPI-4.0 section 12.3.4).
bool swappable(MPI_Datatype type);

/// MPI's name of `type` ("MPI_FLOAT"), for messages; `fallback` if it has none.
std::string type_name(MPI_Datatype type, const char* fallback);

/// The name of the predefined reduction `op`, for messages ("MPI_BAND").
const char* op_name(MPI_Op op);

}  // namespace ep::detail
