// The process-wide pool of freed communicators' MPI communicators
// (comm/build.hpp says what it promises): sets kept, offered to creations,
// chosen by all the processes of one, taken, and drained of what their
// last owner left in MPI before they are offered again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "comm/build.hpp"
#include "object/error.hpp"

namespace ep::detail {

namespace {

// Sets a pool keeps at most, offered or not: enough for a few communicators
// freed and made again in turn; beyond it the oldest are freed.
constexpr std::size_t kPoolCapacity = 8;

struct PoolEntry {
  PooledSet set;
  bool reserved = false;  // offered by a creation under way
  bool drained = false;   // nothing of its last owner left in MPI (drain_set)
};

struct Pool {
  std::mutex mutex;
  std::vector<PoolEntry> entries;  // oldest first
  // The MPI communicators of this process's live endpoint communicators: a
  // set made from one of them waits for that parent's next creation.
  std::vector<MPI_Comm> live;
};

// Never destroyed: a communicator freed after static destruction began
// still finds it (its sets are then simply not freed before MPI_Finalize).
Pool& pool() {
  static Pool* const p = new Pool;
  return *p;
}

int free_set(PooledSet& set) {
  int rc = MPI_SUCCESS;
  for (std::vector<MPI_Comm>* channels : {&set.inbox, &set.bulk}) {
    for (MPI_Comm& c : *channels) {
      if (c != MPI_COMM_NULL) keep_first_error(&rc, MPI_Comm_free(&c));
    }
  }
  if (set.mpi_comm != MPI_COMM_NULL) keep_first_error(&rc, MPI_Comm_free(&set.mpi_comm));
  return rc;
}

// Receives and drops what reached this process on `c` but was never
// received: the next communicator on the set must not see it.
int drain(MPI_Comm c) {
  std::vector<char> sink;
  for (;;) {
    int flag = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    int rc = MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &message, &status);
    if (rc != MPI_SUCCESS || !flag) return rc;
    int bytes = 0;
    rc = MPI_Get_count(&status, MPI_BYTE, &bytes);
    if (rc != MPI_SUCCESS) return rc;
    sink.resize(static_cast<std::size_t>(std::max(bytes, 1)));
    rc = MPI_Mrecv(sink.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
}

// drain() of each of a set's MPI communicators.
int drain_set(const PooledSet& set) {
  int rc = MPI_SUCCESS;
  for (const std::vector<MPI_Comm>* channels : {&set.inbox, &set.bulk}) {
    for (MPI_Comm c : *channels) {
      if (rc == MPI_SUCCESS) rc = drain(c);  // give_back pools no null channel
    }
  }
  if (rc == MPI_SUCCESS) rc = drain(set.mpi_comm);
  return rc;
}

}  // namespace

void note_live(MPI_Comm c) {
  std::lock_guard lock(pool().mutex);
  pool().live.push_back(c);
}

void note_gone(MPI_Comm c) {
  std::lock_guard lock(pool().mutex);
  std::vector<MPI_Comm>& live = pool().live;
  const auto it = std::find(live.begin(), live.end(), c);
  if (it != live.end()) live.erase(it);
}

// Moves a released communicator's MPI communicators into the pool when it
// was built completely. Returns false when they stay with `shared` (to be
// freed). What its last owner left unreceived in MPI is drained when a
// creation first offers the set (reserve_offer), not here: until this
// process offers it, no process can choose the set, so nothing of a next
// communicator can be on it yet, and a draining probe that finds nothing
// yields the core where Open MPI yields when idle (a warm Comm_free on
// 3 processes x 2 endpoints took 20 us for the three probes, against 1.2 us
// for six MPI processes' MPI_Comm_free).
bool give_back(CommShared& shared) {
  if (shared.mpi_comm == MPI_COMM_NULL || shared.global_id.empty()) return false;
  if (shared.world_ranks.size() != static_cast<std::size_t>(shared.mpi_size)) return false;
  int world = 0;
  int id = 0;
  if (std::sscanf(shared.global_id.c_str(), "w%dc%d", &world, &id) != 2) return false;
  for (const std::vector<MPI_Comm>* channels : {&shared.inbox, &shared.bulk}) {
    for (MPI_Comm c : *channels) {
      if (c == MPI_COMM_NULL) return false;
    }
  }
  PooledSet set;
  set.name = pool_name(world, id);
  set.world_ranks = shared.world_ranks;
  set.mpi_comm = shared.mpi_comm;
  set.inbox = std::move(shared.inbox);
  set.bulk = std::move(shared.bulk);
  set.per_process = shared.map.max_per_process();
  set.made_from = shared.made_from;
  shared.mpi_comm = MPI_COMM_NULL;
  shared.inbox.clear();
  shared.bulk.clear();
  PooledSet evicted;
  {
    std::lock_guard lock(pool().mutex);
    auto& entries = pool().entries;
    bool keep = true;
    if (entries.size() >= kPoolCapacity) {
      auto oldest = std::find_if(entries.begin(), entries.end(),
                                 [](const PoolEntry& entry) { return !entry.reserved; });
      keep = oldest != entries.end();
      if (keep) {
        evicted = std::move(oldest->set);
        entries.erase(oldest);
      }
    }
    if (keep) {
      entries.push_back({std::move(set), false});
    } else {
      evicted = std::move(set);
    }
  }
  // Freed outside the lock: MPI_Comm_free may take a while.
  static_cast<void>(free_set(evicted));
  return true;
}

std::int64_t pool_key(const std::vector<int>& world_ranks, int per_process) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(per_process));
  for (int w : world_ranks) mix(static_cast<std::uint64_t>(w));
  return static_cast<std::int64_t>(h >> 1);
}

