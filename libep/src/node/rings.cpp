#include "node/rings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/backoff.hpp"
#include "base/byte_ring.hpp"
#include "base/datatype.hpp"
#include "base/spinlock.hpp"

namespace ep::detail {

namespace {

// A ring record's payload: this envelope, then the carried data (its length
// is the rest of the record), or a Notice.
struct NodeEnvelope {
  std::int64_t key;  // the communicator (CommShared::key)
  std::int32_t tag;
  std::int32_t source_mpi_rank;  // the sender's rank in the communicator's MPI communicator
  std::int32_t dest_local;       // destination endpoint, local index in its process; kStep
  std::uint32_t source_kind;     // the sender's local index << 1 | 1 for a notice
};
static_assert(sizeof(NodeEnvelope) == 24);
// The destination of a step message: the receiving process's step.
constexpr std::int32_t kStep = -1;
struct Notice {
  std::int64_t bytes;
  std::int32_t number;  // the bulk message's
  std::int32_t spare;
};

// The ring to one process of the node, on the sending side.
struct Outbound {
  SpinLock lock;
  RingProducer producer;
  std::deque<std::vector<std::byte>> spill;  // records that did not fit, in order
};

// One set of rings: the processes of a node that attached together. Each
// process hosts the rings into it, one per process of the set (its own
// unused), and a flag it raises once it has flushed at MPI_Finalize.
struct Segment {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  int me = 0;
  std::vector<RingConsumer> inbound;                 // by node rank; mine unused
  std::vector<std::atomic<std::uint64_t>*> flushed;  // each process's flag
};

constexpr std::size_t kFlagBytes = 64;

// A step message that reached this process, waiting for its step to take it.
struct StepMessage {
  int source;  // the sender's rank in the communicator's MPI communicator
  int tag;
  std::vector<std::byte> data;
};

struct NodeState {
  // Drains, and changes to the registry, one at a time.
  SpinLock drain_lock;
  std::vector<std::unique_ptr<Segment>> segments;
  // Outbound rings by world rank of the destination (first segment wins).
  std::unordered_map<int, std::unique_ptr<Outbound>> outbound;
  std::atomic<int> spilling{0};  // outbound rings with spills
  std::unordered_map<std::int64_t, CommShared*> registry;
  // Messages for communicators not registered yet. A message that arrives
  // after its receiver freed the communicator (sent but never received,
  // and still on its way at the free) stays here.
  std::unordered_map<std::int64_t, std::vector<std::vector<std::byte>>> early;
  // The communicator of the last record taken, while it is registered.
  CommShared* last_shared = nullptr;
  // Step messages by communicator key, in the order they came. They need
  // no registry: only a step of the communicator takes them, and a process
  // frees a communicator only after its steps have taken all of theirs.
  std::unordered_map<std::int64_t, std::deque<StepMessage>> steps;
  // The engine's arrival (node_register), for the drains of steps.
  std::atomic<NodeArrival> arrive{nullptr};
  // The step message node_step_take is draining for, which goes straight
  // into its buffer (no queue holds an earlier one of its source and tag).
  struct Wanted {
    std::int64_t key = 0;
    int source = -1;  // -1: none
    int tag = 0;
    void* data = nullptr;
    std::size_t bytes = 0;
  } wanted;
  std::atomic<int> rings{0};  // inbound rings (a drain with none returns at once)
  bool finalize_hook = false;
};

NodeState& state() {
  static NodeState s;
  return s;
}

// The ring capacity: EP_NODE_RING_BYTES if set (0 turns the rings off;
// others are rounded up to a power of two from 8 KiB to 16 MiB), else 2 MiB
// of rings per process over the processes of the node, from 8 KiB to 64 KiB.
std::size_t ring_capacity(int processes) {
  constexpr std::size_t kLeast = 8192;  // a carried message of 1 KiB fits a quarter
  constexpr std::size_t kMost = std::size_t{1} << 24;
  if (const char* env = std::getenv("EP_NODE_RING_BYTES")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long asked = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && errno == 0 && env[0] != '-') {
      if (asked == 0) return 0;
      std::size_t c = kLeast;
      while (c < asked && c < kMost) c <<= 1;
      return c;
    }
    static std::once_flag warned;
    std::call_once(warned, [env] {
      std::fprintf(stderr,
                   "libep: warning: EP_NODE_RING_BYTES=%s is no number of bytes; the default "
                   "applies\n",
                   env);
    });
  }
  std::size_t c = 65536;
  while (c > kLeast && c * static_cast<std::size_t>(processes) > (std::size_t{2} << 20)) c >>= 1;
  return c;
}

// EP_NODE_TEST_NODES: a test hook that makes the processes of a node behave
// as if they were on that many nodes (world rank modulo the number), so that
// one machine tests the MPI path between processes and its mix with rings.
int test_nodes() {
  static const int nodes = [] {
    const char* env = std::getenv("EP_NODE_TEST_NODES");
    if (!env) return 1;
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || n < 1 || n > 1 << 20) {
      std::fprintf(stderr,
                   "libep: warning: EP_NODE_TEST_NODES=%s is no positive number; it is ignored\n",
                   env);
      return 1;
    }
    return static_cast<int>(n);
  }();
  return nodes;
}

