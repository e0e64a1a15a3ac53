// Endpoint communicators: creation, queries, attributes, error handlers.
//
// The constructors other than Comm_create_endpoints are collective over
// endpoints: every endpoint of the old communicator calls them, each on its
// own thread, and a process's endpoints meet inside the call (ep/ep.hpp).
// The new communicator has a context of its own (its traffic never matches
// another's) and each new handle inherits the error handler of the endpoint
// that made it. An endpoint keeps its identity through every constructor,
// as an MPI process does, which Comm_compare relies on.
#pragma once

#include <ep/types.hpp>

namespace ep {

/// Creates an endpoint communicator over the processes of `parent` and
/// returns this process's `num_ep` handles in out[0..num_ep).
/// \note Collective over the processes of `parent`, called by one thread per
/// process (not once per endpoint); the handles may then go to any threads.
/// `num_ep` may differ between processes and may be 0 (nothing is written to
/// `out`). Ranks are ordered by parent rank, then by handle index: out[i] of
/// the process with parent rank p has rank sum(num_ep of ranks < p) + i.
/// `info` is ignored. Errors go through the error handler of `parent`:
/// MPI_ERR_OTHER when MPI is not initialised or does not provide
/// MPI_THREAD_MULTIPLE (the message says how to obtain it), or when one
/// process asks for so many endpoints that fewer than 15 bits of the MPI tag
/// would remain for user tags (over 32768 endpoints per process on Open MPI
/// 4.1, over 4096 on MPICH 4.0); MPI_ERR_COMM for a null or
/// inter-communicator parent; MPI_ERR_ARG, on every process, when any
/// process passes a negative `num_ep` or a null `out`.
int Comm_create_endpoints(MPI_Comm parent, int num_ep, MPI_Info info, Comm out[]);

/// As MPI_Comm_dup (intra- and inter-communicators).
/// \note Collective over all endpoints of `comm`.
int Comm_dup(Comm comm, Comm* newcomm);

/// As MPI_Comm_split: new ranks are ordered by `key`, ties by old rank,
/// across processes, so a process's endpoints need not get consecutive
/// ranks; endpoints of one process may pass different colors. MPI_UNDEFINED
/// gives COMM_NULL; a color that is neither >= 0 nor MPI_UNDEFINED fails
/// the call on every endpoint with MPI_ERR_ARG. On an inter-communicator
/// each group splits on its own, and the parts of one color in both groups
/// make an inter-communicator; a color of one group alone gives COMM_NULL.
/// \note Collective over all endpoints of `comm`.
int Comm_split(Comm comm, int color, int key, Comm* newcomm);

/// As MPI_Comm_split_type, for MPI_COMM_TYPE_SHARED: the endpoints whose
/// processes share memory (the same node), ordered by `key`, ties by old
/// rank; `info` goes to MPI_Comm_split_type of the processes. MPI_UNDEFINED
/// gives COMM_NULL; any other split_type gives MPI_ERR_ARG (after taking
/// part, so that the others do not wait). Inter-communicators cannot be
/// split (MPI_ERR_COMM).
/// \note Collective over all endpoints of `comm`.
int Comm_split_type(Comm comm, int split_type, int key, MPI_Info info, Comm* newcomm);

/// As MPI_Intercomm_create. `peer_comm` is an endpoint communicator holding
/// both leaders, used by the local leader only: the two leaders exchange
/// their groups over it with messages of tag `tag`, so give the call a tag
/// that no other message between them uses. The groups must be disjoint
/// endpoints, but a process may host endpoints of both (its endpoints of
/// both groups are then in the call at once) and both leaders may be in one
/// process. Errors: MPI_ERR_COMM for an inter-communicator `local_comm`, an
/// invalid `peer_comm` at the leader, or groups that share an endpoint;
/// MPI_ERR_RANK for a leader rank out of range.
/// \note Collective over the endpoints of `local_comm` and of the remote group.
int Intercomm_create(Comm local_comm, int local_leader, Comm peer_comm, int remote_leader, int tag,
                     Comm* newintercomm);

/// As MPI_Intercomm_merge: the group that passed high = 0 first, each group
/// in its own rank order. When both groups pass the same `high`, the order
/// is libep's choice, the same on every endpoint. MPI_ERR_COMM if
/// `intercomm` is not an inter-communicator.
/// \note Collective over the endpoints of both groups.
int Intercomm_merge(Comm intercomm, int high, Comm* newintracomm);

/// As MPI_Comm_compare: MPI_IDENT for handles of the same communicator,
/// MPI_CONGRUENT for the same endpoints in the same order (for
/// inter-communicators, in both groups), MPI_SIMILAR for the same endpoints
/// in another order, else MPI_UNEQUAL. Local.
int Comm_compare(Comm comm1, Comm comm2, int* result);

/// As MPI_Comm_test_inter. Local.
int Comm_test_inter(Comm comm, int* flag);
/// As MPI_Comm_remote_size; MPI_ERR_COMM on an intra-communicator. Local.
int Comm_remote_size(Comm comm, int* size);

/// As MPI_Comm_rank: the rank of this endpoint in its communicator (in its
/// own group, for an inter-communicator). Local.
int Comm_rank(Comm comm, int* rank);
/// As MPI_Comm_size: the number of endpoints in the communicator (in the
/// local group, for an inter-communicator). Local.
int Comm_size(Comm comm, int* size);

/// As MPI_Comm_free: frees this endpoint's handle and sets it to COMM_NULL,
/// once the requests released with Request_free on it have completed.
/// Operations still pending on it complete normally: the endpoint is
/// released when the last request the user holds on it is freed. Every
/// endpoint frees its own handle, but the call does not wait for the others
/// (one thread may free several endpoints in turn); the last endpoint of a
/// process frees the process's part of the communicator and drops the
/// messages that arrived for its endpoints and were never received.
/// \note Collective over all endpoints of the communicator, as MPI_Comm_free.
int Comm_free(Comm* comm);

/// As MPI_Comm_set_errhandler, for this endpoint only (each endpoint is an
/// MPI process of its own). MPI_ERRORS_ARE_FATAL (the default) and
/// MPI_ERRORS_RETURN are supported; other handlers give MPI_ERR_ARG.
/// Communicators this endpoint makes afterwards inherit the handler. Local.
int Comm_set_errhandler(Comm comm, MPI_Errhandler errhandler);
/// As MPI_Comm_get_errhandler: this endpoint's handler. Local.
int Comm_get_errhandler(Comm comm, MPI_Errhandler* errhandler);

/// As MPI_Comm_get_attr for predefined attributes; `attribute_val` receives
/// an `int*`. MPI_TAG_UB is libep's: the largest user tag this communicator
/// accepts, what is left of the MPI's tag range once libep has taken its
/// envelope bits (at least 32767). The other predefined keys (MPI_HOST,
/// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM,
/// MPI_LASTUSEDCODE) are answered, flag and value, as the hosting process's
/// MPI_COMM_WORLD answers them, on every endpoint communicator (inter-
/// communicators and derived ones too); a rank in MPI_HOST or MPI_IO becomes
/// the endpoint's own rank when it names the hosting process, MPI_PROC_NULL
/// when it names another. Other keys go to the MPI communicator under the
/// endpoint's. Local.
int Comm_get_attr(Comm comm, int comm_keyval, void* attribute_val, int* flag);

}  // namespace ep