PoolOffer reserve_offer(MPI_Comm parent) {
  PoolOffer offer;
  offer.fill(-1);
  // Reserved sets not drained since their last owner went, by offer slot.
  std::vector<std::pair<std::size_t, PooledSet>> undrained;
  {
    std::lock_guard lock(pool().mutex);
    auto& entries = pool().entries;
    const std::vector<MPI_Comm>& live = pool().live;
    std::size_t n = 0;
    const auto reserve = [&](PoolEntry& entry) {
      entry.reserved = true;
      if (!entry.drained) undrained.emplace_back(n, entry.set);
      offer[2 * n] = entry.set.name;
      offer[2 * n + 1] = pool_key(entry.set.world_ranks, entry.set.per_process);
      ++n;
    };
    // Newest first: the communicator just freed is the likeliest to come back.
    if (parent != MPI_COMM_NULL) {
      for (auto it = entries.rbegin(); it != entries.rend() && n < kPoolOffers; ++it) {
        if (!it->reserved && it->set.made_from == parent) reserve(*it);
      }
    }
    // Then the sets whose parent is gone (those of a live communicator, the
    // parent's own among them, are reserved above or left to it).
    for (auto it = entries.rbegin(); it != entries.rend() && n < kPoolOffers; ++it) {
      const MPI_Comm from = it->set.made_from;
      if (it->reserved) continue;
      if (from != MPI_COMM_NULL && std::find(live.begin(), live.end(), from) != live.end())
        continue;
      reserve(*it);
    }
  }
  // Drained outside the lock, before the set is offered (give_back says
  // why then). Reserved, the set is this creation's alone meanwhile. One
  // that cannot be drained is not offered, and goes.
  for (const auto& [slot, set] : undrained) {
    const bool drained = drain_set(set) == MPI_SUCCESS;
    PooledSet broken;
    {
      std::lock_guard lock(pool().mutex);
      auto& entries = pool().entries;
      const auto it = std::find_if(entries.begin(), entries.end(),
                                   [&](const PoolEntry& e) { return e.set.name == set.name; });
      if (it != entries.end() && drained) it->drained = true;
      if (it != entries.end() && !drained) {
        broken = std::move(it->set);
        entries.erase(it);
      }
    }
    if (!drained) {
      offer[2 * slot] = -1;
      offer[2 * slot + 1] = -1;
      static_cast<void>(free_set(broken));
    }
  }
  return offer;
}

std::int64_t choose_pooled(const std::vector<const std::int64_t*>& offers,
                           const std::vector<std::size_t>& lengths, std::int64_t key,
                           const std::vector<std::int64_t>& exclude) {
  if (offers.empty()) return -1;
  const auto holds = [key](const std::int64_t* offer, std::size_t length, std::int64_t name) {
    for (std::size_t i = 0; i < length; ++i) {
      if (offer[2 * i] == name && offer[2 * i + 1] == key) return true;
    }
    return false;
  };
  // In the first process's order: the sets made from the parent first.
  for (std::size_t i = 0; i < lengths.front(); ++i) {
    const std::int64_t name = offers.front()[2 * i];
    if (name < 0 || offers.front()[2 * i + 1] != key) continue;
    if (std::find(exclude.begin(), exclude.end(), name) != exclude.end()) continue;
    bool everywhere = true;
    for (std::size_t p = 1; p < offers.size() && everywhere; ++p) {
      everywhere = holds(offers[p], lengths[p], name);
    }
    if (everywhere) return name;
  }
  return -1;
}

std::int64_t choose_pooled(const std::vector<const std::int64_t*>& offers, std::int64_t key,
                           const std::vector<std::int64_t>& exclude) {
  return choose_pooled(offers, std::vector<std::size_t>(offers.size(), kPoolOffers), key, exclude);
}

std::optional<PooledSet> take_pooled(std::int64_t name, const std::vector<int>& world_ranks,
                                     int per_process) {
  std::lock_guard lock(pool().mutex);
  auto& entries = pool().entries;
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->set.name != name || !it->reserved) continue;
    if (it->set.world_ranks != world_ranks || it->set.per_process != per_process) {
      return std::nullopt;
    }
    PooledSet taken = std::move(it->set);
    entries.erase(it);
    return taken;
  }
  return std::nullopt;
}

void release_offer(const PoolOffer& offer) {
  std::lock_guard lock(pool().mutex);
  for (int i = 0; i < kPoolOffers; ++i) {
    for (PoolEntry& entry : pool().entries) {
      if (entry.set.name == offer[2 * static_cast<std::size_t>(i)]) entry.reserved = false;
    }
  }
}

}  // namespace ep::detail
