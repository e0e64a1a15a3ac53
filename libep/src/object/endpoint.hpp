// The objects behind ep::Comm.
//
// One CommShared per communicator per process holds what all of that
// process's endpoints share: the rank map, the tag layout and the MPI
// communicators that carry the traffic. Each Endpoint holds its own matching
// state; nothing on the message path locks more than the one endpoint it
// delivers to.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/intrusive_fifo.hpp"
#include "base/spinlock.hpp"
#include "ep/types.hpp"
#include "object/handle_pool.hpp"
#include "object/posted_queue.hpp"
#include "object/request.hpp"
#include "ranks/inter_map.hpp"
#include "ranks/rank_map.hpp"
#include "ranks/tag_layout.hpp"

namespace ep::detail {

struct CommShared;
// The endpoints' meeting place (team/local_team.hpp) is a floor above the
// object model; CommShared only owns it. Whoever destroys a CommShared
// includes that header.
class LocalTeam;

/// The lane of an inbox channel that several endpoints of a process receive
/// on (CommShared::lanes). A drain (taking messages off the inbox with
/// MPI_Improbe and handing each to its endpoint) holds `lock` and sets
/// `draining` for its whole length. A receive posted in MPI must not miss a
/// message a drain took off MPI before the post but has not queued yet: an
/// endpoint announces each post (Endpoint::posting) and posts only while no
/// drain runs, and a drain, once it has set `draining`, waits until no
/// endpoint of the channel is posting before it takes anything. So each
/// post either precedes every message a concurrent drain takes, or sees
/// `draining` and takes the lock (p2p/engine.cpp). Posting thus writes only
/// its own endpoint, and endpoints that only post never share a written
/// cache line.
struct alignas(64) Lane {
  SpinLock lock;
  std::atomic<bool> draining{false};
};

/// Posted receives and unexpected messages of one endpoint, in order.
/// It has a cache line of its own: other threads write it on every delivery,
/// and the endpoint's read-mostly fields must not bounce along with it.
struct alignas(64) MatchState {
  SpinLock lock;
  PostedQueue posted;
  IntrusiveFifo<Incoming> unexpected;
};
// One line: an intra-process sender finds the receive it matches in the
// line of the lock it took (object/posted_queue.hpp).
static_assert(sizeof(MatchState) == 64);

/// One endpoint; it lives in the endpoint pool (object/handle_pool.hpp),
/// whose slot gives it its handle (handle_of). Comm_free retires the handle
/// at once; the object stays until its communicator's process part goes.
struct Endpoint {
  CommShared* shared = nullptr;
  int rank = 0;   // in its group (the communicator, or its side of an inter-communicator)
  int local = 0;  // index among the process's endpoints of this communicator (both groups)
  int group = 0;  // inter-communicators: which of the two groups it belongs to
  // Who this endpoint is, across communicators: an endpoint keeps its
  // identity through dup, split, inter-communicator creation and merge, as an
  // MPI process keeps its identity. (world rank << 32 | creation number)
  std::int64_t identity = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // Cached attributes (comm/attributes.cpp): keyval and value, in the order
  // first set. Touched only by the thread driving this endpoint.
  std::vector<std::pair<int, void*>> attributes;
  MatchState match;
  // Requests the user freed while still active; reclaimed once complete.
  // Touched only by the thread driving this endpoint.
  std::vector<RequestImpl*> orphans;
  // Receives posted in MPI that wait for their inbox message: one may be a
  // notice whose sender waits until this endpoint starts the bulk receive,
  // so the endpoint's waits test them (p2p/transport_mpi.hpp). The oldest
  // of each envelope (source and tag), in no order; the later ones of an
  // envelope queue behind it (RequestImpl::inbox_next), since MPI matches
  // them in the order they were posted. Touched only by the thread driving
  // this endpoint.
  std::vector<RequestImpl*> inbox_heads;
  // Messages of other processes in match.unexpected. Changed under the match
  // lock and, when the endpoint shares its channel with others of the
  // process, by a drain (Lane); the owner reads it before posting a receive
  // in MPI (p2p/engine.cpp).
  std::atomic<int> remote_unexpected{0};
  // The lane of the channel this endpoint receives on, when other endpoints
  // of the process receive on it too (CommShared::lanes); nullptr otherwise.
  Lane* lane = nullptr;
  // Set by the owner while it posts a receive in MPI without the lane's
  // lock; a drain on the lane waits until it is clear (Lane).
  std::atomic<bool> posting{false};
  // Bulk messages this endpoint has sent: the next one's number.
  std::uint32_t bulk_sent = 0;
  // Inbox buffers of completed requests, for the next ones (p2p/
  // transport_mpi.cpp). Touched only by the thread driving this endpoint.
  std::vector<std::unique_ptr<std::byte[]>> spare_wires;
  // Storage of freed requests, destroyed, for the next non-blocking
  // operations (p2p/api_common.hpp). Touched only by the thread driving
  // this endpoint.
  std::vector<RequestImpl*> spare_requests;
  // Requests of this endpoint that the user holds (made by new_request and
  // not freed yet, orphans included), and messages matched by Mprobe or
  // Improbe and not yet received. Comm_free leaves an endpoint that
  // still has some in place, since MPI lets pending operations on a freed
  // communicator complete normally, and sets finish_free: the comm layer's
  // release, run when the last one is freed. Touched only by the thread
  // driving this endpoint.
  int requests_held = 0;
  void (*finish_free)(Endpoint*) = nullptr;
  // Non-blocking collectives this endpoint started on its communicator
  // (coll/nonblocking.cpp numbers the calls by it). Touched only by the
  // thread driving this endpoint.
  std::uint64_t nonblocking_calls = 0;

