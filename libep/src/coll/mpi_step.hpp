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
//
// Small Barrier, Bcast and Allreduce make their step among the processes
// with point-to-point messages instead of the non-blocking collectives:
// Open MPI's MPI_Ibcast, MPI_Iallreduce and MPI_Ibarrier (coll/libnbc) build
// a schedule on the heap per call and advance it from a progress callback,
// which measured (2 processes, 2-core machine loaded by other jobs, Open MPI
// 4.1, two runs) 0.7-1.7 us per pipelined 8-byte Ibcast against 0.24-0.8 us
// for an Isend/Irecv, and 12-25 us per 2-process Iallreduce against 4.5-9.5
// us for an exchange of Isend/Irecv. Each message names its source and its
// collective's tag, and MPI does not let messages between two processes
// overtake each other, so the steps of successive calls never take each
// other's messages. Tags 8 to 10 are theirs on the communicator
// (coll/exchange.cpp uses 7).
//
// Between processes that a ring reaches (node/rings.hpp), messages of up to
// kNodeStepLimit bytes go through the ring instead of MPI: a record into
// the peer's ring, taken there by the peer's step, with no MPI call and no
// request on either side. Both ends choose the same way for each message
// (node_step_routed: the pair and the size, which every process knows), and
// the ring keeps one sender's messages in order, as MPI does.
#pragma once

#include <mpi.h>

#include "coll/elements.hpp"
#include "object/endpoint.hpp"

namespace ep::detail {

/// Completes `*request` (started by an MPI_I... call that returned `rc`),
/// calling `pause()` after each test that finds it under way. Returns the
/// MPI error code of the start or of the completion.
template <class Pause>
int complete_pausing(int rc, MPI_Request* request, Pause&& pause) {
  if (rc != MPI_SUCCESS) return rc;
  for (;;) {
    int done = 0;
    rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    pause();
  }
}

/// complete_pausing with the leaders' pause: a few spinning polls, then
/// yields.
int complete(int rc, MPI_Request* request);

/// Completes all of `requests` the same way; returns the first error code
/// (a request's own error rather than MPI_ERR_IN_STATUS).
int complete_all(int count, MPI_Request* requests);

/// A barrier among the processes of shared's MPI communicator (a
/// dissemination barrier: every process learns of every other's arrival in
/// ceil(log2 size) rounds). Collective over the processes.
int message_barrier(const CommShared& shared);

/// Broadcasts `bytes` bytes at `buf` from process `root` of shared's MPI
/// communicator, along a binomial tree. Collective over the processes.
int message_bcast(const CommShared& shared, int root, void* buf, int bytes);

/// Whether message_allreduce() can take `size` processes: a power of two.
inline bool message_allreduce_fits(int size) { return size > 0 && (size & (size - 1)) == 0; }

/// Allreduce in place of `count` elements at `acc` (a buffer of the
/// reduction's type) among the processes of shared's MPI communicator, by
/// recursive doubling:
/// in round k each process exchanges its partial result with the process
/// whose rank differs in bit k, and combines the lower rank's on the left,
/// so every process combines the blocks of ranks in rank order (exact for a
/// non-commutative op) and all get the same bytes. The number of processes
/// must fit (message_allreduce_fits). Collective over the processes.
int message_allreduce(const CommShared& shared, void* acc, int count, const Reduction& r);

}  // namespace ep::detail
