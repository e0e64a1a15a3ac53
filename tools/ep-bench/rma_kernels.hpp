// The one-sided kernels of ep-bench rma: what an origin does in a timed
// repetition under each synchronisation (OSU's sequences), and the checked
// round that --validate runs after the timed repetitions. They are templates
// over the window calls (RmaEpCalls, RmaMpiCalls) so that each
// implementation is called directly, without an indirection of the harness.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ep/ep.hpp>
#include <vector>

#include "mpi_check.hpp"
#include "watchdog.hpp"

namespace ep::bench {

enum class RmaOp { put, get, acc, get_acc, fop, cas };
enum class RmaSync { flush, flush_local, lock, lock_all, fence };

/// The window calls of libep, one checked call each.
struct RmaEpCalls {
  using Comm = ep::Comm;
  using Win = ep::Win;
  static void allocate(MPI_Aint size, Comm comm, void* baseptr, Win* win) {
    tools::check(ep::Win_allocate(size, 1, MPI_INFO_NULL, comm, baseptr, win), "ep::Win_allocate");
  }
  static void create(void* base, MPI_Aint size, Comm comm, Win* win) {
    tools::check(ep::Win_create(base, size, 1, MPI_INFO_NULL, comm, win), "ep::Win_create");
  }
  static void free(Win* win) { tools::check(ep::Win_free(win), "ep::Win_free"); }
  static int model(Win win) {
    int* model = nullptr;
    int flag = 0;
    tools::check(ep::Win_get_attr(win, MPI_WIN_MODEL, &model, &flag), "ep::Win_get_attr");
    return flag && model ? *model : -1;
  }
  static void put(const void* o, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(ep::Put(o, n, t, rank, disp, n, t, win), "ep::Put");
  }
  static void get(void* r, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(ep::Get(r, n, t, rank, disp, n, t, win), "ep::Get");
  }
  static void acc(const void* o, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(ep::Accumulate(o, n, t, rank, disp, n, t, MPI_SUM, win), "ep::Accumulate");
  }
  static void get_acc(const void* o, void* r, int n, MPI_Datatype t, int rank, MPI_Aint disp,
                      Win win) {
    tools::check(ep::Get_accumulate(o, n, t, r, n, t, rank, disp, n, t, MPI_SUM, win),
                 "ep::Get_accumulate");
  }
  static void fop(const void* o, void* r, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(ep::Fetch_and_op(o, r, t, rank, disp, MPI_SUM, win), "ep::Fetch_and_op");
  }
  static void cas(const void* o, const void* c, void* r, MPI_Datatype t, int rank, MPI_Aint disp,
                  Win win) {
    tools::check(ep::Compare_and_swap(o, c, r, t, rank, disp, win), "ep::Compare_and_swap");
  }
  static void lock(int type, int rank, Win win) {
    tools::check(ep::Win_lock(type, rank, 0, win), "ep::Win_lock");
  }
  static void unlock(int rank, Win win) {
    tools::check(ep::Win_unlock(rank, win), "ep::Win_unlock");
  }
  static void lock_all(int assert, Win win) {
    tools::check(ep::Win_lock_all(assert, win), "ep::Win_lock_all");
  }
  static void unlock_all(Win win) { tools::check(ep::Win_unlock_all(win), "ep::Win_unlock_all"); }
  static void flush(int rank, Win win) { tools::check(ep::Win_flush(rank, win), "ep::Win_flush"); }
  static void flush_local(int rank, Win win) {
    tools::check(ep::Win_flush_local(rank, win), "ep::Win_flush_local");
  }
  static void fence(Win win) { tools::check(ep::Win_fence(0, win), "ep::Win_fence"); }
  static void fence_end(Win win) {
    tools::check(ep::Win_fence(MPI_MODE_NOSUCCEED, win), "ep::Win_fence");
  }
  static MPI_Aint size_of(Win win) {
    MPI_Aint* size = nullptr;
    int flag = 0;
    tools::check(ep::Win_get_attr(win, MPI_WIN_SIZE, &size, &flag), "ep::Win_get_attr");
    return flag && size ? *size : -1;
  }
  static void* base_of(Win win) {
    void* base = nullptr;
    int flag = 0;
    tools::check(ep::Win_get_attr(win, MPI_WIN_BASE, &base, &flag), "ep::Win_get_attr");
    return flag ? base : nullptr;
  }
  static void sync(Win win) { tools::check(ep::Win_sync(win), "ep::Win_sync"); }
};

/// The same calls on MPI windows.
struct RmaMpiCalls {
  using Comm = MPI_Comm;
  using Win = MPI_Win;
  static void allocate(MPI_Aint size, Comm comm, void* baseptr, Win* win) {
    tools::check(MPI_Win_allocate(size, 1, MPI_INFO_NULL, comm, baseptr, win), "MPI_Win_allocate");
  }
  static void create(void* base, MPI_Aint size, Comm comm, Win* win) {
    tools::check(MPI_Win_create(base, size, 1, MPI_INFO_NULL, comm, win), "MPI_Win_create");
  }
  static void free(Win* win) { tools::check(MPI_Win_free(win), "MPI_Win_free"); }
  static int model(Win win) {
    int* model = nullptr;
    int flag = 0;
    tools::check(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag), "MPI_Win_get_attr");
    return flag && model ? *model : -1;
  }
  static void put(const void* o, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(MPI_Put(o, n, t, rank, disp, n, t, win), "MPI_Put");
  }
  static void get(void* r, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(MPI_Get(r, n, t, rank, disp, n, t, win), "MPI_Get");
  }
  static void acc(const void* o, int n, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(MPI_Accumulate(o, n, t, rank, disp, n, t, MPI_SUM, win), "MPI_Accumulate");
  }
  static void get_acc(const void* o, void* r, int n, MPI_Datatype t, int rank, MPI_Aint disp,
                      Win win) {
    tools::check(MPI_Get_accumulate(o, n, t, r, n, t, rank, disp, n, t, MPI_SUM, win),
                 "MPI_Get_accumulate");
  }
  static void fop(const void* o, void* r, MPI_Datatype t, int rank, MPI_Aint disp, Win win) {
    tools::check(MPI_Fetch_and_op(o, r, t, rank, disp, MPI_SUM, win), "MPI_Fetch_and_op");
  }
  static void cas(const void* o, const void* c, void* r, MPI_Datatype t, int rank, MPI_Aint disp,
                  Win win) {
    tools::check(MPI_Compare_and_swap(o, c, r, t, rank, disp, win), "MPI_Compare_and_swap");
  }
  static void lock(int type, int rank, Win win) {
    tools::check(MPI_Win_lock(type, rank, 0, win), "MPI_Win_lock");
  }
  static void unlock(int rank, Win win) {
    tools::check(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
  }
  static void lock_all(int assert, Win win) {
    tools::check(MPI_Win_lock_all(assert, win), "MPI_Win_lock_all");
  }
  static void unlock_all(Win win) { tools::check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all"); }
  static void flush(int rank, Win win) { tools::check(MPI_Win_flush(rank, win), "MPI_Win_flush"); }
  static void flush_local(int rank, Win win) {
    tools::check(MPI_Win_flush_local(rank, win), "MPI_Win_flush_local");
  }
  static void fence(Win win) { tools::check(MPI_Win_fence(0, win), "MPI_Win_fence"); }
  static void fence_end(Win win) {
    tools::check(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence");
  }
  static MPI_Aint size_of(Win win) {
    MPI_Aint* size = nullptr;
    int flag = 0;
    tools::check(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag), "MPI_Win_get_attr");
    return flag && size ? *size : -1;
  }
  static void* base_of(Win win) {
    void* base = nullptr;
    int flag = 0;
    tools::check(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag), "MPI_Win_get_attr");
    return flag ? base : nullptr;
  }
  static void sync(Win win) { tools::check(MPI_Win_sync(win), "MPI_Win_sync"); }
};

/// One operation's shape: what travels and how it is typed.
struct RmaShape {
  RmaOp op = RmaOp::put;
  std::int64_t bytes = 8;
  /// put/get: MPI_BYTE; acc/get-acc: MPI_INT (sums); fop/cas: a 4 or 8-byte
  /// integer, one element.
  MPI_Datatype type = MPI_BYTE;
  int count = 8;
  int slots = 1;  ///< operations per synchronisation: 1, or the bandwidth window
  /// Each slot starts on a cache line, in the target region and in the
  /// origin's buffers, so the slots of a window never overlap.
  std::size_t stride() const { return (static_cast<std::size_t>(bytes) + 63) / 64 * 64; }
  std::size_t region_bytes() const { return stride() * static_cast<std::size_t>(slots); }
};

/// Where one worker's operations go: its handle of the window, the target
/// rank in the window and the displacement of this pair's region there.
template <class Calls>
struct RmaTarget {
  typename Calls::Win win{};
  int rank = MPI_PROC_NULL;
  MPI_Aint base = 0;
};

/// The origin's buffers: the data it sends, the results it gets back, and
/// the compare values of CAS; one slot each per operation of a window.
/// Allocation zero-fills, so pages are touched before any timing, and
/// accumulates of zeros never overflow.
class RmaBuffers {
 public:
  explicit RmaBuffers(const RmaShape& s)
      : stride_(s.stride()),
        origin_(s.region_bytes() + 64),
        result_(s.region_bytes() + 64),
        compare_(s.region_bytes() + 64) {}
  std::byte* origin(int slot) { return origin_.data() + stride_ * static_cast<std::size_t>(slot); }
  std::byte* result(int slot) { return result_.data() + stride_ * static_cast<std::size_t>(slot); }
  std::byte* compare(int slot) {
    return compare_.data() + stride_ * static_cast<std::size_t>(slot);
  }

