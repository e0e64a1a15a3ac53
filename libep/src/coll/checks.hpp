// Argument checks of the collectives, and the EP_CHECK_COLLECTIVES mode.
//
// A collective must not leave the other endpoints hanging when one endpoint's
// arguments are bad, so the checks come in two kinds:
//
//  * Agreed arguments, which MPI requires to be the same on every rank
//    (root, op, the count and datatype of Bcast and the reductions):
//    checked by the collective's entry (coll/entry.hpp) before the endpoint
//    meets the others, on intra- and inter-communicators alike. When they
//    are bad they are bad on every endpoint, which all fail alike without
//    waiting for each other. (If they differ between endpoints the program
//    is erroneous as an MPI program is; EP_CHECK_COLLECTIVES=1 then reports
//    it instead of hanging.)
//  * Endpoint-local arguments (MPI_IN_PLACE where this endpoint may not use
//    it, the buffers, counts and types of the collectives that move data):
//    the endpoint notes the error in a LocalError, takes part in the
//    collective with a stand-in (a scratch buffer, zero counts) so that
//    nobody waits for it in vain, and returns the error at the end. What the
//    others receive is then undefined, as after any MPI error.
//
// EP_CHECK_COLLECTIVES=1, on intra-communicators (the groups of an
// inter-communicator call with different arguments by design): before the
// checks of the agreed arguments, every endpoint publishes what it called
// (collective, root, count, datatype size) and all of them compare every
// rank with rank 0 through the team and one MPI_Allgatherv among the
// leaders. The first rank that differs is reported on every endpoint, with
// MPI_ERR_OTHER. The exchange is the same whatever the collective, so it
// always matches up even when the collectives called do not.
#pragma once

#include <mpi.h>

#include <string>

#include "base/datatype.hpp"
#include "ep/types.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"

namespace ep::detail {

enum class CollId : int {
  Barrier,
  Bcast,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Reduce,
  Allreduce,
  Reduce_scatter,
  Reduce_scatter_block,
  Scan,
  Exscan,
  Alltoallw,
};
const char* name_of(CollId id);

/// What an endpoint called, as EP_CHECK_COLLECTIVES compares it: root is
/// -1 for collectives without one; count is -1 where it legitimately differs
/// between ranks (the v-variants), and the type then does not matter.
/// (Calls compare count times the datatype's size.)
struct Signature {
  CollId id = CollId::Barrier;
  int root = -1;
  long long count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  /// Reduce_scatter: the count is the sum of these, one per rank.
  const int* count_per_rank = nullptr;
  /// Gather, Scatter with MPI_IN_PLACE at the root: the root's call is
  /// compared by the count and type of its other side.
  bool root_in_place = false;
  long long root_count = 0;
  MPI_Datatype root_type = MPI_DATATYPE_NULL;
};

/// With EP_CHECK_COLLECTIVES=1, compares this call with every other
/// endpoint's; otherwise returns MPI_SUCCESS at once. Intra-communicators
/// only: on an inter-communicator the groups' calls differ by design.
/// \note Collective over all endpoints of the communicator (when enabled).
int check_signature(Endpoint* e, const Signature& mine, const char* function);

// Checks of agreed arguments; each raises and returns the error class.
/// A rank of the communicator; on an inter-communicator MPI_ROOT,
/// MPI_PROC_NULL or a rank of the remote group.
int check_root(Endpoint* e, int root, const char* function);
int check_count(Endpoint* e, int count, const char* what, const char* function);
/// Also fills *layout; `what` names the argument ("sendtype").
int check_type(Endpoint* e, MPI_Datatype type, TypeLayout* layout, const char* what,
               const char* function);
int check_op(Endpoint* e, MPI_Op op, bool* commutative, const char* function);

/// The first endpoint-local error of a call, raised when the call is over.
class LocalError {
 public:
  /// Records the error unless one is recorded already; returns false so that
  /// callers can write `ok = err.note(...)`.
  template <class... Args>
  bool note(int error_class, fmt::format_string<Args...> format, Args&&... args) {
    if (class_ == MPI_SUCCESS) {
      class_ = error_class;
      why_ = fmt::format(format, std::forward<Args>(args)...);
    }
    return false;
  }
  /// Records the failure of an MPI call this endpoint made on its own
  /// (`step`), with MPI's error string; returns whether `rc` is a success.
  bool note_mpi(int rc, const char* step) {
    if (rc == MPI_SUCCESS) return true;
    return note(error_class_of(rc), "{} failed: {}", step, mpi_error_string(rc));
  }
  bool any() const { return class_ != MPI_SUCCESS; }
  int error_class() const { return class_; }
  const std::string& why() const { return why_; }
  /// Raises the recorded error, else `rc` (an MPI code from the call itself)
  /// through check_mpi, else returns MPI_SUCCESS.
  int finish(const Endpoint* e, const char* function, int rc, const char* step) const;

 private:
  int class_ = MPI_SUCCESS;
  std::string why_;
};

/// Endpoint-local versions of check_count and check_type: note the error in
/// `err` and substitute an empty stand-in (count 0, MPI_BYTE), so that the
/// endpoint can still take part. Return whether the argument was good.
bool local_count(int* count, const char* what, LocalError& err);
bool local_type(MPI_Datatype* type, TypeLayout* layout, const char* what, LocalError& err);

/// Checks a count array (v-variants): every one of `n` entries >= 0. Notes
/// the first bad entry in `err`.
bool check_counts(const int* counts, int n, const char* what, LocalError& err);

}  // namespace ep::detail