  Endpoint() = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  ~Endpoint() {
    for (RequestImpl* r : spare_requests) RequestImpl::operator delete(r);
  }

  // Over-aligned (MatchState): both forms, so that `new` and `delete` find
  // the pool whichever they look for.
  static void* operator new(std::size_t size);
  static void* operator new(std::size_t size, std::align_val_t);
  static void operator delete(void* storage);
  static void operator delete(void* storage, std::align_val_t);
};

using EndpointPool = HandlePool<Endpoint>;

inline void* Endpoint::operator new(std::size_t /*size*/) { return EndpointPool::allocate(); }
inline void* Endpoint::operator new(std::size_t /*size*/, std::align_val_t) {
  return EndpointPool::allocate();
}
inline void Endpoint::operator delete(void* storage) { EndpointPool::release(storage); }
inline void Endpoint::operator delete(void* storage, std::align_val_t) {
  EndpointPool::release(storage);
}

/// The handle of an endpoint whose communicator is not freed.
inline Comm handle_of(const Endpoint* e) { return reinterpret_cast<Comm>(EndpointPool::handle(e)); }

/// A request of `e` that the user held is gone; the last one of an endpoint
/// whose communicator was freed releases the endpoint (finish_free).
inline void drop_held_request(Endpoint* e) {
  if (--e->requests_held == 0 && e->finish_free) e->finish_free(e);
}

/// The endpoint behind a handle, or nullptr for COMM_NULL and for freed and
/// garbage handles (handle_pool.hpp says which). Reads no freed memory.
inline Endpoint* valid_endpoint(Comm comm) {
  return EndpointPool::live(reinterpret_cast<std::uintptr_t>(comm));
}

/// Raises MPI_ERR_COMM for a handle valid_endpoint refused, on behalf of
/// `function` (the handler of MPI_COMM_WORLD applies: there is no endpoint).
/// Every public function reports a bad communicator through this one.
[[gnu::cold]] int invalid_comm(Comm comm, const char* function);

struct NonblockingState;  // coll/nonblocking.cpp

struct CommShared {
  int id = 0;             // process-wide sequence number, for messages
  std::string global_id;  // the same in every process: "w<world rank>c<id>" of MPI rank 0
  std::int64_t key = 0;   // the same, as a number: world rank << 32 | id
  bool noted = false;     // key given to comm/turn.hpp (note_communicator)
  // The communicator's MPI communicator: exactly the processes that host its
  // endpoints, ranked as in the rank map. Its leaders (local endpoint 0 of
  // each process) run the inter-process steps of collectives on it.
  MPI_Comm mpi_comm = MPI_COMM_NULL;
  // The MPI communicator of the communicator this one was made from, in
  // this process (null if none): where its set of MPI communicators goes
  // back to when it is freed (comm/build.hpp, PooledSet::made_from).
  MPI_Comm made_from = MPI_COMM_NULL;
  int mpi_rank = 0;
  int mpi_size = 0;
  std::vector<int> world_ranks;  // MPI_COMM_WORLD rank of each process of mpi_comm
  RankMap map;
  std::vector<std::int64_t> identities;  // by (union) rank: see Endpoint::identity
  TagLayout tags;
  int user_tag_ub = 0;  // storage for the MPI_TAG_UB attribute
  // Comm_set_name's names, by local endpoint (only those set): each endpoint
  // names its own handle, and the process's EP_INSPECT dump reads them all.
  mutable std::mutex names_lock;
  std::map<int, std::string> names;

