// Where the MPI under the plain-MPI reference program is known to depart from
// the MPI standard, or from what libep promises where the standard leaves it
// open, so that the reference cannot be the reference for one step of a test.
//
// A test asks before such a step. The reference program then skips the step;
// the endpoint program still runs and checks it, and prints nothing for it,
// so that the two outputs stay comparable. Each entry says which versions it
// was measured on and the evidence. Both programs of a test link the same MPI,
// so they agree on every answer here.
#pragma once

#include <mpi.h>

namespace eptest::reference {

#if defined(MPICH_NUMVERSION)  // MPICH and its derivatives (MVAPICH, Intel MPI)
inline constexpr bool kMpich = true;
inline constexpr long kMpichVersion = MPICH_NUMVERSION;  // 4.0.2 is 40002300
#else
inline constexpr bool kMpich = false;
inline constexpr long kMpichVersion = 0;
#endif

/// A non-blocking receive from MPI_PROC_NULL completes with MPI_SOURCE 0 and
/// MPI_TAG 0 instead of MPI_PROC_NULL and MPI_ANY_TAG (MPI-4.0 section 3.10).
/// MPICH before 4.2: pmodels/mpich#6805, fixed by pmodels/mpich#6819.
inline constexpr bool kProcNullIrecvStatusWrong = kMpich && kMpichVersion < 40200000;

/// A persistent receive from MPI_PROC_NULL completes with MPI_SOURCE
/// MPI_ANY_SOURCE instead of MPI_PROC_NULL. Measured on MPICH 4.0.2 (Recv_init,
/// Start, Wait on MPI_COMM_SELF); no fix known, so no version bound.
inline constexpr bool kProcNullPersistentStatusWrong = kMpich;

/// After MPI_ERR_TRUNCATE the count in the status is not the message's length
/// (what libep reports, as Open MPI does; the standard leaves it open), and
/// MPI_Mrecv leaves the message handle set. Measured on MPICH 4.0.2 (ch4:ucx):
/// the count is the bytes that fit for a message to oneself, and 0 or the
/// length of an earlier message between processes.
inline constexpr bool kTruncatedStatusDiffers = kMpich;

/// MPI_Intercomm_merge of an intra-communicator fails an internal assertion
/// and aborts instead of returning MPI_ERR_COMM. Measured on MPICH 4.0.2
/// (ch4i_comm.c:743, "mapper->dir == MPIR_COMM_MAP_DIR__L2L || ..."), with
/// MPI_ERRORS_RETURN on a duplicate of MPI_COMM_WORLD; no fix known.
inline constexpr bool kMergeOfIntracommAborts = kMpich;

}  // namespace eptest::reference
