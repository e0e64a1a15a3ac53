// Collectives on inter-communicators, as MPI defines them (MPI 4.0, 6.2.2):
//  * Barrier; Bcast, Gather(v), Scatter(v), Reduce with a root: the root
//    passes MPI_ROOT, the rest of its group MPI_PROC_NULL, and the other
//    group the root's rank;
//  * Allgather(v), Alltoall(v,w), Allreduce: each group gets the other
//    group's data, or its reduction;
//  * Reduce_scatter(_block): the reduction of one group's vectors is
//    scattered over the other group, by that group's counts.
//
// They are entered like every collective (coll/entry.hpp), after the checks
// of their agreed arguments; the buffers are endpoint-local (MPI_IN_PLACE is
// not allowed on an inter-communicator: MPI_ERR_BUFFER, after taking part
// with empty or zeroed data).
//
// They run over the union of both groups: the process's endpoints of both
// groups meet in the communicator's team, and the leaders use the carrier.
// Apart from Barrier and Bcast they gather every endpoint's contribution (a
// list of packed blocks) to every process, and each endpoint takes its
// blocks, or reduces in rank order, from there: exact for every op and
// datatype, linear in the total size, which is what inter-communicator
// collectives (rare, often small) can afford.
#pragma once

#include <mpi.h>

#include <vector>

#include "base/datatype.hpp"
#include "coll/blocks.hpp"
#include "coll/entry.hpp"

namespace ep::detail {

int inter_barrier(const Entered& in);
/// `data` is the buffer with the layout of its (checked) datatype.
int inter_bcast(const Entered& in, const Typed& data, int root);
int inter_allreduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype type, MPI_Op op);
/// The remote group's root passes the rank of the root.
int inter_reduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype type, MPI_Op op, int root);
/// `counts` has one entry per rank of the endpoint's group; `total` is their
/// sum, which fits an int.
int inter_reduce_scatter(const Entered& in, const void* sendbuf, void* recvbuf, const int* counts,
                         int total, MPI_Datatype type, MPI_Op op);

// The collectives that move data take their buffers as blocks, made by the
// helpers below; the errors of their endpoint-local arguments are in `err`.
// Blocks are indexed by remote rank.

/// Block `send` (root >= 0) lands in block q of the root's `recv` (MPI_ROOT)
/// for remote rank q.
int inter_gather(const Entered& in, const ConstTyped& send, const std::vector<Typed>& recv,
                 int root, const LocalError& err);
/// Block q of the root's `send` (MPI_ROOT) lands in remote rank q's `recv`
/// (root >= 0).
int inter_scatter(const Entered& in, const std::vector<ConstTyped>& send, const Typed& recv,
                  int root, const LocalError& err);
/// Every endpoint's `send` lands in block q of every remote endpoint's recv.
int inter_allgather(const Entered& in, const ConstTyped& send, const std::vector<Typed>& recv,
                    const LocalError& err);
/// Block j of rank q's `send` lands in block q of remote rank j's `recv`.
int inter_alltoall(const Entered& in, const std::vector<ConstTyped>& send,
                   const std::vector<Typed>& recv, const LocalError& err);

/// Whether `buf` may be used: MPI_IN_PLACE is noted as an error (`what`
/// names the argument) and then the endpoint moves nothing.
bool inter_buffer(const void* buf, const char* what, LocalError& err);
/// `count` elements of `type` at `buf`, checked; empty when bad.
template <class Void>
BasicTyped<Void> inter_block(Void* buf, int count, MPI_Datatype type, const BlockNames& names,
                             const char* buf_name, LocalError& err);
/// One block per remote rank: counts[q] elements at displs[q] (v-variants),
/// or `count` elements each when `counts` is null; checked, empty when bad.
template <class Void>
std::vector<BasicTyped<Void>> inter_blocks(const Entered& in, Void* buf, const int* counts,
                                           const int* displs, int count, MPI_Datatype type,
                                           const BlockNames& names, const char* buf_name,
                                           LocalError& err);
/// Alltoallw's: a datatype and a byte displacement per remote rank.
template <class Void>
std::vector<BasicTyped<Void>> inter_w_blocks(const Entered& in, Void* buf, const int* counts,
                                             const int* displs, const MPI_Datatype* types,
                                             const BlockNames& names, const char* buf_name,
                                             LocalError& err);

}  // namespace ep::detail
