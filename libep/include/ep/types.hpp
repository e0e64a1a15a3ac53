// libep handle types and constants.
//
// libep reuses real MPI handles wherever they mean the same thing
// (MPI_Datatype, MPI_Op, MPI_Info, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL,
// ...). Only the objects whose meaning changes when a thread becomes a rank
// get their own handle: communicators, requests, messages, statuses and
// windows.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace ep {

namespace detail {
// Never defined: a Comm, Request, Message or Win is an opaque value that
// only libep decodes (a slot of its object pool and a generation,
// object/handle_pool.hpp inside the library), so that a freed or garbage
// handle gets MPI_ERR_COMM, MPI_ERR_REQUEST, MPI_ERR_ARG (a message, as
// before) or MPI_ERR_WIN instead of reaching freed memory or a newer object
// (only a garbage value that happens to equal a live handle passes). Null is
// COMM_NULL / REQUEST_NULL / MESSAGE_NULL / WIN_NULL; handles compare equal
// only if they are the same handle.
struct CommHandle;
struct RequestHandle;
struct MessageHandle;
struct WinHandle;
struct GroupImpl;
}  // namespace detail

/// One endpoint of an endpoint communicator: the handle a thread drives.
/// Two handles of one communicator held by one process are two ranks.
using Comm = detail::CommHandle*;
/// A non-blocking or persistent operation on an endpoint.
using Request = detail::RequestHandle*;
/// A message taken off the queue by Mprobe/Improbe, to be received by Mrecv.
using Message = detail::MessageHandle*;

inline constexpr Comm COMM_NULL = nullptr;
inline constexpr Request REQUEST_NULL = nullptr;
inline constexpr Message MESSAGE_NULL = nullptr;
/// One endpoint's handle of an RMA window (ep/rma.hpp): each endpoint of
/// the window's communicator holds its own, as each holds its own Comm.
using Win = detail::WinHandle*;
inline constexpr Win WIN_NULL = nullptr;

/// What Mprobe/Improbe return for a probe on MPI_PROC_NULL (as
/// MPI_MESSAGE_NO_PROC): a value no matched message's handle takes (its
/// generation, the upper 32 bits, is even).
inline Message const MESSAGE_NO_PROC = reinterpret_cast<Message>(std::uintptr_t{0xffffffff});

/// An ordered set of endpoints, as MPI_Group is one of processes
/// (ep/group.hpp). Groups of different communicators hold the same endpoint
/// when the communicators share it, as MPI groups hold the same process.
using Group = detail::GroupImpl*;
inline constexpr Group GROUP_NULL = nullptr;
namespace detail {
extern GroupImpl group_empty;
}
/// The group without members (as MPI_GROUP_EMPTY).
inline Group const GROUP_EMPTY = &detail::group_empty;

/// The status of a completed receive or probe, as MPI_Status: MPI_SOURCE is
/// the source endpoint's rank, MPI_TAG the user tag. The remaining fields are
/// libep's; read them through Get_count and Test_cancelled.
struct Status {
  int MPI_SOURCE = MPI_ANY_SOURCE;
  int MPI_TAG = MPI_ANY_TAG;
  int MPI_ERROR = MPI_SUCCESS;
  std::int64_t count_bytes = 0;
  int cancelled = 0;
};

/// Pass instead of a status pointer when the status is not wanted.
inline Status* const STATUS_IGNORE = nullptr;
/// Pass instead of a status array when the statuses are not wanted.
inline Status* const STATUSES_IGNORE = nullptr;

}  // namespace ep
