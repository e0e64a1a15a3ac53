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
/// The first call over a set of processes of one node also gives each pair
/// of them a ring in shared memory (MPI_Win_allocate_shared, 2 MiB per
/// process at most; EP_NODE_RING_BYTES in docs/environment.md), which
/// carries the small messages of every endpoint communicator between them
/// and is freed at MPI_Finalize.
/// `info` is ignored. Errors go through the error handler of `parent`:
/// MPI_ERR_OTHER when MPI is not initialised or does not provide
/// MPI_THREAD_MULTIPLE (the message says how to obtain it), or when one
/// process asks for more endpoints than libep serves over the MPI's tags
/// (over 4096 endpoints per process on Open MPI 4.1, over 1024 on MPICH
/// 4.0: beyond, users would keep fewer than 15 tag bits or a communicator
/// would cost more than 513 MPI communicators); MPI_ERR_COMM for a null or
/// inter-communicator parent; MPI_ERR_ARG, on every process, when any
/// process passes a negative `num_ep` or a null `out`.
int Comm_create_endpoints(MPI_Comm parent, int num_ep, MPI_Info info, Comm out[]);

/// As MPI_Comm_dup (intra- and inter-communicators). Each endpoint's
/// attributes go to its new handle through their copy callbacks; one that
/// fails fails this endpoint's call with its code (*newcomm is COMM_NULL).
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
/// part, so that the others do not wait). On an inter-communicator the
/// parts of both groups on one node make an inter-communicator, as
/// Comm_split's colors do.
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
/// messages that arrived for its endpoints and were never received. The
/// endpoint's attributes are deleted first, last set first; a delete
/// callback that fails fails the call with its code, and the handle stays.
/// \note Collective over all endpoints of the communicator, as MPI_Comm_free.
int Comm_free(Comm* comm);

/// As MPI_Comm_set_errhandler, for this endpoint only (each endpoint is an
/// MPI process of its own). MPI_ERRORS_ARE_FATAL (the default) and
/// MPI_ERRORS_RETURN are supported; other handlers give MPI_ERR_ARG.
/// Communicators this endpoint makes afterwards inherit the handler. Local.
int Comm_set_errhandler(Comm comm, MPI_Errhandler errhandler);
/// As MPI_Comm_get_errhandler: this endpoint's handler, a new reference
/// that the caller may release with MPI_Errhandler_free, as in MPI. Local.
int Comm_get_errhandler(Comm comm, MPI_Errhandler* errhandler);

/// As MPI_Comm_get_attr. For a keyval of Comm_create_keyval, this
/// endpoint's attribute: `attribute_val` receives the stored `void*`. For
/// predefined attributes `attribute_val` receives an `int*`. MPI_TAG_UB is libep's: the largest
/// user tag this communicator accepts, what is left of the MPI's tag range once libep has taken its
/// envelope bits (at least 32767). The other predefined keys (MPI_HOST,
/// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM,
/// MPI_LASTUSEDCODE) are answered, flag and value, as the hosting process's
/// MPI_COMM_WORLD answers them, on every endpoint communicator (inter-
/// communicators and derived ones too); a rank in MPI_HOST or MPI_IO becomes
/// the endpoint's own rank when it names the hosting process, MPI_PROC_NULL
/// when it names another. Other keys go to the MPI communicator under the
/// endpoint's. Local.
int Comm_get_attr(Comm comm, int comm_keyval, void* attribute_val, int* flag);

// Caching (MPI 4.0 section 7.7), per endpoint: each endpoint is an MPI
// process, so its attributes are its own, set and read locally. A keyval is
// a process-wide object: Comm_create_keyval is local and the returned int
// may be used by any endpoint of the process (as in MPI, a program that
// runs one rank per thread creates one per rank). A keyval stays in use
// after Comm_free_keyval until the last attribute set with it is deleted.
// Callbacks run on the thread of the endpoint whose call runs them, and may
// make libep calls on other communicators.

