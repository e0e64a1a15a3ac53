// Starting and ending MPI in the tools, so that LeakSanitizer reports only
// what is ours, and ending a job whose ranks all reached one verdict.
//
// A verdict every rank reaches alike (--help, a command-line error, a file
// that cannot be written) is world rank 0's to print, once per job, and every
// rank exits with its status: a batch script sees the same status from each
// process as from the launcher. The others exit only after rank 0 has printed
// (a barrier), since a launcher ends the whole job as soon as one process
// exits non-zero and would otherwise kill rank 0 before its message is out.
//
// Open MPI opens every component at MPI_Init and unloads those it does not
// select; what they allocated then belongs to no library a suppression could
// name. So allocations made inside MPI_Init are not tracked, and the leak
// check runs just before MPI_Finalize, while the components that stay are
// still loaded (suites/lsan.supp names them). Without AddressSanitizer these
// are plain MPI_Init_thread and MPI_Finalize.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>

#include "mpi_check.hpp"

namespace ep::tools {

/// MPI_Init_thread, its allocations kept out of leak reports.
int init_mpi(int* argc, char*** argv, int required, int* provided);

/// Checks for leaks (under AddressSanitizer), then MPI_Finalize.
int finalize_mpi();

/// Before MPI starts, the rank a launcher gave this process: the first of
/// OMPI_COMM_WORLD_RANK, PMIX_RANK and PMI_RANK that holds a decimal number,
/// or -1 if none does (a value that is no rank, such as an empty one, is not
/// taken for one).
int launcher_rank();

/// A verdict reached before MPI starts (--help, a command-line error):
/// `text` (stdout for status 0, else stderr) printed once per job, and
/// `status` returned on every rank. Without a launcher (launcher_rank() < 0)
/// this process prints and MPI never starts. Under one, every rank starts MPI
/// to learn its world rank (a variable left over from a launcher then makes
/// this process a singleton, rank 0, which prints); the others return only
/// after rank 0 has printed. \note Collective over MPI_COMM_WORLD under a
/// launcher; MPI is finalized before it returns.
int early_verdict(const std::string& text, int status);

/// A verdict every rank of a running job reached alike: world rank 0 prints
/// it (`say()`), the others wait until it has, and all return `status`.
/// \note Collective over MPI_COMM_WORLD.
template <class Say>
int job_verdict(int world_rank, int status, const Say& say) {
  if (world_rank == 0) say();
  std::fflush(stdout);
  std::fflush(stderr);
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return status;
}

}  // namespace ep::tools
