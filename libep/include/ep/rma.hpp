// One-sided communication (RMA) between endpoints.
//
// Every endpoint is a target of its own, as an MPI process is: its own base,
// size and displacement unit, its own locks, its own place in the window's
// group (the communicator's ranks). Every function behaves as its MPI
// namesake would for an MPI process whose rank is the endpoint's rank, for
// any origin and target endpoint, in one process or in two.
//
// What holds, as in MPI:
//  - Accumulate-family operations (Accumulate, Get_accumulate, Fetch_and_op,
//    Compare_and_swap, and their request forms) are element-wise atomic
//    against every other accumulate-family operation on the same location,
//    from any endpoint of any process.
//  - An exclusive lock excludes every other endpoint, those of the locker's
//    own process included; shared locks share. A program that is correct and
//    free of deadlock with MPI processes is so with endpoints.
//  - On a window made by Win_allocate, passive-target operations complete
//    without the target endpoint calling libep. On a window made by
//    Win_create, some MPIs (Open MPI's osc/rdma for accumulates) need a
//    thread of the target's process inside libep or MPI: prefer
//    Win_allocate.
//
// Threads: as everywhere (ep/ep.hpp), one thread at a time per window handle
// (a window handle belongs to the endpoint that made it); different
// endpoints' handles of one window are used concurrently. Win_create,
// Win_allocate, Win_free and Win_fence are collective over the endpoints of
// the communicator, and a process's endpoints meet inside them.
//
// Errors go through the window handle's error handler (Win_set_errhandler;
// MPI_ERRORS_ARE_FATAL by default, as for MPI windows), with a message
// naming the function, the endpoint, the window and the reason:
// MPI_ERR_WIN (invalid window handle), MPI_ERR_RANK, MPI_ERR_TYPE,
// MPI_ERR_COUNT, MPI_ERR_OP (an op that is not predefined, not allowed
// for the call, or not defined by MPI on the datatype's elements, such as
// MPI_BAND on MPI_FLOAT), MPI_ERR_ARG, MPI_ERR_DISP (a displacement unit
// that is not positive, or a negative target displacement), MPI_ERR_ASSERT (assert flags the
// synchronisation call does not define), MPI_ERR_SIZE (negative size), MPI_ERR_RMA_RANGE (an access
// outside the target endpoint's region: nothing is written or read), MPI_ERR_RMA_SYNC (an operation
// outside an access epoch, unlock without lock, a second lock of one target, fence inside a passive
// epoch, free or lock with an epoch open), MPI_ERR_LOCKTYPE. After an error nothing of the failed
// call has happened and the next correct call works.
//
// Not supported yet: general active target (post/start/complete/wait),
// dynamic windows (Win_create_dynamic, Win_attach), shared-memory windows
// (Win_allocate_shared, Win_shared_query), window attributes other than the
// predefined ones, Win_get_group, Win_get_info/Win_set_info.
// On Open MPI 4.1, an 8-byte Compare_and_swap on a window of more than one
// process gives MPI_ERR_UNSUPPORTED_OPERATION (Open MPI crashes in it),
// unless run with `--mca btl_vader_single_copy_mechanism none` or
// `--mca osc ucx`; 4-byte ones work everywhere.
#pragma once

#include <ep/types.hpp>

namespace ep {

// Creation and destruction.

/// As MPI_Win_create: exposes [base, base + size) of this endpoint to the
/// others; each endpoint passes its own base, size and displacement unit
/// (size 0 and a null base are allowed). Endpoints of one process may pass
/// overlapping memory. Intra-communicators only (MPI_ERR_COMM otherwise).
/// \note Collective over all endpoints of `comm`.
int Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, Comm comm, Win* win);
/// As MPI_Win_allocate: `baseptr` is a `void*` that receives this endpoint's
/// memory, at least 64-byte aligned and never shared with another
/// endpoint's region. The memory belongs to the window and goes with
/// Win_free.
/// \note Collective over all endpoints of `comm`.
int Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, Comm comm, void* baseptr, Win* win);
/// As MPI_Win_free: sets *win to WIN_NULL. Returns only when no endpoint can
/// access any endpoint's memory through the window any more. An epoch still
/// open on this endpoint (a lock, lock_all) gives MPI_ERR_RMA_SYNC and
/// frees nothing.
/// \note Collective over all endpoints of the window.
int Win_free(Win* win);

