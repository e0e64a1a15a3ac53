// The entry of every public collective: what each of them does before its
// algorithm, in one order, for intra- and inter-communicators alike.
//
//   1. the endpoint behind the handle (MPI_ERR_COMM for an invalid one, and
//      on an inter-communicator for a collective without an inter form);
//   2. EP_CHECK_COLLECTIVES: the call compared with every other endpoint's
//      (coll/checks.hpp; intra-communicators);
//   3. the agreed arguments (root, count, datatype, op, Reduce_scatter's
//      recvcounts): MPI requires them alike on every rank, so when they are
//      bad every endpoint fails alike, before it meets the others;
//   4. the algorithm: the collective's own file on an intra-communicator,
//      coll/inter.hpp on an inter-communicator.
//
// Endpoint-local arguments (MPI_IN_PLACE where it is not allowed, the
// buffers and v-counts of the collectives that move data) are the
// algorithm's to check: the endpoint still takes part, with a stand-in
// (LocalError in coll/checks.hpp).
//
// Usage, in a public function:
//   return detail::enter(comm, {.function = "Bcast", .signature = {...}, .root = root, ...},
//                        [&](const detail::Entered& in) { return intra algorithm; },
//                        [&](const detail::Entered& in) { return inter algorithm; });
// Without the last argument an inter-communicator gets MPI_ERR_COMM. The
// algorithms are lambdas rather than function names so that they inline.
#pragma once

#include <mpi.h>

#include <optional>

#include "base/datatype.hpp"
#include "coll/checks.hpp"
#include "ep/types.hpp"
#include "object/endpoint.hpp"

namespace ep::detail {

/// A public collective's call, as its entry checks it; each optional
/// argument is checked when present.
struct Entry {
  const char* function = nullptr;
  Signature signature = {};
  std::optional<int> root = std::nullopt;
  std::optional<int> count = std::nullopt;
  const char* count_name = "count";
  std::optional<const int*> recvcounts = std::nullopt;  // one per rank (Reduce_scatter)
  std::optional<MPI_Datatype> type = std::nullopt;
  std::optional<MPI_Op> op = std::nullopt;
  /// Whether EP_CHECK_COLLECTIVES compares the call: not for the
  /// non-blocking collectives, whose endpoints do not meet in the call.
  bool compare = true;
};

/// What the algorithm gets from the entry.
struct Entered {
  Endpoint* e = nullptr;
  const char* function = nullptr;
  TypeLayout layout;        // of Entry::type
  bool commutative = true;  // Entry::op
};

/// Reduce_scatter's recvcounts: not null, none negative. Raises and returns
/// the error class.
int check_recvcounts(Endpoint* e, const int* counts, const char* function);

/// Steps 1 to 3; fills *in. `inter` says whether the collective has an
/// inter-communicator form. Raises and returns the error class. Always
/// inlined, so that each entry compiles to the checks its Entry lists and
/// builds no Entry: small messages cost as before the entries were one
/// (measured in instructions per call with callgrind: Barrier +5, Bcast and
/// Allreduce fewer, since the datatype's size is no longer asked).
[[gnu::always_inline]] inline int open_entry(Comm comm, const Entry& entry, bool inter,
                                             Entered* in) {
  const char* fn = entry.function;
  Endpoint* e = valid_endpoint(comm);
  if (!e) return invalid_comm(comm, fn);
  if (e->shared->inter && !inter) {
    return raise(e, MPI_ERR_COMM, fn, "not supported on inter-communicators");
  }
  in->e = e;
  in->function = fn;
  int rc = entry.compare ? check_signature(e, entry.signature, fn) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && entry.root) rc = check_root(e, *entry.root, fn);
  if (rc == MPI_SUCCESS && entry.recvcounts) rc = check_recvcounts(e, *entry.recvcounts, fn);
  if (rc == MPI_SUCCESS && entry.count) rc = check_count(e, *entry.count, entry.count_name, fn);
  if (rc == MPI_SUCCESS && entry.type) rc = check_type(e, *entry.type, &in->layout, "datatype", fn);
  if (rc == MPI_SUCCESS && entry.op) rc = check_op(e, *entry.op, &in->commutative, fn);
  return rc;
}

template <class Intra, class Inter>
int enter(Comm comm, const Entry& entry, Intra&& intra, Inter&& inter) {
  Entered in;
  const int rc = open_entry(comm, entry, true, &in);
  if (rc != MPI_SUCCESS) return rc;
  return in.e->shared->inter ? inter(in) : intra(in);
}

template <class Intra>
int enter(Comm comm, const Entry& entry, Intra&& intra) {
  Entered in;
  const int rc = open_entry(comm, entry, false, &in);
  if (rc != MPI_SUCCESS) return rc;
  return intra(in);
}

}  // namespace ep::detail
