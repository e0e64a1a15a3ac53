// Endpoint epochs over the one life-long MPI epoch: fence, locks, flushes.
//
// MPI never sees an endpoint epoch: the MPI window stays in
// MPI_Win_lock_all(MPI_MODE_NOCHECK) from creation to Win_free (window.hpp),
// so every check MPI would make (MPI_ERR_RMA_SYNC) is made here from each
// handle's own state.
//
// Locks. MPI locks are per process and two local endpoints locking one
// target process nest, which MPICH 4.0.2 aborts on and Open MPI 4.1.4
// answers with MPI_ERR_RMA_SYNC and lost accumulates (research rma.md 2.3).
// So each endpoint has a reader-writer lock word (32-bit, in the window's
// hidden header) changed only by MPI atomics on the one MPI window, also
// when the target is in the caller's process: CPU atomics on a word that
// other processes update through MPI lose updates (research 2.6). 32-bit
// because Open MPI 4.1.4's 64-bit MPI_Compare_and_swap crashes (2.1).
//   exclusive: CAS(0 -> kWriter); anything else held: back off and retry.
//   shared:    FAO(+1); the writer bit was set: FAO(-1), back off, retry.
// Uncontended, taking a lock costs one MPI atomic round trip.
#include <atomic>

#include "base/backoff.hpp"
#include "coll/mpi_step.hpp"
#include "ep/rma.hpp"
#include "object/error.hpp"
#include "rma/window.hpp"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace ep::detail {

namespace {

constexpr std::int32_t kWriter = 1 << 30;

// The lock words order the holders' direct copies through MPI atomics,
// which ThreadSanitizer cannot see inside the (uninstrumented) MPI library;
// these tell it what the atomics do, keyed by the target's table entry.
inline void tsan_acquire([[maybe_unused]] const void* key) {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(const_cast<void*>(key));
#endif
}
inline void tsan_release([[maybe_unused]] const void* key) {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(const_cast<void*>(key));
#endif
}

const RegionEntry& entry(const WinImpl* w, int rank) {
  return w->shared->by_rank[static_cast<std::size_t>(rank)];
}

// One MPI atomic on a lock word, completed (its result is needed at once).
int lock_word_fao(WinImpl* w, const RegionEntry& r, std::int32_t add, std::int32_t* old) {
  MPI_Win win = w->shared->win;
  int rc = MPI_Fetch_and_op(&add, old, MPI_INT32_T, r.mpi_rank, r.lock, MPI_SUM, win);
  if (rc == MPI_SUCCESS) rc = MPI_Win_flush(r.mpi_rank, win);
  return rc;
}

int acquire(WinImpl* w, int rank, bool exclusive) {
  const RegionEntry& r = entry(w, rank);
  MPI_Win win = w->shared->win;
  Backoff backoff;
  for (;;) {
    std::int32_t old = 0;
    int rc = MPI_SUCCESS;
    if (exclusive) {
      const std::int32_t desired = kWriter;
      const std::int32_t expected = 0;
      rc = MPI_Compare_and_swap(&desired, &expected, &old, MPI_INT32_T, r.mpi_rank, r.lock, win);
      if (rc == MPI_SUCCESS) rc = MPI_Win_flush(r.mpi_rank, win);
      if (rc != MPI_SUCCESS) return rc;
      if (old == 0) break;
    } else {
      rc = lock_word_fao(w, r, 1, &old);
      if (rc != MPI_SUCCESS) return rc;
      if ((old & kWriter) == 0) break;
      rc = lock_word_fao(w, r, -1, &old);
      if (rc != MPI_SUCCESS) return rc;
    }
    backoff.pause();
  }
  // What the previous holder wrote, directly or through MPI, is visible to
  // this endpoint's direct loads from here on. In the unified model (both
  // MPIs here) MPI_Win_sync is only this barrier, and Open MPI's also runs
  // its progress engine: too dear for every lock.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  tsan_acquire(&r);
  return w->shared->unified ? MPI_SUCCESS : MPI_Win_sync(win);
}

// Completes this endpoint's operations on `rank`, then gives up the word.
int release(WinImpl* w, int rank, bool exclusive) {
  const RegionEntry& r = entry(w, rank);
  MPI_Win win = w->shared->win;
  int rc = flush_process(w, r.mpi_rank);
  if (rc != MPI_SUCCESS) return rc;
  // Direct stores into a same-process target become visible to whoever
  // takes the lock next, from any process (see acquire on MPI_Win_sync).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  tsan_release(&r);
  if (!w->shared->unified && (rc = MPI_Win_sync(win)) != MPI_SUCCESS) return rc;
  const std::int32_t minus = exclusive ? -kWriter : -1;
  rc = MPI_Accumulate(&minus, 1, MPI_INT32_T, r.mpi_rank, r.lock, 1, MPI_INT32_T, MPI_SUM, win);
  if (rc != MPI_SUCCESS) return rc;
#if defined(OPEN_MPI) && OPEN_MPI
  // No flush: Open MPI's osc/rdma performs a 32-bit accumulate as one
  // network/shared-memory atomic when it is issued and completes it in its
  // progress engine, which any later MPI call or libep wait drives
  // (base/backoff.hpp); the next locker's own atomic + flush orders after
  // it. Saves a round trip of lock/put/unlock (research rma.md 2.5: 0.062 us).
  return MPI_SUCCESS;
#else
  // MPICH may queue the operation until a synchronisation: complete it, or
  // the next locker could wait for it forever.
  return MPI_Win_flush(r.mpi_rank, win);
#endif
}

}  // namespace