/// As MPI_Win_get_attr for the predefined keys, which describe the calling
/// endpoint: MPI_WIN_BASE (`attribute_val` receives the `void*` base),
/// MPI_WIN_SIZE (an `MPI_Aint*`), MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR
/// (MPI_WIN_FLAVOR_CREATE or MPI_WIN_FLAVOR_ALLOCATE) and MPI_WIN_MODEL (an
/// `int*` each). Other keys: *flag = 0. Local.
int Win_get_attr(Win win, int win_keyval, void* attribute_val, int* flag);
/// As MPI_Win_set_errhandler, for this endpoint's handle only.
/// MPI_ERRORS_ARE_FATAL (the default) and MPI_ERRORS_RETURN are supported;
/// other handlers give MPI_ERR_ARG. Local.
int Win_set_errhandler(Win win, MPI_Errhandler errhandler);
/// As MPI_Win_get_errhandler. Local.
int Win_get_errhandler(Win win, MPI_Errhandler* errhandler);

// Communication. `target_rank` is an endpoint rank of the window's
// communicator, or MPI_PROC_NULL (the call does nothing). The target
// datatype may be derived; it is laid out from target base +
// target_disp * the target endpoint's displacement unit.

/// As MPI_Put.
int Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win);
/// As MPI_Get.
int Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win);
/// As MPI_Accumulate: a predefined op or MPI_REPLACE.
int Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count,
               MPI_Datatype target_datatype, MPI_Op op, Win win);
/// As MPI_Get_accumulate: a predefined op, MPI_REPLACE or MPI_NO_OP.
int Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   void* result_addr, int result_count, MPI_Datatype result_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, Win win);
/// As MPI_Fetch_and_op: one element of a predefined datatype.
int Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                 MPI_Aint target_disp, MPI_Op op, Win win);
/// As MPI_Compare_and_swap: one element of an integer, logical or byte
/// datatype.
int Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, Win win);

/// As MPI_Rput: the request, completed by Wait/Test, means local completion;
/// passive target only (MPI_ERR_RMA_SYNC inside a fence epoch).
int Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win,
         Request* request);
/// As MPI_Rget (see Rput): completion means the data is in origin_addr.
int Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win,
         Request* request);
/// As MPI_Raccumulate (see Rput).
int Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype, MPI_Op op, Win win, Request* request);
/// As MPI_Rget_accumulate (see Rput): completion means the result is in
/// result_addr.
int Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    void* result_addr, int result_count, MPI_Datatype result_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, Win win, Request* request);

// Synchronisation.

/// As MPI_Win_fence: ends the previous fence epoch (its operations are
/// complete at every endpoint) and starts the next. MPI_MODE_NOPRECEDE and
/// MPI_MODE_NOSUCCEED save work; MPI_MODE_NOSTORE and MPI_MODE_NOPUT are
/// accepted. MPI_ERR_RMA_SYNC inside a passive-target epoch.
/// \note Collective over all endpoints of the window.
int Win_fence(int assert, Win win);
/// As MPI_Win_lock of the endpoint `rank`: MPI_LOCK_EXCLUSIVE excludes every
/// other endpoint, those of this process included. MPI_MODE_NOCHECK takes no
/// lock (the caller promises that no conflicting lock is held).
int Win_lock(int lock_type, int rank, int assert, Win win);
/// As MPI_Win_unlock: this endpoint's operations on `rank` are complete at
/// both ends.
int Win_unlock(int rank, Win win);
/// As MPI_Win_lock_all: a shared lock on every endpoint of the window.
int Win_lock_all(int assert, Win win);
/// As MPI_Win_unlock_all.
int Win_unlock_all(Win win);
/// As MPI_Win_flush: this endpoint's operations on `rank` are complete at
/// both ends (other endpoints' operations may complete too).
int Win_flush(int rank, Win win);
/// As MPI_Win_flush_all.
int Win_flush_all(Win win);
/// As MPI_Win_flush_local: this endpoint's operations on `rank` are complete
/// at the origin (its buffers may be reused).
int Win_flush_local(int rank, Win win);
/// As MPI_Win_flush_local_all.
int Win_flush_local_all(Win win);
/// As MPI_Win_sync: the endpoint's memory and its public copy agree (both
/// MPIs here use the unified model, where it is a memory barrier).
int Win_sync(Win win);

}  // namespace ep