  // The channels (ranks/tag_layout.hpp: usually one). inbox[c] carries every
  // message addressed to the local endpoints of channel c of its destination
  // process, the destination's slot in the MPI tag.
  std::vector<MPI_Comm> inbox;
  // bulk[c] carries the data of the messages to those endpoints that do not
  // travel in their inbox message (p2p/transport_mpi.hpp).
  std::vector<MPI_Comm> bulk;
  // One lane per channel, for the channels that several endpoints of this
  // process receive on (Lane): no message taken off MPI before a receive was
  // posted in MPI can be missed by it.
  using Lane = detail::Lane;
  std::unique_ptr<Lane[]> lanes;
  // By MPI rank: the ring (node/rings.hpp) that reaches that
  // process, or 0 where MPI does (and for this process); empty until the
  // communicator registers with the node transport. `mpi_routed`: whether
  // any other process is reached through MPI.
  std::vector<std::uintptr_t> node_routes;
  bool mpi_routed = true;

  std::vector<std::unique_ptr<Endpoint>> endpoints;  // by local rank
  std::unique_ptr<LocalTeam> team;                   // where the endpoints meet for collectives
  // The non-blocking collectives under way (coll/nonblocking.cpp), made by
  // the first; nonblocking_lock guards the making.
  std::mutex nonblocking_lock;
  std::shared_ptr<NonblockingState> nonblocking;
  std::atomic<int> live{0};  // endpoints not yet freed
  // Intercomm_create from this communicator, by (first leader, second
  // leader, tag): how many this process has made. Touched only by the
  // team's leader inside the call.
  std::map<std::tuple<std::int64_t, std::int64_t, int>, int> intercomms_made;

  // Inter-communicators. `map` then places the union of both groups ("union
  // ranks"): the first group's ranks, then the second's. The engine moves
  // messages between union ranks; these tables translate at the edges.
  bool inter = false;
  InterLayout layout;  // inter-communicators only; layout.map == map
  const std::vector<int>& members(int group) const { return layout.members[group]; }

  /// Ranks an endpoint's point-to-point calls address: its own communicator,
  /// or the remote group of an inter-communicator.
  int peer_group(const Endpoint& e) const { return inter ? 1 - e.group : e.group; }
  int group_size(int group) const {
    return inter ? static_cast<int>(members(group).size()) : map.size();
  }
  int peer_count(const Endpoint& e) const { return group_size(peer_group(e)); }
  int peer_to_union(const Endpoint& e, int peer) const {
    return inter ? members(peer_group(e))[static_cast<std::size_t>(peer)] : peer;
  }
  /// The rank a receiver reports as MPI_SOURCE for a sender's union rank.
  int source_rank(int union_rank) const {
    return inter ? layout.rank_in_group[static_cast<std::size_t>(union_rank)] : union_rank;
  }
  bool is_local(int union_rank) const { return map.at(union_rank).mpi_rank == mpi_rank; }
  Endpoint* local_endpoint(int union_rank) const {
    return endpoints[static_cast<std::size_t>(map.at(union_rank).local_rank)].get();
  }
};

}  // namespace ep::detail