int flush_process(WinImpl* w, int p) {
  std::uint8_t& t = w->touched[static_cast<std::size_t>(p)];
  if (t != WinImpl::kDirty) return MPI_SUCCESS;
  t = WinImpl::kClean;
  return MPI_Win_flush(p, w->shared->win);
}

int enter_access(WinImpl* w, int target, bool request_based, const char* function) {
  const std::uint8_t state = w->lock_state[static_cast<std::size_t>(target)];
  if (state != WinImpl::kUnlocked) return MPI_SUCCESS;
  if (w->lock_all) {
    if (w->lock_all_nocheck || w->all_taken[static_cast<std::size_t>(target)]) return MPI_SUCCESS;
    // Lock_all's shared lock of this target, taken on first access (MPI
    // allows acquisition to be deferred).
    const int rc = acquire(w, target, false);
    if (rc != MPI_SUCCESS) return raise_mpi(w, rc, function, "taking lock_all's shared lock");
    w->all_taken[static_cast<std::size_t>(target)] = 1;
    w->all_taken_list.push_back(target);
    return MPI_SUCCESS;
  }
  if (w->fence_open) {
    if (!request_based) return MPI_SUCCESS;
    return raise_win(w, MPI_ERR_RMA_SYNC, function,
                     "request-based operations need a passive-target epoch (Win_lock or "
                     "Win_lock_all), not a fence epoch");
  }
  return raise_win(w, MPI_ERR_RMA_SYNC, function,
                   "no access epoch covers target {} (Win_fence, Win_lock or Win_lock_all first)",
                   target);
}

}  // namespace ep::detail

