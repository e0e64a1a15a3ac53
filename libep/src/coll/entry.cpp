#include "coll/entry.hpp"

namespace ep::detail {

namespace {

// Reduce_scatter's recvcounts: MPI requires the same array on every rank.
int check_recvcounts(Endpoint* e, const int* counts, const char* function) {
  if (counts == nullptr) return raise(e, MPI_ERR_ARG, function, "recvcounts is a null pointer");
  const int ranks = e->shared->map.size();
  for (int r = 0; r < ranks; ++r) {
    if (counts[r] < 0)
      return raise(e, MPI_ERR_COUNT, function, "recvcounts[{}] is negative ({})", r, counts[r]);
  }
  return MPI_SUCCESS;
}

}  // namespace

int open_entry(Comm comm, const Entry& entry, bool inter, Entered* in) {
  const char* fn = entry.function;
  Endpoint* e = valid_endpoint(comm);
  if (!e) return invalid_comm(comm, fn);
  if (e->shared->inter && !inter) {
    return raise(e, MPI_ERR_COMM, fn, "not supported on inter-communicators");
  }
  in->e = e;
  in->function = fn;
  int rc = check_signature(e, entry.signature, fn);
  if (rc == MPI_SUCCESS && entry.root) rc = check_root(e, *entry.root, fn);
  if (rc == MPI_SUCCESS && entry.recvcounts) rc = check_recvcounts(e, *entry.recvcounts, fn);
  if (rc == MPI_SUCCESS && entry.count) rc = check_count(e, *entry.count, entry.count_name, fn);
  if (rc == MPI_SUCCESS && entry.type) rc = check_type(e, *entry.type, &in->layout, "datatype", fn);
  if (rc == MPI_SUCCESS && entry.op) rc = check_op(e, *entry.op, &in->commutative, fn);
  return rc;
}

}  // namespace ep::detail