// The records of `out` that wait in its spill go into the ring, in order,
// as far as they fit. Called with out.lock held.
void flush_spill(Outbound& out) {
  while (!out.spill.empty()) {
    std::vector<std::byte>& record = out.spill.front();
    void* room = out.producer.reserve(static_cast<std::uint32_t>(record.size()));
    if (!room) return;
    std::memcpy(room, record.data(), record.size());
    out.producer.publish();
    out.spill.pop_front();
  }
  state().spilling.fetch_sub(1, std::memory_order_relaxed);
}

void flush_spills() {
  NodeState& s = state();
  if (s.spilling.load(std::memory_order_relaxed) == 0) return;
  for (auto& [world, out] : s.outbound) {
    out->lock.lock();
    if (!out->spill.empty()) flush_spill(*out);
    out->lock.unlock();
  }
}

// The message of the record `payload` of `length` bytes, whose envelope is
// `e`, for `shared`.
NodeMessage message_of(const CommShared& shared, const NodeEnvelope& e, const std::byte* payload,
                       std::uint32_t length) {
  NodeMessage m;
  const auto source_local = static_cast<int>(e.source_kind >> 1);
  m.source = shared.source_rank(shared.map.rank_of(e.source_mpi_rank, source_local));
  m.tag = e.tag;
  if ((e.source_kind & 1) == 0) {
    m.data = payload + sizeof e;
    m.bytes = length - sizeof e;
  } else {
    Notice n;
    std::memcpy(&n, payload + sizeof e, sizeof n);
    m.bytes = n.bytes;
    m.source_mpi_rank = e.source_mpi_rank;
    m.source_local = source_local;
    m.bulk_number = n.number;
  }
  return m;
}

// Hands one record to its endpoint, or keeps a copy for a communicator not
// yet registered. Called with the drain lock held.
void take_record(const std::byte* payload, std::uint32_t length, NodeArrival arrive) {
  NodeState& s = state();
  NodeEnvelope e;
  std::memcpy(&e, payload, sizeof e);
  const std::int64_t key = e.key;
  if (e.dest_local == kStep) {
    const std::byte* data = payload + sizeof e;
    const std::size_t bytes = length - sizeof e;
    NodeState::Wanted& w = s.wanted;
    if (w.source == e.source_mpi_rank && w.tag == e.tag && w.key == key) {
      if (w.bytes > 0) std::memcpy(w.data, data, std::min(bytes, w.bytes));
      w.source = -1;  // taken
      return;
    }
    s.steps[key].push_back(
        StepMessage{e.source_mpi_rank, e.tag, std::vector<std::byte>(data, data + bytes)});
    return;
  }
  CommShared* shared = s.last_shared;
  if (!shared || shared->key != key) {
    const auto found = s.registry.find(key);
    if (found == s.registry.end()) {
      s.early[key].emplace_back(payload, payload + length);
      return;
    }
    shared = s.last_shared = found->second;
  }
  const auto dest = static_cast<std::size_t>(e.dest_local);
  if (dest < shared->endpoints.size())
    arrive(shared->endpoints[dest].get(), message_of(*shared, e, payload, length));
}