 private:
  std::size_t stride_;
  std::vector<std::byte> origin_, result_, compare_;
};

/// One operation of slot `slot`.
template <class Calls>
inline void rma_issue(const RmaShape& s, RmaBuffers& b, const RmaTarget<Calls>& t, int slot) {
  const MPI_Aint disp = t.base + static_cast<MPI_Aint>(s.stride()) * slot;
  switch (s.op) {
    case RmaOp::put:
      Calls::put(b.origin(slot), s.count, s.type, t.rank, disp, t.win);
      break;
    case RmaOp::get:
      Calls::get(b.result(slot), s.count, s.type, t.rank, disp, t.win);
      break;
    case RmaOp::acc:
      Calls::acc(b.origin(slot), s.count, s.type, t.rank, disp, t.win);
      break;
    case RmaOp::get_acc:
      Calls::get_acc(b.origin(slot), b.result(slot), s.count, s.type, t.rank, disp, t.win);
      break;
    case RmaOp::fop:
      Calls::fop(b.origin(slot), b.result(slot), s.type, t.rank, disp, t.win);
      break;
    case RmaOp::cas:
      Calls::cas(b.origin(slot), b.compare(slot), b.result(slot), s.type, t.rank, disp, t.win);
      break;
  }
}

/// OSU takes an exclusive lock for the read-modify-write benchmarks.
inline int rma_lock_type(RmaOp op) {
  return op == RmaOp::fop || op == RmaOp::cas ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
}

/// `iterations` synchronisations, each after s.slots operations (one for
/// latency), as OSU's one-sided benchmarks sequence them:
///   flush, flush-local  one shared lock around the loop; op(s) + flush per iteration
///   lock                lock (exclusive for fop/cas) + op(s) + unlock
///   lock-all            lock_all + op(s) + unlock_all
///   fence               all ranks: fence, origin op(s), fence, target op(s)
///                       back, fence (latency: OSU's ping-pong, 2 one-way
///                       trips per iteration); bandwidth: fence, origin
///                       op(s), fence
/// `origin`: this worker issues; the target of a passive-target sync does
/// nothing. `epoch_open`: the caller holds a lock_all over the whole run
/// (--impl mpi-threads), so flush modes take no lock of their own.
template <class Calls>
void rma_kernel(const RmaShape& s, RmaSync sync, bool latency, bool origin, bool epoch_open,
                RmaBuffers& b, const RmaTarget<Calls>& t, std::int64_t iterations) {
  const auto issue_all = [&] {
    for (int j = 0; j < s.slots; ++j) rma_issue<Calls>(s, b, t, j);
  };
  switch (sync) {
    case RmaSync::flush:
    case RmaSync::flush_local:
      if (!origin) return kernel_passive();  // the origin works on this window
      if (!epoch_open) Calls::lock(MPI_LOCK_SHARED, t.rank, t.win);
      for (std::int64_t i = 0; i < iterations; ++i) {
        kernel_progress();
        issue_all();
        if (sync == RmaSync::flush)
          Calls::flush(t.rank, t.win);
        else
          Calls::flush_local(t.rank, t.win);
      }
      if (!epoch_open) Calls::unlock(t.rank, t.win);
      return;
    case RmaSync::lock:
      if (!origin) return kernel_passive();  // the origin works on this window
      for (std::int64_t i = 0; i < iterations; ++i) {
        kernel_progress();
        Calls::lock(rma_lock_type(s.op), t.rank, t.win);
        issue_all();
        Calls::unlock(t.rank, t.win);
      }
      return;
    case RmaSync::lock_all:
      if (!origin) return kernel_passive();  // the origin works on this window
      for (std::int64_t i = 0; i < iterations; ++i) {
        kernel_progress();
        Calls::lock_all(0, t.win);
        issue_all();
        Calls::unlock_all(t.win);
      }
      return;
    case RmaSync::fence:
      for (std::int64_t i = 0; i < iterations; ++i) {
        kernel_progress();
        Calls::fence(t.win);
        if (origin) issue_all();
        Calls::fence(t.win);
        if (!latency) continue;
        if (!origin) issue_all();  // t.rank is the origin, seen from here
        Calls::fence(t.win);
      }
      return;
  }
}

// --- the checked round (--validate), never timed --------------------------------

/// Values that differ for each pair, slot and element, small enough that
/// the sums of the checked round cannot overflow a 32-bit int.
inline std::int64_t rma_initial(int pair, int slot, std::int64_t i) {
  return 1000 + 97 * pair + 13 * slot + (i % 1021);
}
inline std::int64_t rma_addend(int pair, int slot, std::int64_t i) {
  return 1 + pair + slot + (i % 7);
}
inline std::byte rma_byte(int pair, int slot, std::int64_t i) {
  return static_cast<std::byte>(
      (static_cast<std::uint32_t>(i) + 31u * pair + 7u * slot) * 2654435761u >> 24);
}

/// Reads or writes element i of a buffer of the shape's datatype.
inline std::int64_t rma_load(const RmaShape& s, const std::byte* p, std::int64_t i) {
  if (s.type == MPI_BYTE) return static_cast<std::int64_t>(p[i]);
  if (s.type == MPI_INT64_T) {
    std::int64_t v = 0;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  std::int32_t v = 0;
  std::memcpy(&v, p + 4 * i, 4);
  return v;
}
inline void rma_store(const RmaShape& s, std::byte* p, std::int64_t i, std::int64_t v) {
  if (s.type == MPI_BYTE) {
    p[i] = static_cast<std::byte>(v);
  } else if (s.type == MPI_INT64_T) {
    std::memcpy(p + 8 * i, &v, 8);
  } else {
    const auto w = static_cast<std::int32_t>(v);
    std::memcpy(p + 4 * i, &w, 4);
  }
}

/// Rounds of the CAS counter: each increments the target by one, and only
/// if the value found is the one expected.
inline constexpr int rma_cas_rounds = 4;

/// What the target region holds before the checked operations.
/// get: the payload to read; put: its complement, so that a byte the put
/// missed shows; the others: the values to add to or swap.
inline std::int64_t rma_before(const RmaShape& s, int pair, int slot, std::int64_t i) {
  if (s.op == RmaOp::get) return static_cast<std::int64_t>(rma_byte(pair, slot, i));
  if (s.op == RmaOp::put) return static_cast<std::int64_t>(~rma_byte(pair, slot, i));
  return rma_initial(pair, slot, i);
}

/// The target: fills its region for the checked round.
inline void rma_fill_target(const RmaShape& s, std::byte* region, int pair) {
  for (int j = 0; j < s.slots; ++j)
    for (int i = 0; i < s.count; ++i)
      rma_store(s, region + s.stride() * static_cast<std::size_t>(j), i, rma_before(s, pair, j, i));
}

/// The origin: one checked operation per slot (CAS: rma_cas_rounds per
/// slot), each completed by an exclusive lock epoch of its own, or by a
/// flush inside the caller's lock_all when `epoch_open`. Returns the wrong
/// values it got back (get, get-acc, fop, cas results).
template <class Calls>
std::int64_t rma_checked_ops(const RmaShape& s, RmaBuffers& b, const RmaTarget<Calls>& t, int pair,
                             bool epoch_open) {
  std::int64_t wrong = 0;
  const auto complete = [&](auto&& body) {
    if (!epoch_open) Calls::lock(MPI_LOCK_EXCLUSIVE, t.rank, t.win);
    body();
    if (epoch_open)
      Calls::flush(t.rank, t.win);
    else
      Calls::unlock(t.rank, t.win);
  };
  for (int j = 0; j < s.slots; ++j) {
    const int rounds = s.op == RmaOp::cas ? rma_cas_rounds : 1;
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < s.count; ++i) {
        if (s.op == RmaOp::put)
          rma_store(s, b.origin(j), i, static_cast<std::int64_t>(rma_byte(pair, j, i)));
        else
          rma_store(s, b.origin(j), i, rma_addend(pair, j, i));
        rma_store(s, b.result(j), i, -1);
      }
      if (s.op == RmaOp::cas) {  // expects the count so far, writes it plus one
        const std::int64_t now = rma_initial(pair, j, 0) + round;
        rma_store(s, b.compare(j), 0, now);
        rma_store(s, b.origin(j), 0, now + 1);
      }
      complete([&] { rma_issue<Calls>(s, b, t, j); });
      for (int i = 0; i < s.count; ++i) {
        const std::int64_t got = rma_load(s, b.result(j), i);
        switch (s.op) {
          case RmaOp::put:
          case RmaOp::acc:
            break;
          case RmaOp::get:
            wrong += got != static_cast<std::int64_t>(rma_byte(pair, j, i));
            break;
          case RmaOp::get_acc:
          case RmaOp::fop:
            wrong += got != rma_initial(pair, j, i);
            break;
          case RmaOp::cas:
            wrong += got != rma_initial(pair, j, 0) + round;
            break;
        }
      }
    }
  }
  return wrong;
}

/// The target: what its region must hold after the checked round; returns
/// the wrong elements (at most one count per slot).
inline std::int64_t rma_check_target(const RmaShape& s, const std::byte* region, int pair) {
  std::int64_t wrong = 0;
  for (int j = 0; j < s.slots; ++j) {
    const std::byte* slot = region + s.stride() * static_cast<std::size_t>(j);
    bool bad = false;
    for (int i = 0; i < s.count && !bad; ++i) {
      const std::int64_t got = rma_load(s, slot, i);
      std::int64_t expected = 0;
      switch (s.op) {
        case RmaOp::put:
          expected = static_cast<std::int64_t>(rma_byte(pair, j, i));
          break;
        case RmaOp::get:
          expected = rma_before(s, pair, j, i);
          break;
        case RmaOp::acc:
        case RmaOp::get_acc:
        case RmaOp::fop:
          expected = rma_initial(pair, j, i) + rma_addend(pair, j, i);
          break;
        case RmaOp::cas:
          expected = rma_initial(pair, j, 0) + rma_cas_rounds;
          break;
      }
      bad = got != expected;
    }
    wrong += bad;
  }
  return wrong;
}

}  // namespace ep::bench
