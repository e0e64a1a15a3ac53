// The rings between the processes of a node: they move the inbox messages
// of point-to-point (p2p/transport_mpi.hpp: a carried message or a notice)
// through shared memory (base/byte_ring.hpp) instead of MPI, and report each
// message that arrives to the p2p engine, which matches it; bulk data still
// goes through MPI, on the communicator's bulk channel. They also carry the
// leaders' steps of small collectives (coll/mpi_step.hpp): messages from one
// process to another process's step of a communicator, not to an endpoint,
// which the step takes by source and tag (node_step_send, node_step_take).
//
// One ring per ordered pair of processes of a node carries the messages of
// every communicator: each record names its communicator by its key
// (CommShared::key, the same in every process), its destination and source
// endpoints (or the process's step), its tag and its sender's rank in the
// communicator's MPI communicator. The receiving process finds the
// communicator in its registry; a message for a communicator it has not
// finished making waits until it registers. Messages that reached a process
// before its last endpoint freed the communicator are dropped with it, as
// MPI_Comm_free drops them; one still on its way then, which a correct
// program does not leave, is kept until MPI_Finalize.
//
// Order: one producer at a time writes a ring (its lock in the sending
// process) and one drain at a time takes records off all of a process's
// rings and hands each to its endpoint (or its step's queue) before the
// next, so one sender's messages reach their endpoint in the order they
// were sent. Receives from a process reached this way are never posted in
// MPI: the engine matches them.
//
// A ring that is full leaves a point-to-point record in the sender's spill
// queue, copied, and the send completes (an eager message); the spills go
// into the ring, in order and before any later record, at the process's next
// drain or send on it. A step message waits for room instead, draining. At
// MPI_Finalize every process of the node flushes its spills and drains until
// every process has flushed, then frees the rings.
#pragma once

#include <cstdint>

#include "object/endpoint.hpp"
#include "object/request.hpp"

namespace ep::detail {

/// Makes the rings between the processes of `parent` that share a node,
/// unless every pair already has one: collective over `parent`. Returns an
/// MPI error code; *why says what failed.
int node_attach(MPI_Comm parent, std::string* why);

/// A message the node transport took off a ring, as its receiver sees it.
/// `data` points into the ring, valid only during the call it is given to.
struct NodeMessage {
  int source = 0;  // endpoint rank of the sender, as the receiver reports it
  int tag = 0;
  std::int64_t bytes = 0;
  const std::byte* data = nullptr;  // the packed data; nullptr for a notice
  // A notice: where its bulk message comes from, and its number.
  int source_mpi_rank = -1;
  int source_local = -1;
  int bulk_number = -1;
};

/// What the engine does with a message the node transport took off a ring:
/// matches it, and copies its data straight out of the ring into a posted
/// receive, or keeps a copy as an unexpected message.
using NodeArrival = void (*)(Endpoint* to, const NodeMessage& message);

/// Gives `shared` its routes (CommShared::node_routes: which of its
/// processes are reached through rings) and registers it, so that its
/// messages are delivered; those that came before are handed to `arrive`
/// now, in order.
void node_register(CommShared& shared, NodeArrival arrive);

/// Unregisters `shared`, which is being freed, after handing what its rings
/// hold for it to `arrive` (its endpoints then drop them).
void node_unregister(const CommShared& shared, NodeArrival arrive);

/// Whether the MPI rank `p` of shared's MPI communicator is reached through
/// a ring.
inline bool node_routed(const CommShared& shared, int p) {
  return !shared.node_routes.empty() && shared.node_routes[static_cast<std::size_t>(p)] != 0;
}

/// Puts the inbox message of the send `s` into the ring to its destination's
/// process: its packed data (a standard send of at most kCarriedLimit bytes,
/// `notice_number` < 0), or a notice of bulk message `notice_number`. A
/// carried send is complete on return. Returns an MPI error code.
int node_send(RequestImpl* s, int notice_number);

/// Takes every record off this process's rings and hands each to `arrive`,
/// after putting the spills into their rings; returns at once if another
/// thread is draining. Never blocks.
void node_drain(NodeArrival arrive);

/// Whether records of this process wait in spill queues for room in their
/// rings: node_drain puts them in.
bool node_spilling();

/// The largest step message the rings carry; larger ones go through MPI.
inline constexpr std::size_t kNodeStepLimit = 1024;

/// Whether a step message of `bytes` bytes between this process and the
/// process `p` of shared's MPI communicator goes through a ring: both ends
/// decide alike.
inline bool node_step_routed(const CommShared& shared, int p, std::size_t bytes) {
  return bytes <= kNodeStepLimit && node_routed(shared, p);
}

/// Puts a step message of `bytes` bytes (node_step_routed) with `tag` into
/// the ring to the process `to` of shared's MPI communicator, for that
/// process's step of the communicator. Waits while the ring is full,
/// draining this process's rings meanwhile.
void node_step_send(const CommShared& shared, int to, int tag, const void* data, std::size_t bytes);

/// Takes the first step message from the process `from` with `tag` that
/// reached this process for `shared` into `data` (`bytes` bytes, as sent),
/// draining the rings first. Returns whether there was one; never blocks.
bool node_step_take(const CommShared& shared, int from, int tag, void* data, std::size_t bytes);

}  // namespace ep::detail