namespace ep {

using detail::WinImpl;

namespace {

int check_rank(WinImpl* w, int rank, const char* fn) {
  const int n = static_cast<int>(w->lock_state.size());
  if (rank < 0 || rank >= n) {
    return detail::raise_win(w, MPI_ERR_RANK, fn, "rank {} is not in the window's group of {}",
                             rank, n);
  }
  return MPI_SUCCESS;
}

// Completes every operation this endpoint issued.
int flush_all(WinImpl* w) {
  int rc = MPI_SUCCESS;
  // A few processes: flush each; many: one call.
  if (w->touched_list.size() > 4) {
    rc = MPI_Win_flush_all(w->shared->win);
    for (int p : w->touched_list) w->touched[static_cast<std::size_t>(p)] = WinImpl::kUntouched;
  } else {
    for (int p : w->touched_list) {
      detail::keep_first_error(&rc, detail::flush_process(w, p));
      w->touched[static_cast<std::size_t>(p)] = WinImpl::kUntouched;
    }
  }
  w->touched_list.clear();
  return rc;
}

// MPI_ERR_ASSERT unless `assert` holds only the flags `allowed`, as MPI
// defines for the call (an unknown bit is a program's error, and Open MPI
// says so; libep used to ignore it and open the epoch).
int check_assert(WinImpl* w, int assert, int allowed, const char* fn) {
  if ((assert & ~allowed) == 0) return MPI_SUCCESS;
  return detail::raise_win(w, MPI_ERR_ASSERT, fn,
                           "assert {:#x} holds flags the call does not define ({:#x})", assert,
                           assert & ~allowed);
}

}  // namespace

int Win_fence(int assert, Win win) {
  constexpr const char* fn = "Win_fence";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  constexpr int kFenceFlags =
      MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
  if (const int bad = check_assert(w, assert, kFenceFlags, fn); bad != MPI_SUCCESS) return bad;
  if (w->lock_all || w->locks_held > 0) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "a passive-target epoch is open");
  }
  detail::WinShared* s = w->shared;
  detail::LocalTeam& team = *s->team;
  // Every local endpoint has issued its operations of the epoch (direct
  // copies are complete already); the leader completes the process's MPI
  // ones and meets the other processes. This replaces MPI_Win_fence, which
  // cannot be mixed with the life-long lock_all (research rma.md 3.4).
  team.sync();
  if (w->local == 0) {
    int rc = MPI_SUCCESS;
    if ((assert& MPI_MODE_NOPRECEDE) == 0) rc = MPI_Win_flush_all(s->win);
    // In the unified model MPI_Win_sync is a memory barrier (Open MPI's also
    // runs its progress engine); the team's barriers are that already.
    if (rc == MPI_SUCCESS && !s->unified) rc = MPI_Win_sync(s->win);
    // The processes meet. With one endpoint in every process, a blocking
    // MPI_Barrier, as MPI_Win_fence does (8-byte fence loop, 2 processes,
    // Open MPI 4.1.4: 0.24-0.27 us, like MPI_Win_fence; an MPI_Ibarrier
    // polled with yields 0.42). With more, the leader polls and yields as
    // the collectives' leader steps do (coll/mpi_step.hpp): its endpoints
    // share its cores, and a leader spinning inside MPI_Barrier made a
    // fence of 2 processes x 2 endpoints 93-137 us against 8-50 polled.
    // All processes must choose alike: a blocking and a non-blocking
    // barrier do not match each other.
    if (rc == MPI_SUCCESS && s->one_per_process) {
      rc = MPI_Barrier(s->mpi_comm);
    } else if (rc == MPI_SUCCESS) {
      MPI_Request barrier = MPI_REQUEST_NULL;
      rc = detail::complete(MPI_Ibarrier(s->mpi_comm, &barrier), &barrier);
    }
    if (rc == MPI_SUCCESS && !s->unified) rc = MPI_Win_sync(s->win);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    s->fence_rc = rc;
  }
  team.sync();
  const int rc = s->fence_rc;
  // The leader's flush_all completed this endpoint's operations too.
  for (int p : w->touched_list) w->touched[static_cast<std::size_t>(p)] = WinImpl::kUntouched;
  w->touched_list.clear();
  w->fence_open = (assert& MPI_MODE_NOSUCCEED) == 0;
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "the leader's flush/barrier");
  return MPI_SUCCESS;
}

int Win_lock(int lock_type, int rank, int assert, Win win) {
  constexpr const char* fn = "Win_lock";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
    return detail::raise_win(w, MPI_ERR_LOCKTYPE, fn,
                             "lock type {} is neither shared nor exclusive", lock_type);
  }
  int rc = check_assert(w, assert, MPI_MODE_NOCHECK, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  rc = check_rank(w, rank, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (w->lock_all) return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "inside Win_lock_all");
  if (w->fence_open) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn,
                             "inside a fence epoch (end it with Win_fence(MPI_MODE_NOSUCCEED))");
  }
  std::uint8_t& state = w->lock_state[static_cast<std::size_t>(rank)];
  if (state != WinImpl::kUnlocked) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "target {} is already locked", rank);
  }
  const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  if ((assert& MPI_MODE_NOCHECK) == 0) {
    rc = detail::acquire(w, rank, exclusive);
    if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "the lock word's atomic");
    state = exclusive ? WinImpl::kExclusive : WinImpl::kShared;
  } else {
    state = WinImpl::kNoCheck;
  }
  ++w->locks_held;
  return MPI_SUCCESS;
}

