// Collectives on inter-communicators, as MPI defines them: Barrier, Bcast
// (root MPI_ROOT, the rest of its group MPI_PROC_NULL, the other group the
// root's rank), Allgather and Allreduce (each group gets the other group's
// data or reduction).
//
// They run over the union of both groups: the process's endpoints of both
// groups meet in the communicator's team, and the leaders use the carrier.
// Allgather and Allreduce gather every contribution to every process and
// reduce in rank order there: exact for every op, linear in the total size,
// which is what inter-communicator collectives (rare, often small) can afford.
#pragma once

#include <mpi.h>

#include "object/endpoint.hpp"

namespace ep::detail {

int inter_barrier(Endpoint* e);
int inter_bcast(Endpoint* e, void* buf, int count, MPI_Datatype type, int root);
int inter_allgather(Endpoint* e, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype);
int inter_allreduce(Endpoint* e, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op);

}  // namespace ep::detail
