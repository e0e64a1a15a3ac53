#include "p2p/checks.hpp"

namespace ep::detail {

namespace {

int check_comm(Comm comm, const char* function, Endpoint** out) {
  *out = valid_endpoint(comm);
  if (*out) return MPI_SUCCESS;
  return invalid_comm(comm, function);
}

int check_peer(Endpoint* e, int rank, bool is_source, const char* function) {
  if (valid_peer(*e, rank, is_source)) return MPI_SUCCESS;
  const int size = e->shared->peer_count(*e);
  return raise(e, MPI_ERR_RANK, function,
               "invalid {} rank {}: the communicator has {} endpoints (valid: 0..{}{})",
               is_source ? "source" : "destination", rank, size, size - 1,
               is_source ? ", MPI_ANY_SOURCE, MPI_PROC_NULL" : ", MPI_PROC_NULL");
}

int check_tag(Endpoint* e, int tag, bool is_receive, const char* function) {
  if (valid_tag(*e, tag, is_receive)) return MPI_SUCCESS;
  const int ub = e->shared->user_tag_ub;
  return raise(e, MPI_ERR_TAG, function, "invalid tag {}: valid tags are 0..{}{}", tag, ub,
               is_receive ? " and MPI_ANY_TAG" : " (this communicator's MPI_TAG_UB)");
}

}  // namespace

bool committed(MPI_Datatype type) {
  if (is_predefined(type)) return true;
  // MPI_COMM_SELF carries the user's handler, which may abort; a duplicate
  // of it returns errors. If MPI cannot make one, the type is taken as
  // committed and MPI judges it where it meets it, as before.
  static const MPI_Comm probe = [] {
    MPI_Comm comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(MPI_COMM_SELF, &comm) != MPI_SUCCESS) return MPI_COMM_NULL;
    if (MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
      static_cast<void>(MPI_Comm_free(&comm));  // unusable either way
      return MPI_COMM_NULL;
    }
    return comm;
  }();
  if (probe == MPI_COMM_NULL) return true;
  char nothing = 0;
  int position = 0;
  return MPI_Pack(&nothing, 0, type, &nothing, 0, &position, probe) == MPI_SUCCESS;
}

int check_buffer(Endpoint* e, const void* buf, int count, MPI_Datatype type, const char* function,
                 TypeLayout* layout) {
  if (count < 0) return raise(e, MPI_ERR_COUNT, function, "negative count {}", count);
  if (type == MPI_DATATYPE_NULL) {
    return raise(e, MPI_ERR_TYPE, function, "the datatype is MPI_DATATYPE_NULL");
  }
  const int rc = query_layout(type, layout);
  if (rc != MPI_SUCCESS) {
    return raise(e, MPI_ERR_TYPE, function, "invalid datatype: {}", mpi_error_string(rc));
  }
  if (!layout->predefined && !committed(type)) {
    return raise(e, MPI_ERR_TYPE, function, "the datatype is not committed (MPI_Type_commit)");
  }
  if (buf == MPI_IN_PLACE) {
    return raise(e, MPI_ERR_BUFFER, function, "MPI_IN_PLACE is not a point-to-point buffer");
  }
  // A null buffer is MPI_BOTTOM, which is fine only with a datatype that
  // holds absolute addresses (its data does not start at offset 0).
  if (buf == nullptr && count > 0 && layout->size > 0 && layout->true_lb == 0) {
    return raise(e, MPI_ERR_BUFFER, function,
                 "the buffer is a null pointer for {} elements of {} bytes", count, layout->size);
  }
  return MPI_SUCCESS;
}

int check_send_fully(Comm comm, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     const char* function, MessageArgs* out) {
  int rc = check_comm(comm, function, &out->endpoint);
  if (rc == MPI_SUCCESS) rc = check_buffer(out->endpoint, buf, count, type, function, &out->layout);
  if (rc == MPI_SUCCESS) rc = check_peer(out->endpoint, dest, false, function);
  if (rc == MPI_SUCCESS) rc = check_tag(out->endpoint, tag, false, function);
  return rc;
}

int check_recv_fully(Comm comm, const void* buf, int count, MPI_Datatype type, int source, int tag,
                     const char* function, MessageArgs* out) {
  int rc = check_comm(comm, function, &out->endpoint);
  if (rc == MPI_SUCCESS) rc = check_buffer(out->endpoint, buf, count, type, function, &out->layout);
  if (rc == MPI_SUCCESS) rc = check_peer(out->endpoint, source, true, function);
  if (rc == MPI_SUCCESS) rc = check_tag(out->endpoint, tag, true, function);
  return rc;
}

int check_probe(Comm comm, int source, int tag, const char* function, Endpoint** out) {
  int rc = check_comm(comm, function, out);
  if (rc == MPI_SUCCESS) rc = check_peer(*out, source, true, function);
  if (rc == MPI_SUCCESS) rc = check_tag(*out, tag, true, function);
  return rc;
}

}  // namespace ep::detail
