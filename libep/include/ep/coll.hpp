// Blocking collectives on endpoint communicators.
//
// Every function behaves as its MPI namesake would for MPI processes whose
// ranks are the endpoints' ranks, and takes the same arguments with ep::Comm
// in place of MPI_Comm. Datatypes may be derived; ops may be user-defined and
// non-commutative (they are applied in rank order, also when a process's
// endpoints hold interleaved ranks). MPI_IN_PLACE is accepted where MPI
// accepts it and rejected with MPI_ERR_BUFFER elsewhere.
//
// \note Every function here is collective over all endpoints of `comm`: each
// endpoint must call the same collectives in the same order, as every MPI
// process must, and the endpoints of a process must be in the call at the
// same time, each on its own thread (ep/ep.hpp). Collectives on different
// communicators may run concurrently.
//
// Errors. Arguments MPI requires to be the same on every rank (root, op, the
// count and datatype of the non-v collectives) are checked first; when they
// are bad every endpoint fails alike (MPI_ERR_ROOT, MPI_ERR_OP,
// MPI_ERR_COUNT, MPI_ERR_TYPE) without waiting for the others. An error in
// an endpoint's own arguments (MPI_IN_PLACE where it may not be used, a
// negative count or a null array of the v-variants) is raised at the end of
// the call: the endpoint takes part with empty data so that nobody waits for
// it in vain, and what the others receive is then undefined. Endpoints that
// call different collectives, roots or sizes make an erroneous program, as
// MPI processes would; with EP_CHECK_COLLECTIVES=1 in the environment they
// all fail with MPI_ERR_OTHER naming the first rank that differs, instead of
// hanging (docs/environment.md).
//
// On inter-communicators every collective but Scan and Exscan (which MPI
// defines on intra-communicators only, MPI_ERR_COMM) follows MPI's
// inter-communicator rules: with a root, the root passes MPI_ROOT, the rest
// of its group MPI_PROC_NULL and the other group the root's rank; the
// counts, displacements and datatypes per rank address the remote group's
// ranks; each group receives the other group's data or reduction, and
// Reduce_scatter(_block) scatters the reduction of one group's vectors over
// the other group by that group's counts. MPI_IN_PLACE gives MPI_ERR_BUFFER
// there.
#pragma once

#include <ep/types.hpp>

namespace ep {

/// As MPI_Barrier: returns once every endpoint of `comm` has entered (on an
/// inter-communicator, every endpoint of both groups).
/// \note Collective over all endpoints of `comm`.
int Barrier(Comm comm);

/// As MPI_Bcast: the root's buffer is copied to every endpoint's buffer.
/// MPI_IN_PLACE gives MPI_ERR_BUFFER. On an inter-communicator the root
/// passes MPI_ROOT, the rest of its group MPI_PROC_NULL, and the other group
/// the root's rank.
/// \note Collective over all endpoints of `comm`.
int Bcast(void* buffer, int count, MPI_Datatype datatype, int root, Comm comm);

/// As MPI_Gather: rank r's send buffer lands in block r of the root's
/// receive buffer. MPI_IN_PLACE as the root's sendbuf: its block is already
/// in place.
/// \note Collective over all endpoints of `comm`.
int Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, Comm comm);

/// As MPI_Gatherv: rank r's block of recvcounts[r] elements at displs[r].
/// \note Collective over all endpoints of `comm`.
int Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, Comm comm);

/// As MPI_Scatter: block r of the root's send buffer goes to rank r.
/// MPI_IN_PLACE as the root's recvbuf: the root keeps its block where it is.
/// \note Collective over all endpoints of `comm`.
int Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Comm comm);

/// As MPI_Scatterv: rank r's block of sendcounts[r] elements at displs[r].
/// \note Collective over all endpoints of `comm`.
int Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, Comm comm);

/// As MPI_Allgather: every endpoint receives every rank's block, in rank
/// order. MPI_IN_PLACE as sendbuf: an endpoint's own block is already in its
/// recvbuf. On an inter-communicator each group receives the other group's
/// blocks.
/// \note Collective over all endpoints of `comm`.
int Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, Comm comm);

/// As MPI_Allgatherv: rank r's block of recvcounts[r] elements at displs[r].
/// \note Collective over all endpoints of `comm`.
int Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, Comm comm);

/// As MPI_Alltoall: block j of rank i's sendbuf lands in block i of rank j's
/// recvbuf. MPI_IN_PLACE as sendbuf: the data to send is taken from recvbuf.
/// \note Collective over all endpoints of `comm`.
int Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, Comm comm);

/// As MPI_Alltoallv, with per-rank counts and displacements on both sides.
/// \note Collective over all endpoints of `comm`.
int Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, Comm comm);

