// Argument checks of the public point-to-point functions.
//
// Each check raises the MPI error class an MPI process would get, with a
// message naming the function, the endpoint and what is wrong, and returns
// it; MPI_SUCCESS means the argument is good. They run before any state is
// touched, so a rejected call leaves the endpoint as it was.
#pragma once

#include "base/datatype.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"

namespace ep::detail {

/// The arguments of one side of a message, checked.
struct MessageArgs {
  Endpoint* endpoint = nullptr;
  TypeLayout layout;
};

/// The full checks of a send and of a receive, which raise the error of the
/// first argument that is wrong (check_send and check_recv below).
[[gnu::cold]] int check_send_fully(Comm comm, const void* buf, int count, MPI_Datatype type,
                                   int dest, int tag, const char* function, MessageArgs* out);
[[gnu::cold]] int check_recv_fully(Comm comm, const void* buf, int count, MPI_Datatype type,
                                   int source, int tag, const char* function, MessageArgs* out);

/// Whether `rank` may be the peer of a message on e's communicator: a rank
/// of its peer group or MPI_PROC_NULL, and MPI_ANY_SOURCE for a receive.
inline bool valid_peer(const Endpoint& e, int rank, bool is_source) {
  return (rank >= 0 && rank < e.shared->peer_count(e)) || rank == MPI_PROC_NULL ||
         (is_source && rank == MPI_ANY_SOURCE);
}

/// Whether `tag` may be a message's tag on e's communicator: up to its
/// MPI_TAG_UB, and MPI_ANY_TAG for a receive.
inline bool valid_tag(const Endpoint& e, int tag, bool is_receive) {
  return (tag >= 0 && tag <= e.shared->user_tag_ub) || (is_receive && tag == MPI_ANY_TAG);
}

/// Whether the arguments of a message are those of the common case, all
/// good: a live communicator, a datatype of query_layout's table, a
/// non-negative count, a buffer that is neither MPI_IN_PLACE nor null (unless
/// empty), a rank of the peer group (or MPI_PROC_NULL; MPI_ANY_SOURCE for a
/// receive) and a tag up to the communicator's MPI_TAG_UB (MPI_ANY_TAG for
/// a receive). Fills `out` if so. The full checks, five functions deep,
/// cost about 210 instructions per call, this one about 85 (callgrind, one
/// process of an 8-byte ping-pong between two: 3,180 instructions per round
/// trip before, 2,934 after); anything else takes the full way, which names
/// the first argument that is wrong.
inline bool common_message(Comm comm, const void* buf, int count, MPI_Datatype type, int peer,
                           int tag, bool is_receive, MessageArgs* out) {
  Endpoint* e = valid_endpoint(comm);
  if (!e || count < 0) return false;
  const TypeLayout* layout = known_layout(type);
  // A predefined type's data starts at offset 0: a null buffer is no
  // MPI_BOTTOM with it.
  if (!layout || buf == MPI_IN_PLACE || (buf == nullptr && count > 0)) return false;
  if (!valid_peer(*e, peer, is_receive) || !valid_tag(*e, tag, is_receive)) return false;
  out->endpoint = e;
  out->layout = *layout;
  return true;
}

/// Checks comm, count, datatype, buffer, destination and tag of a send.
inline int check_send(Comm comm, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      const char* function, MessageArgs* out) {
  if (common_message(comm, buf, count, type, dest, tag, /*is_receive=*/false, out)) {
    return MPI_SUCCESS;
  }
  return check_send_fully(comm, buf, count, type, dest, tag, function, out);
}

/// Checks comm, count, datatype, buffer, source and tag of a receive.
inline int check_recv(Comm comm, const void* buf, int count, MPI_Datatype type, int source, int tag,
                      const char* function, MessageArgs* out) {
  if (common_message(comm, buf, count, type, source, tag, /*is_receive=*/true, out)) {
    return MPI_SUCCESS;
  }
  return check_recv_fully(comm, buf, count, type, source, tag, function, out);
}

/// Checks comm, source and tag of a probe.
int check_probe(Comm comm, int source, int tag, const char* function, Endpoint** out);

/// Checks count, datatype and buffer alone (Mrecv/Imrecv, whose envelope is
/// the message's).
int check_buffer(Endpoint* endpoint, const void* buf, int count, MPI_Datatype type,
                 const char* function, TypeLayout* layout);

/// Whether a datatype has been committed (predefined ones always are). MPI
/// leaves an uncommitted type to the implementation that meets it, so
/// without this a message between endpoints of one process aborted in
/// MPI_Pack while one across processes failed with MPI_ERR_TYPE. Costs
/// nothing for predefined types; a derived one is asked of MPI through a
/// zero-count MPI_Pack on a private communicator that returns errors (Open MPI
/// and MPICH both check commitment there; Open MPI's MPI_Pack_size does not).
bool committed(MPI_Datatype type);

}  // namespace ep::detail