// With `until_wanted`, stops as soon as the wanted step message is taken:
// the records behind it stay in their rings, in order, for a later drain,
// rather than be copied into a queue (a Bcast's root runs ahead of the other
// processes, and its later calls' messages would all go through the queue).
void drain_locked(NodeArrival arrive, bool until_wanted = false) {
  NodeState& s = state();
  flush_spills();
  for (auto& segment : s.segments) {
    for (std::size_t q = 0; q < segment->inbound.size(); ++q) {
      if (static_cast<int>(q) == segment->me) continue;
      RingConsumer& ring = segment->inbound[q];
      std::uint32_t length = 0;
      while (const void* payload = ring.peek(&length)) {
        take_record(static_cast<const std::byte*>(payload), length, arrive);
        ring.pop();
        if (until_wanted && s.wanted.source == -1) return;
      }
    }
  }
}

// MPI_Finalize: flush, drain until every process of each segment has
// flushed, then free the rings (MPI_COMM_SELF's attribute is deleted first
// thing in MPI_Finalize).
void discard_arrival(Endpoint* /*to*/, const NodeMessage& /*message*/) {}

int at_finalize(MPI_Comm /*self*/, int /*keyval*/, void* /*value*/, void* /*extra*/) {
  NodeState& s = state();
  for (;;) {
    s.drain_lock.lock();
    drain_locked(discard_arrival);
    const bool flushed = s.spilling.load(std::memory_order_relaxed) == 0;
    s.drain_lock.unlock();
    if (flushed) break;
    sched_yield();
  }
  for (auto& segment : s.segments) {
    segment->flushed[static_cast<std::size_t>(segment->me)]->store(1, std::memory_order_release);
  }
  for (auto& segment : s.segments) {
    for (auto* flag : segment->flushed) {
      while (flag->load(std::memory_order_acquire) == 0) {
        s.drain_lock.lock();
        drain_locked(discard_arrival);
        s.drain_lock.unlock();
        // What the others still finish before MPI_Finalize may need this
        // process to move MPI on.
        int found = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
        sched_yield();
      }
    }
  }
  for (auto& segment : s.segments) {
    MPI_Win_free(&segment->win);
    MPI_Comm_free(&segment->node);
  }
  s.segments.clear();
  s.outbound.clear();
  s.rings.store(0);
  return MPI_SUCCESS;
}

int hook_finalize() {
  NodeState& s = state();
  if (s.finalize_hook) return MPI_SUCCESS;
  int keyval = MPI_KEYVAL_INVALID;
  int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, nullptr);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  s.finalize_hook = rc == MPI_SUCCESS;
  return rc;
}

}  // namespace

