// ep::Win_create, Win_allocate, Win_free and the window's local queries.
//
// The endpoints of a process meet in their LocalTeam; the leader (local
// endpoint 0) makes the process's one MPI window (window.hpp) and hands every
// endpoint its handle. Only the leader calls MPI here, so the MPI window
// collectives of one endpoint window are issued by one thread per process,
// never by K threads at once (research rma.md 2.4: K concurrent creations
// cost 10-1000 times one).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ep/rma.hpp"
#include "object/error.hpp"
#include "rma/window.hpp"

namespace ep::detail {

constexpr MPI_Aint kAlign = 64;
inline MPI_Aint round64(MPI_Aint bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

namespace {

std::atomic<int> live_windows{0};

// Drives MPI's progress engine from libep's waits (base/backoff.hpp says why).
// An MPI_Iprobe on MPI_COMM_SELF matches nothing libep sends, costs one
// progress round, and is safe from any thread under MPI_THREAD_MULTIPLE.
// Every 8th call per thread: a waiter yields thousands of times, and each
// poll takes MPI's progress lock, which the threads doing RMA need.
void poll_mpi() {
  if (live_windows.load(std::memory_order_relaxed) == 0) return;
  thread_local unsigned calls = 0;
  if (++calls % 8 != 0) return;
  int flag = 0;
  // A failure here has no one to report to; the next real MPI call reports it.
  static_cast<void>(
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
}

}  // namespace

void count_window(int delta) {
  if (live_windows.fetch_add(delta, std::memory_order_relaxed) + delta > 0) {
    add_progress_hook(&poll_mpi);
  }
}

int invalid_win(const char* function) {
  return raise(nullptr, MPI_ERR_WIN, function, "invalid window handle (WIN_NULL or freed)");
}

int raise_win(const WinImpl* w, int error_class, const char* function, std::string_view reason) {
  const std::string where =
      fmt::format("endpoint {} of window on communicator #{} (MPI process {}, local endpoint {})",
                  w->rank, w->shared->comm_id, w->shared->mpi_rank, w->local);
  return raise_with(w->errhandler, error_class, function, where, reason);
}

int raise_mpi(const WinImpl* w, int rc, const char* function, const char* mpi_call) {
  return raise_win(w, error_class_of(rc), function, "{} failed: {}", mpi_call,
                   mpi_error_string(rc));
}

}  // namespace ep::detail

namespace ep {

using detail::RegionEntry;
using detail::WinImpl;
using detail::WinShared;

namespace {

// What each endpoint brings to the meeting.
struct Arrival {
  void* base = nullptr;  // Win_create: the user's buffer
  MPI_Aint size = 0;
  int disp_unit = 1;
};

// What the leader hands back.
struct Outcome {
  int rc = MPI_SUCCESS;
  std::string why;
  WinShared* shared = nullptr;
};

// Open MPI 4.1's osc/pt2pt refuses MPI_THREAD_MULTIPLE and fails window
// creation with MPI_ERR_WIN when osc/rdma cannot serve the processes
// (research rma.md 2.1, open-mpi/ompi#8112): say what to do about it.
std::string creation_failed(const char* mpi_call, int rc) {
  std::string why = fmt::format("{} failed: {}", mpi_call, detail::mpi_error_string(rc));
#if defined(OPEN_MPI) && OPEN_MPI
  why +=
      " (Open MPI: if the osc/pt2pt component was chosen, it does not support "
      "MPI_THREAD_MULTIPLE; run with `--mca osc rdma` or `--mca osc ucx`)";
#endif
  return why;
}

// The leader's part of Win_allocate (`allocate`) or Win_create: makes the MPI
// window, publishes every endpoint's region and opens the life-long epoch.
void make_window(const detail::Endpoint* e, bool allocate, Outcome& out) {
  const detail::CommShared& comm = *e->shared;
  detail::LocalTeam& team = *comm.team;
  const int k = team.size();
  auto shared = std::make_unique<WinShared>();
  WinShared& s = *shared;
  s.mpi_rank = comm.mpi_rank;
  s.mpi_size = comm.mpi_size;
  s.comm_id = comm.id;
  s.flavor = allocate ? MPI_WIN_FLAVOR_ALLOCATE : MPI_WIN_FLAVOR_CREATE;
  auto fail = [&](int rc, std::string why) {
    out.rc = rc;
    out.why = std::move(why);
  };
  int rc = MPI_Comm_dup(comm.mpi_comm, &s.mpi_comm);
  if (rc != MPI_SUCCESS) return fail(rc, "MPI_Comm_dup failed: " + detail::mpi_error_string(rc));

  // This process's entries, by local endpoint; `base` relative to the
  // segment (allocate) or absolute (create).
  std::vector<RegionEntry> mine(static_cast<std::size_t>(k));
  std::vector<std::byte*> addresses(static_cast<std::size_t>(k), nullptr);
  // A Win_create window of one process needs no MPI access to its memory:
  // every origin is local, Put/Get copy directly and the accumulate family
  // runs under a process-local lock (rma/local.cpp). Open MPI 4.1.4 cannot
  // make a create or dynamic window on one process anyway (osc/rdma does not
  // take it and osc/pt2pt refuses MPI_THREAD_MULTIPLE). The lock words stay
  // in a small allocated MPI window.
  s.local_atomics = !allocate && s.mpi_size == 1;
  if (allocate || s.local_atomics) {
    // Lock words first, then each region, every one rounded up to 64 bytes:
    // endpoints never share a cache line, and MPICH 4.0.2 misplaces data in
    // Win_allocate windows whose size is not a multiple of 16 bytes
    // (research rma.md 2.8: 40, 56, 72, 4104 B wrong, 48, 64, 4096 right).
    const MPI_Aint header = detail::round64(static_cast<MPI_Aint>(k) * 4);
    MPI_Aint total = header;
    for (int j = 0; j < k; ++j) {
      const Arrival& a = team.peer<Arrival>(j);
      RegionEntry& r = mine[static_cast<std::size_t>(j)];
      r.base = total;
      r.size = a.size;
      r.disp_unit = a.disp_unit;
      r.lock = static_cast<MPI_Aint>(j) * 4;
      if (allocate) total += detail::round64(a.size);
    }
    // MPI promises no alignment of the segment: 64 bytes more, and the
    // layout starts at the first 64-byte boundary.
    rc = MPI_Win_allocate(detail::round64(total) + detail::kAlign, 1, MPI_INFO_NULL, s.mpi_comm,
                          &s.segment, &s.win);
    if (rc != MPI_SUCCESS) return fail(rc, creation_failed("MPI_Win_allocate", rc));
    const auto misalign =
        static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(s.segment) % detail::kAlign);
    const MPI_Aint shift = misalign == 0 ? 0 : detail::kAlign - misalign;
    // Zeroed before any process can reach them: the others learn where the
    // words are only from the Allgatherv below.
    std::memset(s.segment + shift, 0, static_cast<std::size_t>(header));
    for (int j = 0; j < k; ++j) {
      RegionEntry& r = mine[static_cast<std::size_t>(j)];
      r.base += shift;
      r.lock += shift;
      addresses[static_cast<std::size_t>(j)] =
          allocate ? s.segment + r.base : static_cast<std::byte*>(team.peer<Arrival>(j).base);
    }
  } else {
    rc = MPI_Win_create_dynamic(MPI_INFO_NULL, s.mpi_comm, &s.win);
    if (rc != MPI_SUCCESS) return fail(rc, creation_failed("MPI_Win_create_dynamic", rc));
    s.lock_words = std::make_unique<std::int32_t[]>(static_cast<std::size_t>(k));
    // Lock words, then each distinct range once: MPI forbids overlapping
    // attachments, and endpoints of one process may pass overlapping
    // buffers, so the union of overlapping buffers is attached.
    std::vector<std::pair<std::byte*, std::byte*>> ranges{
        {reinterpret_cast<std::byte*>(s.lock_words.get()),
         reinterpret_cast<std::byte*>(s.lock_words.get() + k)}};
    for (int j = 0; j < k; ++j) {
      const Arrival& a = team.peer<Arrival>(j);
      auto* b = static_cast<std::byte*>(a.base);
      if (a.size > 0) ranges.emplace_back(b, b + a.size);
      RegionEntry& r = mine[static_cast<std::size_t>(j)];
      MPI_Aint address = 0;
      if (rc == MPI_SUCCESS) rc = MPI_Get_address(a.base, &address);
      r.base = address;
      r.size = a.size;
      r.disp_unit = a.disp_unit;
      MPI_Aint word = 0;
      if (rc == MPI_SUCCESS) rc = MPI_Get_address(s.lock_words.get() + j, &word);
      r.lock = word;
      addresses[static_cast<std::size_t>(j)] = b;
    }
    std::sort(ranges.begin() + 1, ranges.end());
    std::vector<std::pair<std::byte*, std::byte*>> merged{ranges[0]};
    for (std::size_t i = 1; i < ranges.size(); ++i) {
      if (merged.size() > 1 && ranges[i].first < merged.back().second) {
        merged.back().second = std::max(merged.back().second, ranges[i].second);
      } else {
        merged.push_back(ranges[i]);
      }
    }
    for (const auto& [from, to] : merged) {
      if (rc != MPI_SUCCESS) break;
      rc = MPI_Win_attach(s.win, from, to - from);
      if (rc == MPI_SUCCESS) s.attached.push_back(from);
    }
    if (rc != MPI_SUCCESS) {
      const std::string why = "MPI_Win_attach failed: " + detail::mpi_error_string(rc);
      for (void* at : s.attached) static_cast<void>(MPI_Win_detach(s.win, at));
      static_cast<void>(MPI_Win_free(&s.win));
      static_cast<void>(MPI_Comm_free(&s.mpi_comm));
      return fail(rc, why);
    }
  }
  // Errors of the MPI window come back as codes; libep raises them through
  // the endpoint's handle (research rma.md 3.8 #21).
  rc = MPI_Win_set_errhandler(s.win, MPI_ERRORS_RETURN);
  int* model = nullptr;
  int flag = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Win_get_attr(s.win, MPI_WIN_MODEL, &model, &flag);
  if (rc == MPI_SUCCESS && flag && model) s.model = *model;
  s.unified = s.model == MPI_WIN_UNIFIED;

  // Every endpoint's entry, by rank.
  const detail::RankMap& map = comm.map;
  std::vector<int> counts(static_cast<std::size_t>(s.mpi_size));
  std::vector<int> displs(static_cast<std::size_t>(s.mpi_size));
  int running = 0;
  for (int p = 0; p < s.mpi_size; ++p) {
    counts[static_cast<std::size_t>(p)] = map.count_on(p) * static_cast<int>(sizeof(RegionEntry));
    displs[static_cast<std::size_t>(p)] = running;
    running += counts[static_cast<std::size_t>(p)];
  }
  for (RegionEntry& r : mine) r.mpi_rank = s.mpi_rank;
  std::vector<RegionEntry> gathered(static_cast<std::size_t>(map.size()));
  if (rc == MPI_SUCCESS) {
    rc = MPI_Allgatherv(mine.data(), k * static_cast<int>(sizeof(RegionEntry)), MPI_BYTE,
                        gathered.data(), counts.data(), displs.data(), MPI_BYTE, s.mpi_comm);
  }
  // Open for the window's life: every endpoint of the process may issue at
  // any time (research rma.md 2.2: correct with 4 threads on both MPIs).
  if (rc == MPI_SUCCESS) rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win);
  if (rc != MPI_SUCCESS) {
    const std::string why = "setting up the MPI window failed: " + detail::mpi_error_string(rc);
    for (void* at : s.attached) static_cast<void>(MPI_Win_detach(s.win, at));
    static_cast<void>(MPI_Win_free(&s.win));
    static_cast<void>(MPI_Comm_free(&s.mpi_comm));
    return fail(rc, why);
  }
  s.by_rank.resize(static_cast<std::size_t>(map.size()));
  s.local_address.assign(static_cast<std::size_t>(map.size()), nullptr);
  for (int p = 0, at = 0; p < s.mpi_size; ++p) {
    for (int rank : map.ranks_on(p)) s.by_rank[static_cast<std::size_t>(rank)] = gathered[at++];
  }
  for (int j = 0; j < k; ++j) {
    s.local_address[static_cast<std::size_t>(map.rank_of(s.mpi_rank, j))] =
        addresses[static_cast<std::size_t>(j)];
  }
  s.team = std::make_unique<detail::LocalTeam>(k);
  for (int j = 0; j < k; ++j) {
    const detail::Endpoint* ej = comm.endpoints[static_cast<std::size_t>(j)].get();
    auto w = std::make_unique<WinImpl>();
    const RegionEntry& r = mine[static_cast<std::size_t>(j)];
    w->shared = &s;
    w->endpoint = const_cast<detail::Endpoint*>(ej);
    w->rank = ej->rank;
    w->local = j;
    w->base = allocate ? static_cast<void*>(addresses[static_cast<std::size_t>(j)])
                       : team.peer<Arrival>(j).base;
    w->size = r.size;
    w->disp_unit = r.disp_unit;
    w->flavor = s.flavor;
    w->model = s.model;
    w->lock_state.assign(static_cast<std::size_t>(map.size()), WinImpl::kUnlocked);
    w->all_taken.assign(static_cast<std::size_t>(map.size()), 0);
    w->touched.assign(static_cast<std::size_t>(s.mpi_size), WinImpl::kUntouched);
    w->touched_list.reserve(static_cast<std::size_t>(s.mpi_size));
    s.handles.push_back(std::move(w));
  }
  s.leaving.store(k, std::memory_order_relaxed);
  // Only dynamic windows need the target process in MPI (research rma.md
  // 2.7: Open MPI's Win_create accumulates waited 2 s for an idle target;
  // allocated windows, and every MPICH window, completed without it).
  // Polling costs the waiters' CPU time and MPI's progress lock, which the
  // threads doing RMA take too, for nothing on the others.
  s.one_per_process = map.max_per_process() == 1;
  s.needs_progress = s.flavor == MPI_WIN_FLAVOR_CREATE && !s.local_atomics;
  if (s.needs_progress) detail::count_window(1);
  out.shared = shared.release();
}

int create_common(void* base, MPI_Aint size, int disp_unit, Comm comm, void* baseptr, Win* win,
                  bool allocate, const char* fn) {
  detail::Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (e->shared->inter) {
    return detail::raise(e, MPI_ERR_COMM, fn, "windows need an intra-communicator");
  }
  if (!win) return detail::raise(e, MPI_ERR_ARG, fn, "the window pointer is null");
  if (allocate && !baseptr) return detail::raise(e, MPI_ERR_ARG, fn, "baseptr is null");
  if (size < 0) return detail::raise(e, MPI_ERR_SIZE, fn, "negative size {}", size);
  if (disp_unit <= 0) {
    return detail::raise(e, MPI_ERR_DISP, fn, "displacement unit {}: MPI wants a positive one",
                         disp_unit);
  }
  if (!allocate && size > 0 && !base) {
    return detail::raise(e, MPI_ERR_ARG, fn, "null base for a region of {} bytes", size);
  }

  detail::LocalTeam& team = *e->shared->team;
  const Arrival arrival{base, size, disp_unit};
  team.slot(e->local) = &arrival;
  team.sync();
  Outcome outcome;
  if (e->local == 0) {
    make_window(e, allocate, outcome);
    team.slot(0) = &outcome;
  }
  team.sync();
  const Outcome& shared_outcome = team.peer<Outcome>(0);
  const int rc = shared_outcome.rc;
  const std::string why = rc == MPI_SUCCESS ? std::string() : shared_outcome.why;
  WinImpl* mine = rc == MPI_SUCCESS ? shared_outcome.shared->handles[e->local].get() : nullptr;
  team.sync();  // the leader's outcome lives on its stack until everyone has read it
  if (rc != MPI_SUCCESS) {
    *win = WIN_NULL;
    return detail::raise(e, detail::error_class_of(rc), fn, why);
  }
  if (allocate) *static_cast<void**>(baseptr) = mine->base;
  *win = detail::handle_of(mine);
  return MPI_SUCCESS;
}

}  // namespace

int Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info /*info*/, Comm comm, Win* win) {
  return create_common(base, size, disp_unit, comm, nullptr, win, false, "Win_create");
}