/// Copies an attribute to the new handle of Comm_dup, as
/// MPI_Comm_copy_attr_function: `oldcomm` is the endpoint's old handle; set
/// *flag = 0 to leave the attribute out, or *flag = 1 and
/// *(void**)attribute_val_out to copy it. A code other than MPI_SUCCESS
/// fails the Comm_dup with that code.
using Comm_copy_attr_function = int(Comm oldcomm, int comm_keyval, void* extra_state,
                                    void* attribute_val_in, void* attribute_val_out, int* flag);
/// Deletes an attribute, as MPI_Comm_delete_attr_function. A code other
/// than MPI_SUCCESS fails the call that deleted (the attribute stays).
using Comm_delete_attr_function = int(Comm comm, int comm_keyval, void* attribute_val,
                                      void* extra_state);

/// As MPI_COMM_NULL_COPY_FN: never copies (*flag = 0).
int COMM_NULL_COPY_FN(Comm oldcomm, int comm_keyval, void* extra_state, void* attribute_val_in,
                      void* attribute_val_out, int* flag);
/// As MPI_COMM_DUP_FN: copies the attribute's value (the pointer).
int COMM_DUP_FN(Comm oldcomm, int comm_keyval, void* extra_state, void* attribute_val_in,
                void* attribute_val_out, int* flag);
/// As MPI_COMM_NULL_DELETE_FN: does nothing.
int COMM_NULL_DELETE_FN(Comm comm, int comm_keyval, void* attribute_val, void* extra_state);

/// As MPI_Comm_create_keyval. Null callbacks mean COMM_NULL_COPY_FN and
/// COMM_NULL_DELETE_FN. The keyval never equals a predefined key or
/// MPI_KEYVAL_INVALID. Errors (MPI_ERR_ARG for a null `comm_keyval`) go
/// through MPI_COMM_WORLD's handler, as there is no communicator. Local.
int Comm_create_keyval(Comm_copy_attr_function* comm_copy_attr_fn,
                       Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                       void* extra_state);
/// As MPI_Comm_free_keyval: sets *comm_keyval to MPI_KEYVAL_INVALID; the
/// attributes still set with it keep it alive (and their delete callbacks
/// run as usual). MPI_ERR_KEYVAL for a keyval libep did not hand out or
/// that was freed. Local.
int Comm_free_keyval(int* comm_keyval);

/// As MPI_Comm_set_attr, on this endpoint only. Replacing a value runs the
/// delete callback on the old one first. MPI_ERR_KEYVAL for a predefined
/// key or a keyval that is not libep's (or was freed). Local.
int Comm_set_attr(Comm comm, int comm_keyval, void* attribute_val);

/// As MPI_Comm_delete_attr, on this endpoint only: runs the delete
/// callback, then removes the attribute (nothing happens if it is not set).
/// MPI_ERR_KEYVAL as Comm_set_attr. Local.
int Comm_delete_attr(Comm comm, int comm_keyval);

/// As MPI_Comm_set_name, for this endpoint's handle only (each endpoint
/// names its communicator as an MPI process does); names longer than
/// MPI_MAX_OBJECT_NAME - 1 characters are truncated. A communicator starts
/// without a name (Comm_get_name gives ""), whatever constructor made it.
/// The name shows in Comm_inspect and in EP_INSPECT dumps (ep/inspect.hpp).
/// Local.
int Comm_set_name(Comm comm, const char* comm_name);

/// As MPI_Comm_get_name: this endpoint's name of `comm` into `comm_name`
/// (at least MPI_MAX_OBJECT_NAME chars), its length into *resultlen. Local.
int Comm_get_name(Comm comm, char* comm_name, int* resultlen);

/// As MPI_Comm_idup (intra- and inter-communicators): Comm_dup as a
/// non-blocking collective, ordered with the non-blocking collectives of
/// `comm` (ep/coll.hpp) and completed through ep::Wait, Test and the rest of
/// their families. *newcomm is set in the call and may be used once the
/// request completed; before that it is refused with MPI_ERR_COMM. The
/// attributes are copied when the request completes, as Comm_dup copies
/// them; a copy callback that fails fails the request with its code.
/// MPI_ERR_ARG for a null `newcomm` or `request`.
/// \note Collective over all endpoints of `comm`.
int Comm_idup(Comm comm, Comm* newcomm, Request* request);

}  // namespace ep