int node_attach(MPI_Comm parent, std::string* why) {
  NodeState& s = state();
  int world = 0;
  int rc = MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm node = MPI_COMM_NULL;
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  if (rc == MPI_SUCCESS && test_nodes() > 1) {
    // The test hook: the processes of a node pretend to be on test_nodes()
    // nodes, dealt out by world rank.
    MPI_Comm part = MPI_COMM_NULL;
    rc = MPI_Comm_split(node, world % test_nodes(), 0, &part);
    MPI_Comm_free(&node);
    node = part;
  }
  int n = 0;
  int me = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &n);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(node, &me);
  if (rc != MPI_SUCCESS) {
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    *why = "MPI_Comm_split_type of the processes of a node failed";
    return rc;
  }
  std::vector<int> worlds(static_cast<std::size_t>(n));
  rc = MPI_Allgather(&world, 1, MPI_INT, worlds.data(), 1, MPI_INT, node);
  // Rings are needed unless every other process of the node has one to it
  // already; every process must give its rings the same size (the least
  // asked for: 0 turns them off).
  std::int64_t asked[2] = {0, -static_cast<std::int64_t>(ring_capacity(n))};
  s.drain_lock.lock();
  for (int w : worlds) asked[0] = asked[0] || (w != world && s.outbound.count(w) == 0);
  s.drain_lock.unlock();
  std::int64_t agreed[2] = {0, 0};
  if (rc == MPI_SUCCESS) rc = MPI_Allreduce(asked, agreed, 2, MPI_INT64_T, MPI_MAX, node);
  const auto capacity = static_cast<std::size_t>(-agreed[1]);
  if (rc != MPI_SUCCESS || agreed[0] == 0 || capacity == 0 || n < 2) {
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) *why = "agreeing on the rings of a node failed";
    return rc;
  }
  // Every process hosts its inbound rings and its flag.
  const std::size_t ring_bytes = RingShared::footprint(capacity);
  // 64 bytes more: MPI need not place a process's part on a cache line
  // (Open MPI 4.1 put them 8 bytes apart from one), so each part starts at
  // its first whole line, the same one in every process's mapping.
  const std::size_t bytes = 64 + kFlagBytes + ring_bytes * static_cast<std::size_t>(n);
  void* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 64, MPI_INFO_NULL, node, &base, &win);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(&node);
    *why = "MPI_Win_allocate_shared of the rings of a node failed";
    return rc;
  }
  std::memset(base, 0, bytes);
  auto segment = std::make_unique<Segment>();
  segment->node = node;
  segment->win = win;
  segment->me = me;
  std::vector<std::byte*> bases(static_cast<std::size_t>(n));
  for (int q = 0; q < n && rc == MPI_SUCCESS; ++q) {
    MPI_Aint size = 0;
    int unit = 0;
    void* at = nullptr;
    rc = MPI_Win_shared_query(win, q, &size, &unit, &at);
    const auto address = reinterpret_cast<std::uintptr_t>(at);
    bases[static_cast<std::size_t>(q)] = static_cast<std::byte*>(at) + ((64 - address % 64) % 64);
  }
  // Nobody writes into a ring before its host has zeroed it.
  if (rc == MPI_SUCCESS) rc = MPI_Barrier(node);
  if (rc != MPI_SUCCESS) {
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    *why = "setting up the rings of a node failed";
    return rc;
  }
  const auto ring_in = [&](int host, int from) {
    return reinterpret_cast<RingShared*>(bases[static_cast<std::size_t>(host)] + kFlagBytes +
                                         ring_bytes * static_cast<std::size_t>(from));
  };
  s.drain_lock.lock();
  for (int q = 0; q < n; ++q) {
    segment->inbound.emplace_back(ring_in(me, q), capacity);
    segment->flushed.push_back(
        reinterpret_cast<std::atomic<std::uint64_t>*>(bases[static_cast<std::size_t>(q)]));
    const int w = worlds[static_cast<std::size_t>(q)];
    if (q == me || s.outbound.count(w) != 0) continue;
    auto out = std::make_unique<Outbound>();
    out->producer = RingProducer(ring_in(q, me), capacity);
    s.outbound.emplace(w, std::move(out));
  }
  s.segments.push_back(std::move(segment));
  s.rings.fetch_add(n - 1, std::memory_order_release);
  s.drain_lock.unlock();
  rc = hook_finalize();
  if (rc != MPI_SUCCESS) *why = "MPI_Comm_set_attr on MPI_COMM_SELF failed";
  return rc;
}

void node_register(CommShared& shared, NodeArrival arrive) {
  NodeState& s = state();
  shared.node_routes.assign(static_cast<std::size_t>(shared.mpi_size), 0);
  shared.mpi_routed = false;
  s.drain_lock.lock();
  s.arrive.store(arrive, std::memory_order_relaxed);
  for (int p = 0; p < shared.mpi_size; ++p) {
    if (p == shared.mpi_rank) continue;
    const auto out = s.outbound.find(shared.world_ranks[static_cast<std::size_t>(p)]);
    if (out == s.outbound.end()) {
      shared.mpi_routed = true;
    } else {
      shared.node_routes[static_cast<std::size_t>(p)] =
          reinterpret_cast<std::uintptr_t>(out->second.get());
    }
  }
  s.registry[shared.key] = &shared;
  const auto early = s.early.find(shared.key);
  if (early != s.early.end()) {
    for (const std::vector<std::byte>& record : early->second) {
      take_record(record.data(), static_cast<std::uint32_t>(record.size()), arrive);
    }
    s.early.erase(early);
  }
  s.drain_lock.unlock();
}

void node_unregister(const CommShared& shared, NodeArrival arrive) {
  NodeState& s = state();
  s.drain_lock.lock();
  if (s.rings.load(std::memory_order_relaxed) != 0) drain_locked(arrive);
  s.registry.erase(shared.key);
  s.steps.erase(shared.key);
  s.last_shared = nullptr;
  s.drain_lock.unlock();
}