int Win_unlock(int rank, Win win) {
  constexpr const char* fn = "Win_unlock";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_rank(w, rank, fn);
  if (rc != MPI_SUCCESS) return rc;
  std::uint8_t& state = w->lock_state[static_cast<std::size_t>(rank)];
  if (state == WinImpl::kUnlocked) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "target {} is not locked", rank);
  }
  const int p = w->shared->by_rank[static_cast<std::size_t>(rank)].mpi_rank;
  if (state == WinImpl::kNoCheck) {
    rc = detail::flush_process(w, p);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  } else {
    rc = detail::release(w, rank, state == WinImpl::kExclusive);
  }
  // The epoch ends even if MPI failed: the lock word is what it is.
  state = WinImpl::kUnlocked;
  --w->locks_held;
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "completing or releasing");
  return MPI_SUCCESS;
}

int Win_lock_all(int assert, Win win) {
  constexpr const char* fn = "Win_lock_all";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (const int bad = check_assert(w, assert, MPI_MODE_NOCHECK, fn); bad != MPI_SUCCESS) return bad;
  if (w->lock_all) return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "already inside Win_lock_all");
  if (w->locks_held > 0) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "{} target(s) locked by Win_lock",
                             w->locks_held);
  }
  if (w->fence_open) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn,
                             "inside a fence epoch (end it with Win_fence(MPI_MODE_NOSUCCEED))");
  }
  w->lock_all = true;
  w->lock_all_nocheck = (assert& MPI_MODE_NOCHECK) != 0;
  return MPI_SUCCESS;
}

int Win_unlock_all(Win win) {
  constexpr const char* fn = "Win_unlock_all";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (!w->lock_all) return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "not inside Win_lock_all");
  int rc = MPI_SUCCESS;
  for (int target : w->all_taken_list) {
    detail::keep_first_error(&rc, detail::release(w, target, false));
    w->all_taken[static_cast<std::size_t>(target)] = 0;
  }
  w->all_taken_list.clear();
  detail::keep_first_error(&rc, flush_all(w));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w->lock_all = false;
  w->lock_all_nocheck = false;
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "completing or releasing");
  return MPI_SUCCESS;
}

namespace {

bool in_passive_epoch(const WinImpl* w) { return w->lock_all || w->locks_held > 0; }

int flush_one(Win win, int rank, bool local_only, const char* fn) {
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_rank(w, rank, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!w->lock_all && w->lock_state[static_cast<std::size_t>(rank)] == WinImpl::kUnlocked) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "target {} is not locked", rank);
  }
  const int p = w->shared->by_rank[static_cast<std::size_t>(rank)].mpi_rank;
  if (local_only) {
    if (w->touched[static_cast<std::size_t>(p)] == WinImpl::kDirty) {
      rc = MPI_Win_flush_local(p, w->shared->win);
    }
  } else {
    rc = detail::flush_process(w, p);
  }
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Win_flush");
  return MPI_SUCCESS;
}

}  // namespace

int Win_flush(int rank, Win win) { return flush_one(win, rank, false, "Win_flush"); }
int Win_flush_local(int rank, Win win) { return flush_one(win, rank, true, "Win_flush_local"); }

int Win_flush_all(Win win) {
  constexpr const char* fn = "Win_flush_all";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (!in_passive_epoch(w)) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "no passive-target epoch is open");
  }
  const int rc = flush_all(w);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Win_flush");
  return MPI_SUCCESS;
}

int Win_flush_local_all(Win win) {
  constexpr const char* fn = "Win_flush_local_all";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (!in_passive_epoch(w)) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn, "no passive-target epoch is open");
  }
  int rc = MPI_SUCCESS;
  for (int p : w->touched_list) {
    if (w->touched[static_cast<std::size_t>(p)] == WinImpl::kDirty) {
      detail::keep_first_error(&rc, MPI_Win_flush_local(p, w->shared->win));
    }
  }
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Win_flush_local");
  return MPI_SUCCESS;
}

int Win_sync(Win win) {
  constexpr const char* fn = "Win_sync";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const int rc = MPI_Win_sync(w->shared->win);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Win_sync");
  return MPI_SUCCESS;
}

}  // namespace ep
