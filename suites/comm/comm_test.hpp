// Shared by the communicator tests: the communicator API under one name for
// both programs of a differential test, and the building blocks the tests
// share (a seeded generator every rank runs alike, member exchanges that
// show who is in a communicator, names for MPI constants).
//
// The harness's mpi_shim covers point-to-point only; the communicator calls
// (and the collectives of inter-communicators) are added to the same
// namespace here, forwarding to their MPI_ namesakes
// without adding behaviour, so api::Comm_split is MPI_Comm_split in the
// plain-MPI program and ep::Comm_split in the endpoint program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "helpers.hpp"

#if defined(EPTEST_MODE_MPI)
namespace eptest::mpi_shim {
inline int Comm_split(Comm c, int color, int key, Comm* out) {
  return MPI_Comm_split(c, color, key, out);
}
inline int Comm_split_type(Comm c, int type, int key, MPI_Info info, Comm* out) {
  return MPI_Comm_split_type(c, type, key, info, out);
}
inline int Intercomm_create(Comm local, int local_leader, Comm peer, int remote_leader, int tag,
                            Comm* out) {
  return MPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out);
}
inline int Intercomm_merge(Comm inter, int high, Comm* out) {
  return MPI_Intercomm_merge(inter, high, out);
}
inline int Comm_compare(Comm a, Comm b, int* result) { return MPI_Comm_compare(a, b, result); }
inline int Comm_test_inter(Comm c, int* flag) { return MPI_Comm_test_inter(c, flag); }
inline int Comm_remote_size(Comm c, int* size) { return MPI_Comm_remote_size(c, size); }
// Collectives on inter-communicators (and Scan, which has no inter form).
inline int Barrier(Comm c) { return MPI_Barrier(c); }
inline int Bcast(void* b, int n, MPI_Datatype t, int root, Comm c) {
  return MPI_Bcast(b, n, t, root, c);
}
inline int Allreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Allreduce(sb, rb, n, t, op, c);
}
inline int Allgather(const void* sb, int sn, MPI_Datatype st, void* rb, int rn, MPI_Datatype rt,
                     Comm c) {
  return MPI_Allgather(sb, sn, st, rb, rn, rt, c);
}
inline int Scan(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c) {
  return MPI_Scan(sb, rb, n, t, op, c);
}
}  // namespace eptest::mpi_shim
#endif

namespace eptest::comm {

/// "MPI_IDENT", "MPI_CONGRUENT", "MPI_SIMILAR", "MPI_UNEQUAL".
std::string compare_name(int result);

/// Every rank of `comm` sends `my_id` to each rank it addresses (the others
/// of an intra-communicator, every remote rank of an inter-communicator) and
/// receives theirs with MPI_ANY_SOURCE, placing each by status.MPI_SOURCE.
/// Returns the ids by rank (own entry = my_id for intra), checking that no
/// message comes twice and every payload names its source's slot.
/// \note Collective over `comm`.
std::vector<int> exchange_ids(Context& t, api::Comm comm, int my_id, int tag);

/// Sends to rank+1 and receives from rank-1 on an intra-communicator and
/// checks the neighbour's id: the communicator carries traffic.
void ring_check(Context& t, api::Comm comm, int my_id, int tag, const std::string& what);

/// "[a, b, c]".
std::string list(const std::vector<int>& v);

/// Members of a split, as MPI orders them: ranks with `color`, by key, ties
/// by rank. `colors[r]`, `keys[r]` for every rank r of the parent.
std::vector<int> split_members(const std::vector<int>& colors, const std::vector<int>& keys,
                               int color);

}  // namespace eptest::comm
