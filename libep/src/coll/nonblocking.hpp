// The engine of the non-blocking collectives (ep/coll.hpp: Ibarrier ...
// Iexscan; their public functions are in coll/api_nonblocking.cpp and, for
// the reductions, coll/api_nonblocking_reduce.cpp).
//
// An endpoint's call packs its contribution at once (coll/gathered.hpp: a
// list of blocks; the root's data for Ibcast, every block of an Ialltoall,
// nothing for Ibarrier) and returns a request. The contributions of a
// process's endpoints travel as one message to every other process of the
// communicator, over its MPI communicator; once an endpoint's process holds
// every contribution, the endpoint's own `take` (unpack the blocks addressed
// to it, or reduce in rank order) runs in its Test or Wait and completes the
// request. Exact for every op and layout, on intra- and inter-communicators
// alike. A process receives every contribution, unless the call routes
// its blocks (NonblockingCall::Route) to the processes that take them.
//
// Calls are numbered by each endpoint (the same number everywhere, since
// every endpoint starts the collectives of a communicator in the same
// order); the process keeps one ProcessCall per number until all its
// endpoints have taken their results. Progress needs no thread of its own:
//  - the endpoint that completes its process's contributions to a call
//    sends the process's message at once, so that a process whose endpoints
//    are all busy elsewhere (in a blocking receive, say) still gives the
//    others what they wait for;
//  - the other processes' messages are received, and the MPI steps of the
//    hierarchical form (ProcessStep) tested and moved on, by whichever
//    endpoint of the process tests or waits for one of its requests, and by
//    every endpoint of the process that waits for anything else in libep
//    (a hook of base/backoff.hpp), as MPI progresses a process's
//    collectives in any of its calls: a step of several rounds (Comm_idup's)
//    needs that to reach its next round while the endpoints block elsewhere.
// The messages from one process come in call order (MPI does not let
// messages with the same source and tag overtake each other), and each
// process receives them in that order, one at a time per source.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/datatype.hpp"
#include "base/held_type.hpp"
#include "coll/checks.hpp"
#include "coll/gathered.hpp"
#include "ep/types.hpp"
#include "object/endpoint.hpp"

namespace ep::detail {

/// The hierarchical form of a non-blocking collective: instead of sending
/// its contributions to every process, the process makes one of MPI's
/// non-blocking collectives among the processes with them, on the
/// communicator's first bulk channel (only point-to-point messages travel
/// there otherwise, so the processes start its collectives in call order,
/// as MPI requires). Chosen from agreed arguments only, so every process
/// takes the same form for a call.
class ProcessStep {
 public:
  virtual ~ProcessStep() = default;
  /// Starts the MPI collectives once the process's endpoints have all
  /// handed in their contributions (`mine`, by local rank, packed as
  /// pack_blocks does), their requests appended to *requests; what the
  /// endpoints take goes to *result. Returns an MPI error code.
  virtual int start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
                    std::vector<std::byte>* result, std::vector<MPI_Request>* requests) = 0;
  /// Called once the requests of start, or of the last proceed, have all
  /// completed: a step of several rounds starts the next one here, its
  /// requests appended to *requests, and sets *more. Returns an MPI error
  /// code.
  virtual int proceed(const CommShared& /*shared*/, std::vector<MPI_Request>* /*requests*/,
                      bool* more) {
    *more = false;
    return MPI_SUCCESS;
  }
  /// Whose contributions start() reads: all (kEveryone), or only those of
  /// one local rank (returned), or nobody's (kNobody). A step that reads
  /// fewer than all starts as soon as that endpoint started the call (with
  /// kNobody, the first endpoint of the process that did), still in call
  /// order: the process's other endpoints take their results when they
  /// come, instead of each call waiting for all of them (an 8-byte Ibcast
  /// on 2 x 2 endpoints, 2 cores: 4.0 us per call waiting for all, 1.7 us
  /// so; ep-bench ibcast).
  static constexpr int kEveryone = -1;
  static constexpr int kNobody = -2;
  virtual int reads(const CommShared& /*shared*/) const { return kEveryone; }
  /// An exclusive step starts only once the communicator's earlier exclusive
  /// steps are over, and the calls after it wait until it started (so the
  /// processes still start everything in call order): Comm_idup's, whose MPI
  /// communicator creations must not overlap (comm/idup.cpp says why).
  virtual bool exclusive() const { return false; }
};

/// Where the MPI steps run: see ProcessStep.
inline MPI_Comm step_carrier(const CommShared& shared) { return shared.bulk.front(); }

/// What an endpoint does with every contribution: its result. Returns an
/// MPI error code.
using Take = std::function<int(const Gathered&)>;

/// One endpoint's non-blocking collective, as its public function prepared
/// it (its arguments checked, its blocks made).
struct NonblockingCall {
  explicit NonblockingCall(Endpoint* endpoint) : e(endpoint) {}

  Endpoint* e;
  std::vector<ConstTyped> send;  // this endpoint's contribution, packed at the start
  Take take;                     // run once every contribution is there
  LocalError err;                // endpoint-local errors: the request fails with the first
  HeldTypes held;                // the datatypes `take` uses
  // The hierarchical form; `take` then reads Gathered::result.
  std::shared_ptr<ProcessStep> step;
  // The gathered form sends every process the blocks it needs: by default
  // all of them (Route::everyone); the rooted and personalized collectives
  // of intra-communicators send a process only what its endpoints take, as
  // the blocking ones' process steps do: every block to the process of
  // rank `route_root` (Route::root: Igather, the Ireduce of the gathered
  // form), or block j to the process of rank j (Route::by_rank: Iscatter,
  // Ialltoall). Agreed arguments only: every endpoint routes a call alike.
  enum class Route : std::uint8_t { everyone, root, by_rank };
  Route route = Route::everyone;
  int route_root = -1;
  // Whether the request waits for the others even with nothing to take
  // (Ibarrier). Otherwise an endpoint that takes nothing (a root of Ibcast,
  // Iscatter; a sender of Igather, Ireduce) completes in the call, its data
  // packed: its buffers are free again, which is all MPI promises there.
  bool synchronizing = false;
};

/// The communicator's process part is going away (comm/build.cpp,
/// release_shared): its non-blocking collectives are no longer moved on by
/// the waits of other communicators' endpoints.
void forget_nonblocking(CommShared& shared);

/// Starts `call`: its contribution is packed and handed to the process; the
/// request in *request completes through ep::Wait/Test. A failure to start
/// is raised on the endpoint. Returns an MPI error code.
int start_nonblocking(NonblockingCall&& call, Request* request);

}  // namespace ep::detail