/// As MPI_Reduce: the root receives sendbuf(0) op sendbuf(1) op ... in rank
/// order. MPI_IN_PLACE as the root's sendbuf: its contribution is in recvbuf.
/// \note Collective over all endpoints of `comm`.
int Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, Comm comm);

/// As MPI_Allreduce: the result at every endpoint. MPI_IN_PLACE as sendbuf:
/// an endpoint's contribution is in its recvbuf. On an inter-communicator
/// each group receives the reduction of the other group's contributions.
/// \note Collective over all endpoints of `comm`.
int Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              Comm comm);

/// As MPI_Reduce_scatter: the reduction of vectors of sum(recvcounts)
/// elements; rank r receives its recvcounts[r] elements, in rank order.
/// MPI_IN_PLACE as sendbuf: the input vector is in recvbuf. A vector of more
/// than INT_MAX elements gives MPI_ERR_COUNT.
/// \note Collective over all endpoints of `comm`.
int Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, Comm comm);

/// As MPI_Reduce_scatter_block: Reduce_scatter with recvcount elements for
/// every rank.
/// \note Collective over all endpoints of `comm`.
int Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op, Comm comm);

/// As MPI_Scan: rank r receives sendbuf(0) op ... op sendbuf(r).
/// \note Collective over all endpoints of `comm`.
int Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
         Comm comm);

/// As MPI_Exscan: rank r > 0 receives sendbuf(0) op ... op sendbuf(r-1);
/// rank 0's recvbuf is left untouched (MPI leaves it undefined).
/// \note Collective over all endpoints of `comm`.
int Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           Comm comm);

/// As MPI_Alltoallw: Alltoallv with a datatype per rank on both sides and
/// displacements in bytes (sdispls[j] bytes from sendbuf is block j).
/// MPI_IN_PLACE as sendbuf: the data to send is taken from recvbuf, by the
/// receive side's counts, displacements and datatypes.
/// \note Collective over all endpoints of `comm`.
int Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], Comm comm);

// ---- Non-blocking collectives ----
//
// Each I-function starts the collective of the same name and returns a
// request, completed by ep::Wait/Test and the rest of their families (mixed
// freely with point-to-point requests), as MPI's non-blocking collectives
// are (MPI 4.0, 6.12). The arguments are those of the blocking form plus
// `request`; the same rules apply (agreed arguments checked first, all
// endpoints of `comm` call the collectives of a communicator, blocking and
// non-blocking, in the same order), but a non-blocking call returns at once:
// an endpoint may start several on one or several communicators, and the
// endpoints of a process need not be in the call at the same time. An
// operation makes progress whenever an endpoint of its communicator tests or
// waits for one of its requests; an endpoint that only calls Test in a loop
// finishes. Until completion the buffers, and the count, displacement and
// datatype arrays, belong to the operation; datatypes and user-defined ops
// may be freed by the user meanwhile (for ops, libep defines MPI_Op_free:
// docs/design.md, "Non-blocking collectives"). Errors of endpoint-local
// arguments are raised when the operation completes, in the request's
// status. Ep::Cancel of such a request gives MPI_ERR_REQUEST; Request_free is
// allowed, as for point-to-point requests.

/// As MPI_Ibarrier.
int Ibarrier(Comm comm, Request* request);

/// As MPI_Ibcast.
int Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, Comm comm, Request* request);

/// As MPI_Igather.
int Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Comm comm, Request* request);

/// As MPI_Igatherv.
int Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, Comm comm,
             Request* request);

/// As MPI_Iscatter.
int Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, Comm comm, Request* request);

/// As MPI_Iscatterv.
int Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              Comm comm, Request* request);

/// As MPI_Iallgather.
int Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, Comm comm, Request* request);

/// As MPI_Iallgatherv.
int Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, Comm comm,
                Request* request);

/// As MPI_Ialltoall.
int Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, Comm comm, Request* request);

/// As MPI_Ialltoallv.
int Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, Comm comm, Request* request);

/// As MPI_Ialltoallw.
int Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], Comm comm, Request* request);

/// As MPI_Ireduce.
int Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, Comm comm, Request* request);

/// As MPI_Iallreduce.
int Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               Comm comm, Request* request);

/// As MPI_Ireduce_scatter.
int Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                    MPI_Datatype datatype, MPI_Op op, Comm comm, Request* request);

/// As MPI_Ireduce_scatter_block.
int Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                          MPI_Op op, Comm comm, Request* request);

/// As MPI_Iscan (intra-communicators only: MPI_ERR_COMM otherwise).
int Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
          Comm comm, Request* request);

/// As MPI_Iexscan (intra-communicators only: MPI_ERR_COMM otherwise).
int Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            Comm comm, Request* request);

}  // namespace ep
