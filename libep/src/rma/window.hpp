// The objects behind ep::Win, and what every RMA function shares.
//
// Option A of the design (research rma.md 3.1, docs/design.md "One-sided
// communication"): an endpoint window is ONE MPI window per process, made by
// the team leader on a duplicate of the communicator's MPI communicator.
// Every local endpoint's region lives in it (Win_allocate: carved out of one
// MPI_Win_allocate segment; Win_create: attached to one
// MPI_Win_create_dynamic window), next to a hidden header of 32-bit lock
// words, one per local endpoint. The MPI window stays inside one
// MPI_Win_lock_all(MPI_MODE_NOCHECK) epoch for its whole life; endpoint
// epochs, locks and fences are libep's (rma/sync.cpp).
//
// Threading: a WinImpl (one endpoint's handle) is driven by one thread at a
// time; WinShared is read-only after creation except `fence_rc`, which only
// the leader writes between two team barriers.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/datatype.hpp"
#include "ep/types.hpp"
#include "object/endpoint.hpp"
#include "ranks/rank_map.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

struct WinImpl;

/// Where endpoint rank r's memory is, as every process sees it.
struct RegionEntry {
  // MPI displacement of the region's first byte: an offset in the process's
  // segment (allocate) or an absolute address (create, dynamic window).
  MPI_Aint base = 0;
  MPI_Aint size = 0;
  MPI_Aint lock = 0;  // MPI displacement of the endpoint's lock word
  int disp_unit = 1;
  int mpi_rank = 0;  // the hosting process, in the window's MPI communicator
};

/// The process's part of an endpoint window, shared by its endpoints.
struct WinShared {
  MPI_Win win = MPI_WIN_NULL;
  MPI_Comm mpi_comm = MPI_COMM_NULL;  // duplicate of the communicator's: outlives a Comm_free
  int mpi_rank = 0;
  int mpi_size = 0;
  int comm_id = 0;  // the communicator's number, for messages
  int flavor = MPI_WIN_FLAVOR_ALLOCATE;
  int model = MPI_WIN_UNIFIED;
  bool unified = true;  // same-process Put/Get may copy directly
  // Win_create on one process: the accumulate family runs locally under
  // `atomics` (rma/local.cpp), not through MPI.
  bool local_atomics = false;
  std::mutex atomics;
  bool one_per_process = false;      // every process hosts one endpoint (Win_fence)
  bool needs_progress = false;       // libep's waits poll MPI while it lives (base/backoff.hpp)
  std::vector<RegionEntry> by_rank;  // every endpoint rank of the communicator
  std::vector<std::byte*> local_address;  // by rank: the region's address if local, else null
  std::unique_ptr<LocalTeam> team;        // the window's own: the communicator may go first

  // Win_allocate: the MPI segment. Win_create: libep's lock words, and the
  // attached ranges (unions of overlapping endpoint buffers).
  std::byte* segment = nullptr;
  std::unique_ptr<std::int32_t[]> lock_words;
  std::vector<void*> attached;

  std::vector<std::unique_ptr<WinImpl>> handles;  // by local endpoint
  int fence_rc = MPI_SUCCESS;                     // the leader's MPI result of a fence
  std::atomic<int> leaving{0};                    // Win_free: endpoints still inside
};

}  // namespace ep::detail

namespace ep::detail {

/// One endpoint's handle of a window. In a pool (object/handle_pool.hpp),
/// as requests are: a freed window's handle is refused without reading
/// freed memory, and never names a later window.
struct WinImpl {
  // Lock states per target rank.
  static constexpr std::uint8_t kUnlocked = 0;
  static constexpr std::uint8_t kShared = 1;     // shared lock word taken
  static constexpr std::uint8_t kExclusive = 2;  // exclusive lock word taken
  static constexpr std::uint8_t kNoCheck = 3;    // MPI_MODE_NOCHECK: no word taken

