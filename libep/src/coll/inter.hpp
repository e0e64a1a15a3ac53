// Collectives on inter-communicators, as MPI defines them: Barrier, Bcast
// (root MPI_ROOT, the rest of its group MPI_PROC_NULL, the other group the
// root's rank), Allgather and Allreduce (each group gets the other group's
// data or reduction).
//
// They are entered like every collective (coll/entry.hpp), after the checks
// of their agreed arguments; the buffers are endpoint-local (MPI_IN_PLACE is
// not allowed on an inter-communicator: MPI_ERR_BUFFER, after taking part
// with a stand-in).
//
// They run over the union of both groups: the process's endpoints of both
// groups meet in the communicator's team, and the leaders use the carrier.
// Allgather and Allreduce gather every contribution to every process and
// reduce in rank order there: exact for every op, linear in the total size,
// which is what inter-communicator collectives (rare, often small) can afford.
#pragma once

#include <mpi.h>

#include "base/datatype.hpp"
#include "coll/entry.hpp"

namespace ep::detail {

int inter_barrier(const Entered& in);
/// `data` is the buffer with the layout of its (checked) datatype.
int inter_bcast(const Entered& in, const Typed& data, int root);
int inter_allgather(const Entered& in, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype);
int inter_allreduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype type, MPI_Op op);

}  // namespace ep::detail
