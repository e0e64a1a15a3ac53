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

/// Checks comm, count, datatype, buffer, destination and tag of a send.
int check_send(Comm comm, const void* buf, int count, MPI_Datatype type, int dest, int tag,
               const char* function, MessageArgs* out);

/// Checks comm, count, datatype, buffer, source and tag of a receive.
int check_recv(Comm comm, const void* buf, int count, MPI_Datatype type, int source, int tag,
               const char* function, MessageArgs* out);

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
