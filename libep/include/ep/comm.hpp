// Endpoint communicators: creation, queries, attributes, error handlers.
#pragma once

#include <ep/types.hpp>

namespace ep {

/// Creates an endpoint communicator over the processes of `parent`.
/// \note Collective over the processes of `parent` (called by one thread per
/// process, not once per endpoint). `num_ep` may differ between processes and
/// may be 0. Ranks are ordered by parent rank, then by handle index: out[i] of
/// the process with parent rank p has rank sum(num_ep of ranks < p) + i.
/// Requires MPI_THREAD_MULTIPLE from the MPI below; fails with MPI_ERR_OTHER
/// and a message saying how to obtain it otherwise.
int Comm_create_endpoints(MPI_Comm parent, int num_ep, MPI_Info info, Comm out[]);

/// Duplicates the communicator: same ranks, a new context.
/// \note Collective over all endpoints of `comm`.
int Comm_dup(Comm comm, Comm* newcomm);

/// Partitions the endpoints by `color`; new ranks are ordered by `key`, ties
/// by old rank, across processes (as MPI_Comm_split). MPI_UNDEFINED gives
/// COMM_NULL. Endpoints of one process may pass different colors.
/// \note Collective over all endpoints of `comm`.
int Comm_split(Comm comm, int color, int key, Comm* newcomm);

/// MPI_COMM_TYPE_SHARED: the endpoints that share memory (the same node),
/// ordered by `key`, ties by old rank. MPI_UNDEFINED gives COMM_NULL.
/// \note Collective over all endpoints of `comm`.
int Comm_split_type(Comm comm, int split_type, int key, MPI_Info info, Comm* newcomm);

/// Creates an inter-communicator between the group of `local_comm` and the
/// group whose leader is `remote_leader` in `peer_comm`, as MPI does. The two
/// groups must be disjoint at endpoint level, but a process may host
/// endpoints of both, and both leaders may be in one process.
/// \note Collective over the endpoints of `local_comm` and of the remote group.
int Intercomm_create(Comm local_comm, int local_leader, Comm peer_comm, int remote_leader, int tag,
                     Comm* newintercomm);

/// Merges the two groups of an inter-communicator into an intra-communicator:
/// the group that passed high = 0 first, each group in its own rank order.
/// \note Collective over both groups.
int Intercomm_merge(Comm intercomm, int high, Comm* newintracomm);

/// Local: MPI_IDENT for the same communicator, MPI_CONGRUENT for the same
/// endpoints in the same order, MPI_SIMILAR in another order, else MPI_UNEQUAL.
int Comm_compare(Comm comm1, Comm comm2, int* result);

/// Local: whether `comm` is an inter-communicator.
int Comm_test_inter(Comm comm, int* flag);
/// Local: the size of the remote group of an inter-communicator.
int Comm_remote_size(Comm comm, int* size);

/// Local: the rank of the endpoint `comm` in its communicator (its local
/// group, for an inter-communicator).
int Comm_rank(Comm comm, int* rank);
/// Local: the number of endpoints in the communicator (its local group).
int Comm_size(Comm comm, int* size);

/// Frees the endpoint `*comm` and sets it to COMM_NULL.
/// \note Collective over all endpoints of the communicator, as MPI_Comm_free:
/// every endpoint frees its own handle; the shared state goes with the last.
int Comm_free(Comm* comm);

/// Local: sets the error handler of this endpoint. MPI_ERRORS_ARE_FATAL
/// (the default) and MPI_ERRORS_RETURN are supported.
/// Errors found in a call whose communicator or request handle is itself
/// invalid (COMM_NULL, a freed handle) have no endpoint to belong to; as in
/// Open MPI, they are raised on the error handler of MPI_COMM_WORLD.
int Comm_set_errhandler(Comm comm, MPI_Errhandler errhandler);
/// Local: the error handler of this endpoint.
int Comm_get_errhandler(Comm comm, MPI_Errhandler* errhandler);

/// Local: predefined attributes. MPI_TAG_UB gives the largest user tag this
/// communicator accepts (what is left of the MPI's tag range once libep has
/// taken its envelope bits); as in MPI, `attribute_val` receives an `int*`.
int Comm_get_attr(Comm comm, int comm_keyval, void* attribute_val, int* flag);

}  // namespace ep