int Win_allocate(MPI_Aint size, int disp_unit, MPI_Info /*info*/, Comm comm, void* baseptr,
                 Win* win) {
  return create_common(nullptr, size, disp_unit, comm, baseptr, win, true, "Win_allocate");
}

int Win_free(Win* win) {
  constexpr const char* fn = "Win_free";
  if (!win) return detail::invalid_win(fn);
  WinImpl* w = detail::valid_win(*win);
  if (!w) return detail::invalid_win(fn);
  if (w->lock_all || w->locks_held > 0) {
    return detail::raise_win(w, MPI_ERR_RMA_SYNC, fn,
                             "a passive-target epoch is still open (Win_unlock/Win_unlock_all "
                             "first); nothing was freed");
  }
  WinShared* s = w->shared;
  detail::LocalTeam& team = *s->team;
  const int local = w->local;
  // Nobody leaves before the MPI window is gone: an endpoint that returned
  // early could reuse its memory while another process still accesses it.
  team.sync();
  if (local == 0) {
    int rc = MPI_Win_unlock_all(s->win);
    // Every process's operations are complete before memory is detached.
    detail::keep_first_error(&rc, MPI_Barrier(s->mpi_comm));
    if (s->flavor == MPI_WIN_FLAVOR_CREATE && !s->local_atomics) {
      for (void* at : s->attached) detail::keep_first_error(&rc, MPI_Win_detach(s->win, at));
    }
    detail::keep_first_error(&rc, MPI_Win_free(&s->win));
    detail::keep_first_error(&rc, MPI_Comm_free(&s->mpi_comm));
    s->fence_rc = rc;
    if (s->needs_progress) detail::count_window(-1);
  }
  team.sync();
  const int rc = s->fence_rc;
  std::string why;
  if (rc != MPI_SUCCESS) why = "freeing the MPI window failed: " + detail::mpi_error_string(rc);
  const MPI_Errhandler handler = w->errhandler;
  const std::string where =
      fmt::format("endpoint {} of window on communicator #{}", w->rank, s->comm_id);
  // Refused from now on, also while the object lives until the last
  // endpoint leaves.
  detail::WinPool::retire(w);
  *win = WIN_NULL;
  // The last endpoint out deletes the window, team included: an endpoint
  // released from a barrier may still be reading the barrier's counter
  // after the last arriver has left it (AddressSanitizer saw the leader
  // delete it under a waiter, rma.create@3), but not after its decrement.
  team.sync();  // everyone has read the result
  if (s->leaving.fetch_sub(1, std::memory_order_acq_rel) == 1) delete s;
  if (rc != MPI_SUCCESS)
    return detail::raise_with(handler, detail::error_class_of(rc), fn, where, why);
  return MPI_SUCCESS;
}

