// Starting and ending MPI in the tools, so that LeakSanitizer reports only
// what is ours, and ending a job whose ranks all reached one verdict.
//
// Open MPI opens every component at MPI_Init and unloads those it does not
// select; what they allocated then belongs to no library a suppression could
// name. So allocations made inside MPI_Init are not tracked, and the leak
// check runs just before MPI_Finalize, while the components that stay are
// still loaded (suites/lsan.supp names them). Without AddressSanitizer these
// are plain MPI_Init_thread and MPI_Finalize.
#pragma once

namespace ep::tools {

/// MPI_Init_thread, its allocations kept out of leak reports.
int init_mpi(int* argc, char*** argv, int required, int* provided);

/// Checks for leaks (under AddressSanitizer), then MPI_Finalize.
int finalize_mpi();

/// The exit status of this process for a verdict that every rank of the job
/// reached alike and world rank 0 printed (a usage error, a check's result):
/// `status` on rank 0 (`printer`), 0 on the others. A launcher ends the whole
/// job as soon as one of its processes exits non-zero, and could kill rank 0
/// before its message was out; mpirun still exits with rank 0's status.
/// Without a launcher the process is rank 0.
int shared_verdict(int status, bool printer);

}  // namespace ep::tools
