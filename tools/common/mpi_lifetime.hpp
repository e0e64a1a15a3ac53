// Starting and ending MPI in the tools, so that LeakSanitizer reports only
// what is ours.
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

}  // namespace ep::tools
