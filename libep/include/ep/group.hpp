// Groups of endpoints and the communicators made from them.
//
// An ep::Group is to endpoints what MPI_Group is to processes: an ordered
// set of endpoints, local to the endpoint that made it. Every endpoint keeps
// its identity through dup, split and inter-communicator creation (ep/
// comm.hpp), so the groups of a communicator and of its split hold the same
// endpoints, and compare and translate ranks as MPI groups of processes do.
//
// A group belongs to the endpoint whose call made it (Comm_group,
// Comm_remote_group, or the endpoint of the group a derived group was made
// from): Group_rank answers for that endpoint, and only its thread should
// use the group, as only its process uses an MPI group. The group functions
// are local. An invalid group (GROUP_NULL, a freed group) is MPI_ERR_GROUP;
// since a group belongs to no communicator, the errors of the Group_
// functions go through the handler of MPI_COMM_WORLD, as in MPI.
#pragma once

#include <ep/types.hpp>

namespace ep {

/// As MPI_Comm_group: the endpoints of `comm` in rank order (the local group
/// of an inter-communicator). Local.
int Comm_group(Comm comm, Group* group);
/// As MPI_Comm_remote_group: the remote group of an inter-communicator
/// (MPI_ERR_COMM on an intra-communicator). Local.
int Comm_remote_group(Comm comm, Group* group);

/// As MPI_Group_size. Local.
int Group_size(Group group, int* size);
/// As MPI_Group_rank: the rank of the group's endpoint in it, or
/// MPI_UNDEFINED. Local.
int Group_rank(Group group, int* rank);
/// As MPI_Group_translate_ranks: MPI_UNDEFINED for an endpoint `group2`
/// lacks, MPI_PROC_NULL for MPI_PROC_NULL; a rank that is not one of
/// `group1` is MPI_ERR_RANK. Local.
int Group_translate_ranks(Group group1, int n, const int ranks1[], Group group2, int ranks2[]);
/// As MPI_Group_compare: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. Local.
int Group_compare(Group group1, Group group2, int* result);

/// As MPI_Group_union, MPI_Group_intersection and MPI_Group_difference
/// (group1's order first). Local.
int Group_union(Group group1, Group group2, Group* newgroup);
int Group_intersection(Group group1, Group group2, Group* newgroup);
int Group_difference(Group group1, Group group2, Group* newgroup);

/// As MPI_Group_incl and MPI_Group_excl. A rank that is not one of `group`,
/// or is given twice, is MPI_ERR_RANK (neither Open MPI 4.1 nor MPICH 4.0
/// detects the repetition); a negative `n` is MPI_ERR_ARG. Local.
int Group_incl(Group group, int n, const int ranks[], Group* newgroup);
int Group_excl(Group group, int n, const int ranks[], Group* newgroup);
/// As MPI_Group_range_incl and MPI_Group_range_excl. A bad triplet (stride
/// 0 or walking away from last, an end that is not a rank, a rank named
/// twice) is MPI_ERR_ARG, as MPICH 4.0 has it (Open MPI 4.1 says
/// MPI_ERR_RANK). Local.
int Group_range_incl(Group group, int n, int ranges[][3], Group* newgroup);
int Group_range_excl(Group group, int n, int ranges[][3], Group* newgroup);

/// As MPI_Group_free: sets `*group` to GROUP_NULL. Freeing GROUP_EMPTY is
/// allowed and frees nothing. Local.
int Group_free(Group* group);

/// As MPI_Comm_create: the endpoints of `group` form a new communicator,
/// ranked as in `group`; the others get COMM_NULL. Every endpoint passes the
/// same group, or (as MPI-3 allows) each passes one of several disjoint
/// groups, the one it belongs to or any one it does not. A group holding an
/// endpoint that is not in `comm` is MPI_ERR_GROUP (after taking part, so
/// that the others do not wait). On an inter-communicator each group passes
/// a part of itself (MPI_ERR_GROUP for a remote endpoint), and the two parts
/// form an inter-communicator; COMM_NULL everywhere when either is empty.
/// \note Collective over all endpoints of `comm`.
int Comm_create(Comm comm, Group group, Comm* newcomm);

/// As MPI_Comm_create_group: the endpoints of `group`, which must all be in
/// `comm`, form a new communicator ranked as in `group`. Only they call it;
/// an endpoint outside `group` gets COMM_NULL at once. Concurrent calls
/// whose groups share a process need different tags or groups, as in MPI
/// (endpoints of one process count as different processes here).
/// MPI_ERR_GROUP for a group holding an endpoint not in `comm`, MPI_ERR_TAG
/// for a negative tag or one above the communicator's MPI_TAG_UB;
/// intra-communicators only (MPI_ERR_COMM).
/// \note Collective over the endpoints of `group`.
int Comm_create_group(Comm comm, Group group, int tag, Comm* newcomm);

}  // namespace ep
