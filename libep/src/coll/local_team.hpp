// Where the endpoints of one process meet for the intra-process steps of
// collectives and communicator constructors.
//
// Every communicator has one LocalTeam per process, sized to the process's
// endpoints in it, so collectives on different communicators never share
// one (endpoints of a process may run them concurrently). A step looks like
//
//   team.slot(local) = &my_arguments;  team.sync(local);   // all arguments visible
//   ... read others' arguments, the leader (local 0) calls MPI ...
//   team.sync(local);                                      // results visible
//   ... copy results out ...
//   team.sync(local);                                      // nobody reads my buffers any more
//
// sync() is a central barrier: the last to arrive advances a generation the
// others wait on, spinning briefly, then yielding (Backoff), since the
// endpoints may be more than the cores.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "core/backoff.hpp"

namespace ep::detail {

class LocalTeam {
 public:
  explicit LocalTeam(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}

  int size() const { return size_; }

  /// The pointer endpoint `local` publishes before a sync.
  const void*& slot(int local) { return slots_[static_cast<std::size_t>(local)].pointer; }
  template <class T>
  const T& peer(int local) const {
    return *static_cast<const T*>(slots_[static_cast<std::size_t>(local)].pointer);
  }

  /// Waits until all `size()` endpoints have called sync() as often as this
  /// one. Writes before a sync are visible to every endpoint after it.
  void sync() {
    if (size_ == 1) return;
    const unsigned generation = barrier_.generation.load(std::memory_order_acquire);
    if (barrier_.arrived.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
      barrier_.arrived.store(0, std::memory_order_relaxed);
      barrier_.generation.store(generation + 1, std::memory_order_release);
      return;
    }
    Backoff backoff;
    while (barrier_.generation.load(std::memory_order_acquire) == generation) backoff.pause();
  }

 private:
  struct alignas(64) Slot {
    const void* pointer = nullptr;
  };
  struct alignas(64) Barrier {
    std::atomic<int> arrived{0};
    std::atomic<unsigned> generation{0};
  };

  int size_;
  Barrier barrier_;
  std::vector<Slot> slots_;
};

}  // namespace ep::detail