int Win_get_attr(Win win, int win_keyval, void* attribute_val, int* flag) {
  constexpr const char* fn = "Win_get_attr";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (!attribute_val || !flag) return detail::raise_win(w, MPI_ERR_ARG, fn, "a pointer is null");
  *flag = 1;
  if (win_keyval == MPI_WIN_BASE) {
    *static_cast<void**>(attribute_val) = w->base;
  } else if (win_keyval == MPI_WIN_SIZE) {
    *static_cast<MPI_Aint**>(attribute_val) = &w->size;
  } else if (win_keyval == MPI_WIN_DISP_UNIT) {
    *static_cast<int**>(attribute_val) = &w->disp_unit;
  } else if (win_keyval == MPI_WIN_CREATE_FLAVOR) {
    *static_cast<int**>(attribute_val) = &w->flavor;
  } else if (win_keyval == MPI_WIN_MODEL) {
    *static_cast<int**>(attribute_val) = &w->model;
  } else {
    *flag = 0;
  }
  return MPI_SUCCESS;
}

int Win_set_errhandler(Win win, MPI_Errhandler errhandler) {
  constexpr const char* fn = "Win_set_errhandler";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN) {
    return detail::raise_win(w, MPI_ERR_ARG, fn,
                             "only MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN are supported");
  }
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}

int Win_get_errhandler(Win win, MPI_Errhandler* errhandler) {
  constexpr const char* fn = "Win_get_errhandler";
  WinImpl* w = detail::valid_win(win);
  if (!w) return detail::invalid_win(fn);
  if (!errhandler) return detail::raise_win(w, MPI_ERR_ARG, fn, "errhandler is null");
  const int rc = detail::errhandler_reference(w->errhandler, errhandler);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Comm_get_errhandler");
  return MPI_SUCCESS;
}

}  // namespace ep
