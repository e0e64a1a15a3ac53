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
// Groups and the communicators made from them (ep/group.hpp).
using Group = MPI_Group;
inline Group const GROUP_NULL = MPI_GROUP_NULL;
inline Group const GROUP_EMPTY = MPI_GROUP_EMPTY;
inline int Comm_group(Comm c, Group* g) { return MPI_Comm_group(c, g); }
inline int Comm_remote_group(Comm c, Group* g) { return MPI_Comm_remote_group(c, g); }
inline int Group_size(Group g, int* size) { return MPI_Group_size(g, size); }
inline int Group_rank(Group g, int* rank) { return MPI_Group_rank(g, rank); }
inline int Group_translate_ranks(Group a, int n, const int r1[], Group b, int r2[]) {
  return MPI_Group_translate_ranks(a, n, r1, b, r2);
}
inline int Group_compare(Group a, Group b, int* result) { return MPI_Group_compare(a, b, result); }
inline int Group_union(Group a, Group b, Group* out) { return MPI_Group_union(a, b, out); }
inline int Group_intersection(Group a, Group b, Group* out) {
  return MPI_Group_intersection(a, b, out);
}
inline int Group_difference(Group a, Group b, Group* out) {
  return MPI_Group_difference(a, b, out);
}
inline int Group_incl(Group g, int n, const int ranks[], Group* out) {
  return MPI_Group_incl(g, n, ranks, out);
}
inline int Group_excl(Group g, int n, const int ranks[], Group* out) {
  return MPI_Group_excl(g, n, ranks, out);
}
inline int Group_range_incl(Group g, int n, int ranges[][3], Group* out) {
  return MPI_Group_range_incl(g, n, ranges, out);
}
inline int Group_range_excl(Group g, int n, int ranges[][3], Group* out) {
  return MPI_Group_range_excl(g, n, ranges, out);
}
inline int Group_free(Group* g) { return MPI_Group_free(g); }
inline int Comm_create(Comm c, Group g, Comm* out) { return MPI_Comm_create(c, g, out); }
inline int Comm_create_group(Comm c, Group g, int tag, Comm* out) {
  return MPI_Comm_create_group(c, g, tag, out);
}
// Caching and naming. libep's callback types are MPI's with ep::Comm for
// MPI_Comm, so over the shim's Comm they are MPI's own: no trampolines.
using Comm_copy_attr_function = MPI_Comm_copy_attr_function;
using Comm_delete_attr_function = MPI_Comm_delete_attr_function;
inline Comm_copy_attr_function* const COMM_NULL_COPY_FN = MPI_COMM_NULL_COPY_FN;
inline Comm_copy_attr_function* const COMM_DUP_FN = MPI_COMM_DUP_FN;
inline Comm_delete_attr_function* const COMM_NULL_DELETE_FN = MPI_COMM_NULL_DELETE_FN;
inline int Comm_create_keyval(Comm_copy_attr_function* copy, Comm_delete_attr_function* del,
                              int* keyval, void* extra_state) {
  return MPI_Comm_create_keyval(copy, del, keyval, extra_state);
}
inline int Comm_free_keyval(int* keyval) { return MPI_Comm_free_keyval(keyval); }
inline int Comm_set_attr(Comm c, int keyval, void* value) {
  return MPI_Comm_set_attr(c, keyval, value);
}
inline int Comm_delete_attr(Comm c, int keyval) { return MPI_Comm_delete_attr(c, keyval); }
inline int Comm_set_name(Comm c, const char* name) { return MPI_Comm_set_name(c, name); }
inline int Comm_get_name(Comm c, char* name, int* length) {
  return MPI_Comm_get_name(c, name, length);
}
// Comm_idup and the non-blocking collectives it is ordered with.
inline int Comm_idup(Comm c, Comm* out, Request* r) { return MPI_Comm_idup(c, out, r); }
inline int Ibarrier(Comm c, Request* r) { return MPI_Ibarrier(c, r); }
inline int Ibcast(void* b, int n, MPI_Datatype t, int root, Comm c, Request* r) {
  return MPI_Ibcast(b, n, t, root, c, r);
}
inline int Iallreduce(const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, Comm c,
                      Request* r) {
  return MPI_Iallreduce(sb, rb, n, t, op, c, r);
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