  // Per process: since the last flush of it, this endpoint issued MPI
  // operations there (kDirty); kClean: listed in `touched_list` but flushed.
  static constexpr std::uint8_t kUntouched = 0;
  static constexpr std::uint8_t kDirty = 1;
  static constexpr std::uint8_t kClean = 2;

  WinShared* shared = nullptr;
  Endpoint* endpoint = nullptr;  // the communicator's handle, for requests
  int rank = 0;
  int local = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;

  // Attributes (Win_get_attr hands out pointers to these, as MPI does).
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int flavor = MPI_WIN_FLAVOR_ALLOCATE;
  int model = MPI_WIN_UNIFIED;

  // Epochs (rma/sync.cpp).
  bool fence_open = false;               // between fences (the last without NOSUCCEED)
  bool lock_all = false;                 // inside Win_lock_all
  bool lock_all_nocheck = false;         // ... with MPI_MODE_NOCHECK: no words taken
  int locks_held = 0;                    // targets locked by Win_lock
  std::vector<std::uint8_t> lock_state;  // by target rank: Win_lock's
  std::vector<std::uint8_t> all_taken;   // by target rank: lock_all's lazily taken shared words
  std::vector<int> all_taken_list;
  std::vector<std::uint8_t> touched;  // by process
  std::vector<int> touched_list;

  static void* operator new(std::size_t size);
  static void operator delete(void* storage);
};

using WinPool = HandlePool<WinImpl>;

inline void* WinImpl::operator new(std::size_t /*size*/) { return WinPool::allocate(); }
inline void WinImpl::operator delete(void* storage) { WinPool::release(storage); }

inline Win handle_of(const WinImpl* w) { return reinterpret_cast<Win>(WinPool::handle(w)); }

/// The window behind `win`, or nullptr for WIN_NULL, freed and garbage handles.
inline WinImpl* valid_win(Win win) { return WinPool::live(reinterpret_cast<std::uintptr_t>(win)); }

/// Raises MPI_ERR_WIN for an invalid handle (MPI_COMM_WORLD's handler).
int invalid_win(const char* function);

/// Reports an error of `function` on `w` through its handler; the message
/// names the endpoint and the window.
int raise_win(const WinImpl* w, int error_class, const char* function, std::string_view reason);
template <class... Args>
int raise_win(const WinImpl* w, int error_class, const char* function,
              fmt::format_string<Args...> format, Args&&... args) {
  return raise_win(w, error_class, function,
                   std::string_view(fmt::format(format, std::forward<Args>(args)...)));
}
/// An MPI call inside `function` failed with `rc`.
int raise_mpi(const WinImpl* w, int rc, const char* function, const char* mpi_call);

// ---- Shared by the operations and the synchronisation (rma/sync.cpp) ----

/// Checks that `w` may access `target` now (an epoch covers it) and takes
/// lock_all's shared lock of it on first access. `request_based`: the
/// R-forms, which need a passive-target epoch.
int enter_access(WinImpl* w, int target, bool request_based, const char* function);

/// Records that `w` issued an MPI operation to process `p`.
inline void touch(WinImpl* w, int p) {
  std::uint8_t& t = w->touched[static_cast<std::size_t>(p)];
  if (t == WinImpl::kUntouched) w->touched_list.push_back(p);
  t = WinImpl::kDirty;
}

/// Completes `w`'s MPI operations to process `p` (if any); returns an MPI code.
int flush_process(WinImpl* w, int p);

/// The accumulate family on a same-process target without MPI (only for
/// WinShared::local_atomics): `result` null for Accumulate; `compare`
/// non-null for Compare_and_swap. Returns an MPI error code.
struct LocalAtomic {
  const void* origin;
  int origin_count;
  MPI_Datatype origin_type;
  void* result;
  int result_count;
  MPI_Datatype result_type;
  const void* compare;
  std::byte* target;
  int target_count;
  MPI_Datatype target_type;
  MPI_Op op;
};
int local_atomic(WinShared& s, const LocalAtomic& x);

/// Live dynamic (Win_create) windows of this process: the progress hook
/// polls MPI while there is one.
void count_window(int delta);

}  // namespace ep::detail