int node_send(RequestImpl* s, int notice_number) {
  Endpoint* self = s->endpoint;
  const CommShared& shared = *self->shared;
  const Location to = shared.map.at(s->target);
  NodeState& st = state();
  auto& out =
      *reinterpret_cast<Outbound*>(shared.node_routes[static_cast<std::size_t>(to.mpi_rank)]);
  const ConstTyped data{s->buf, s->count, s->type, s->layout};
  const std::int64_t bytes = data.bytes();
  const bool notice = notice_number >= 0;
  const NodeEnvelope e{shared.key, s->tag, shared.mpi_rank, to.local_rank,
                       static_cast<std::uint32_t>(self->local) << 1 | (notice ? 1u : 0u)};
  const std::size_t rest = notice ? sizeof(Notice) : static_cast<std::size_t>(bytes);
  const auto length = static_cast<std::uint32_t>(sizeof e + rest);
  const auto write = [&](std::byte* room) {
    std::memcpy(room, &e, sizeof e);
    if (notice) {
      const Notice n{bytes, notice_number, 0};
      std::memcpy(room + sizeof e, &n, sizeof n);
      return MPI_SUCCESS;
    }
    if (rest == 0) return MPI_SUCCESS;  // the buffer may be null
    if (data.layout.contiguous(data.count)) {
      std::memcpy(room + sizeof e, data.data_start(), rest);
      return MPI_SUCCESS;
    }
    return pack(data, room + sizeof e);
  };
  int rc = MPI_SUCCESS;
  out.lock.lock();
  void* room = out.spill.empty() ? out.producer.reserve(length) : nullptr;
  if (room) {
    rc = write(static_cast<std::byte*>(room));
    if (rc == MPI_SUCCESS) out.producer.publish();
  } else {
    std::vector<std::byte> record(length);
    rc = write(record.data());
    if (rc == MPI_SUCCESS) {
      if (out.spill.empty()) st.spilling.fetch_add(1, std::memory_order_relaxed);
      out.spill.push_back(std::move(record));
    }
  }
  out.lock.unlock();
  if (!notice) s->state.store(RequestImpl::State::complete, std::memory_order_relaxed);
  return rc;
}

void node_drain(NodeArrival arrive) {
  NodeState& s = state();
  if (s.rings.load(std::memory_order_acquire) == 0) return;
  if (!s.drain_lock.try_lock()) return;
  drain_locked(arrive);
  s.drain_lock.unlock();
}

bool node_spilling() { return state().spilling.load(std::memory_order_relaxed) != 0; }

void node_step_send(const CommShared& shared, int to, int tag, const void* data,
                    std::size_t bytes) {
  NodeState& s = state();
  auto& out = *reinterpret_cast<Outbound*>(shared.node_routes[static_cast<std::size_t>(to)]);
  const NodeEnvelope e{shared.key, tag, shared.mpi_rank, kStep, 0};
  const auto length = static_cast<std::uint32_t>(sizeof e + bytes);
  // Behind the spills, which keep their order; a full ring empties as its
  // receiver drains, and this process drains meanwhile, so that two
  // processes filling each other's rings both move on.
  Backoff backoff;
  for (;;) {
    out.lock.lock();
    void* room = out.spill.empty() ? out.producer.reserve(length) : nullptr;
    if (room) {
      std::memcpy(room, &e, sizeof e);
      if (bytes > 0) std::memcpy(static_cast<std::byte*>(room) + sizeof e, data, bytes);
      out.producer.publish();
      out.lock.unlock();
      return;
    }
    out.lock.unlock();
    node_drain(s.arrive.load(std::memory_order_relaxed));
    backoff.pause();
  }
}

bool node_step_take(const CommShared& shared, int from, int tag, void* data, std::size_t bytes) {
  NodeState& s = state();
  if (!s.drain_lock.try_lock()) return false;  // the holder delivers for everyone
  // One that came before, queued by a drain, is the first; else the drain
  // puts the first that comes straight into `data`.
  bool taken = false;
  const auto queue = s.steps.find(shared.key);
  if (queue != s.steps.end()) {
    std::deque<StepMessage>& messages = queue->second;
    for (auto m = messages.begin(); m != messages.end(); ++m) {
      if (m->source != from || m->tag != tag) continue;
      if (bytes > 0) std::memcpy(data, m->data.data(), std::min(bytes, m->data.size()));
      messages.erase(m);
      taken = true;
      break;
    }
  }
  if (!taken) {
    s.wanted = NodeState::Wanted{shared.key, from, tag, data, bytes};
    drain_locked(s.arrive.load(std::memory_order_relaxed), /*until_wanted=*/true);
    taken = s.wanted.source == -1;
    s.wanted.source = -1;
  }
  s.drain_lock.unlock();
  return taken;
}

}  // namespace ep::detail
