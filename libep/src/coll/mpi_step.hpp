// How the leader waits for its MPI step.
//
// A blocking MPI collective spins inside MPI until the other processes
// arrive, and Open MPI yields the core only when it believes the node is
// oversubscribed (more processes than slots), which it does not know about
// threads. Endpoints of the leader's own process that share its core would
// then wait for the scheduler's time slice. So the leader starts the
// non-blocking form of the collective and completes it here, polling with
// back-off: a few spins, then sched_yield between polls. It never naps,
// because without polling the MPI library makes no progress.
#pragma once

#include <mpi.h>

namespace ep::detail {

/// Completes `*request` (started by an MPI_I... call that returned `rc`).
/// Returns the MPI error code of the start or of the completion.
int complete(int rc, MPI_Request* request);

/// Completes all of `requests` the same way; returns the first error code
/// (a request's own error rather than MPI_ERR_IN_STATUS).
int complete_all(int count, MPI_Request* requests);

}  // namespace ep::detail
