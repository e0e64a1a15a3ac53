// The blocking calls of the plain-MPI reference programs, waiting politely.
//
// Built into the reference programs (the `_mpi` side of a differential test)
// when the MPI is MPICH, through MPI's profiling interface: each function
// below replaces its MPI_ namesake in the program and runs the nonblocking
// form of the same operation (PMPI_), then waits with PMPI_Test and
// sched_yield. The operation, its arguments, its result and its error class
// are MPI's own; only the waiting changes.
//
// Why: MPICH 4.0.2 waits in its blocking calls by spinning without giving up
// the core. The reference programs run up to 6 processes on 2 cores, where a
// waiting process then burns its whole time slice while the process it waits
// for is descheduled. 300 MPI_Allreduce over 6 processes took 12.5-15.1 s
// blocking and 0.7-0.95 s as MPI_Iallreduce + PMPI_Test + sched_yield
// (MPIR_CVAR_POLLS_BEFORE_YIELD made no difference); coll.stress@2,2's
// reference took 14 s against 1.2 s for the same program on endpoints.
// Open MPI yields by itself when a node is oversubscribed, so its reference
// programs keep the plain calls.
#include <mpi.h>
#include <sched.h>

namespace {

int wait_politely(MPI_Request* request, MPI_Status* status) {
  int done = 0;
  for (;;) {
    const int rc = PMPI_Test(request, &done, status);
    if (rc != MPI_SUCCESS || done) return rc;
    sched_yield();
  }
}

// Starts an operation with `start` (a PMPI_I* call) and waits for it.
template <class Start>
int run(Start start, MPI_Status* status = MPI_STATUS_IGNORE) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = start(&request);
  if (rc != MPI_SUCCESS) return rc;
  return wait_politely(&request, status);
}

}  // namespace

extern "C" {

// Collectives.

int MPI_Barrier(MPI_Comm comm) {
  return run([&](MPI_Request* r) { return PMPI_Ibarrier(comm, r); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return run([&](MPI_Request* r) { return PMPI_Ibcast(buffer, count, datatype, root, comm, r); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r);
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r);
  });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                         comm, r);
  });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, r);
  });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, r);
  });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, r);
  });
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                           recvtypes, comm, r);
  });
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return run([&](MPI_Request* r) {
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

// MPI_Reduce_scatter_block keeps MPICH's blocking call: MPICH 4.0.2's
// MPI_Ireduce_scatter_block with a non-commutative user op on a derived type
// (coll.noncommutative, mat4-in-5) returns wrong elements and corrupts the
// heap.

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
  return run(
      [&](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  return run(
      [&](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

// Point-to-point.

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return run([&](MPI_Request* r) { return PMPI_Isend(buf, count, datatype, dest, tag, comm, r); });
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return run([&](MPI_Request* r) { return PMPI_Issend(buf, count, datatype, dest, tag, comm, r); });
}

// A receive from MPI_PROC_NULL completes at once, and keeps MPICH's blocking
// call: MPICH 4.0.2 reports it through PMPI_Test with source 0 and tag 0
// instead of MPI_PROC_NULL and MPI_ANY_TAG (p2p.special).
//
// Receive and send waited for one after the other, so that each reports its
// own error class as MPI_Sendrecv does (a wait over both would say
// MPI_ERR_IN_STATUS).
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  MPI_Request recv = MPI_REQUEST_NULL;
  MPI_Request send = MPI_REQUEST_NULL;
  int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &recv);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &send);
  if (rc != MPI_SUCCESS) {
    static_cast<void>(PMPI_Cancel(&recv));
    static_cast<void>(PMPI_Request_free(&recv));
    return rc;
  }
  rc = wait_politely(&recv, status);
  const int send_rc = wait_politely(&send, MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : send_rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  if (source == MPI_PROC_NULL) return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
  return run([&](MPI_Request* r) { return PMPI_Irecv(buf, count, datatype, source, tag, comm, r); },
             status);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Status* status) {
  return run([&](MPI_Request* r) { return PMPI_Imrecv(buf, count, datatype, message, r); }, status);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  int found = 0;
  for (;;) {
    const int rc = PMPI_Iprobe(source, tag, comm, &found, status);
    if (rc != MPI_SUCCESS || found) return rc;
    sched_yield();
  }
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  int found = 0;
  for (;;) {
    const int rc = PMPI_Improbe(source, tag, comm, &found, message, status);
    if (rc != MPI_SUCCESS || found) return rc;
    sched_yield();
  }
}

// Completion.

int MPI_Wait(MPI_Request* request, MPI_Status* status) { return wait_politely(request, status); }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  int done = 0;
  for (;;) {
    const int rc = PMPI_Testall(count, requests, &done, statuses);
    if (rc != MPI_SUCCESS || done) return rc;
    sched_yield();
  }
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  int done = 0;
  for (;;) {
    const int rc = PMPI_Testany(count, requests, index, &done, status);
    if (rc != MPI_SUCCESS || done) return rc;
    sched_yield();
  }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  for (;;) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    sched_yield();
  }
}

}  // extern "C"
