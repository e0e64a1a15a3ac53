// Every rank (with endpoints: every thread of the processes) hammers one
// window with a random mix of operations and locks until --iterations
// operations or --seconds have passed, whichever comes first:
//   shared lock + Accumulate, shared lock + Fetch_and_op, shared lock + a
//   Compare_and_swap increment loop, exclusive lock + Get/flush/+1/Put,
//   exclusive lock + Put then Get of a pattern (must read back what it
//   wrote), lock_all + Accumulate to every rank + flush_all, shared lock +
//   Get_accumulate.
// Each rank counts what it did to each target; at the end the counts are
// summed (Allreduce) and every rank checks its window against them: every
// accumulate-family operation counted once, no exclusive increment lost.
// The iteration counts depend on timing, so the output says only whether
// the totals are exact.
#include <chrono>
#include <cstdio>

#include "helpers.hpp"
#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

enum Slot { kAcc, kFop, kCas, kExcl, kPattern, kPattern2, kAll, kGacc, kSlots };
enum Count { cAcc, cFop, cCas, cExcl, cGacc, cCounts };

struct Stress {
  Context& t;
  api::Win win;
  int me;
  int n;
  std::vector<int> counts;  // [target * cCounts + kind]
  int lock_all_rounds = 0;
  int pattern_mismatches = 0;

  bool ok(int rc, const char* what) { return t.check_rc(rc, what); }

  void step(int i, int target, int kind) {
    const int one = 1;
    int result = 0;
    switch (kind) {
      case 0:
        ok(api::Win_lock(MPI_LOCK_SHARED, target, 0, win), "Win_lock(shared)");
        ok(api::Accumulate(&one, 1, MPI_INT, target, kAcc, 1, MPI_INT, MPI_SUM, win), "Accumulate");
        ok(api::Win_unlock(target, win), "Win_unlock");
        ++counts[static_cast<std::size_t>(target * cCounts + cAcc)];
        break;
      case 1:
        ok(api::Win_lock(MPI_LOCK_SHARED, target, 0, win), "Win_lock(shared)");
        ok(api::Fetch_and_op(&one, &result, MPI_INT, target, kFop, MPI_SUM, win), "Fetch_and_op");
        ok(api::Win_unlock(target, win), "Win_unlock");
        t.check(result >= 0, "Fetch_and_op fetched a negative count");
        ++counts[static_cast<std::size_t>(target * cCounts + cFop)];
        break;
      case 2: {
        ok(api::Win_lock(MPI_LOCK_SHARED, target, 0, win), "Win_lock(shared)");
        int seen = 0;
        const int zero = 0;
        ok(api::Fetch_and_op(&zero, &seen, MPI_INT, target, kCas, MPI_NO_OP, win),
           "Fetch_and_op(NO_OP)");
        ok(api::Win_flush(target, win), "Win_flush");
        for (;;) {
          const int next = seen + 1;
          if (!ok(api::Compare_and_swap(&next, &seen, &result, MPI_INT, target, kCas, win),
                  "Compare_and_swap"))
            break;
          ok(api::Win_flush(target, win), "Win_flush");
          if (result == seen) break;
          seen = result;
          relax();
        }
        ok(api::Win_unlock(target, win), "Win_unlock");
        ++counts[static_cast<std::size_t>(target * cCounts + cCas)];
        break;
      }
      case 3: {
        ok(api::Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "Win_lock(exclusive)");
        ok(api::Get(&result, 1, MPI_INT, target, kExcl, 1, MPI_INT, win), "Get");
        ok(api::Win_flush(target, win), "Win_flush");
        ++result;
        ok(api::Put(&result, 1, MPI_INT, target, kExcl, 1, MPI_INT, win), "Put");
        ok(api::Win_unlock(target, win), "Win_unlock");
        ++counts[static_cast<std::size_t>(target * cCounts + cExcl)];
        break;
      }
      case 4: {
        const int pattern[2] = {i, me};
        int back[2] = {-1, -1};
        ok(api::Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "Win_lock(exclusive)");
        ok(api::Put(pattern, 2, MPI_INT, target, kPattern, 2, MPI_INT, win), "Put");
        ok(api::Win_flush(target, win), "Win_flush");
        ok(api::Get(back, 2, MPI_INT, target, kPattern, 2, MPI_INT, win), "Get");
        ok(api::Win_unlock(target, win), "Win_unlock");
        if (back[0] != pattern[0] || back[1] != pattern[1]) ++pattern_mismatches;
        break;
      }
      case 5:
        ok(api::Win_lock_all(0, win), "Win_lock_all");
        for (int r = 0; r < n; ++r) {
          ok(api::Accumulate(&one, 1, MPI_INT, r, kAll, 1, MPI_INT, MPI_SUM, win), "Accumulate");
        }
        ok(api::Win_flush_all(win), "Win_flush_all");
        ok(api::Win_unlock_all(win), "Win_unlock_all");
        ++lock_all_rounds;
        break;
      default:
        ok(api::Win_lock(MPI_LOCK_SHARED, target, 0, win), "Win_lock(shared)");
        ok(api::Get_accumulate(&one, 1, MPI_INT, &result, 1, MPI_INT, target, kGacc, 1, MPI_INT,
                               MPI_SUM, win),
           "Get_accumulate");
        ok(api::Win_unlock(target, win), "Win_unlock");
        ++counts[static_cast<std::size_t>(target * cCounts + cGacc)];
        break;
    }
  }
};

}  // namespace

void eptest::run(Context& t) {
  const int iterations = t.params().get_int("iterations", 100000);
  const int millis = t.params().get_int("millis", 1000);
  const int n = t.size();
  Window w = allocate(t, t.comm(), kSlots);
  if (w.win == api::WIN_NULL) return;

  Stress s{t, w.win, t.rank(), n, std::vector<int>(static_cast<std::size_t>(n * cCounts), 0)};
  Rng rng(0x5eed0000u + static_cast<std::uint64_t>(t.rank()));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(millis);
  int done = 0;
  for (; done < iterations && t.failures() == 0; ++done) {
    if (done % 16 == 0 && std::chrono::steady_clock::now() > deadline) break;
    s.step(done, rng.below(n), rng.below(7));
  }

  // How far it got, for the log only (it depends on timing).
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - (deadline - std::chrono::milliseconds(millis)));
  std::fprintf(stderr, "rank %d: %d operations in %lld ms\n", t.rank(), done,
               static_cast<long long>(elapsed.count()));

  // Everything every rank did to every target.
  std::vector<int> totals(s.counts.size(), 0);
  t.check_rc(rcoll::Allreduce(s.counts.data(), totals.data(), static_cast<int>(totals.size()),
                              MPI_INT, MPI_SUM, t.comm()),
             "Allreduce counts");
  int rounds = 0;
  t.check_rc(rcoll::Allreduce(&s.lock_all_rounds, &rounds, 1, MPI_INT, MPI_SUM, t.comm()),
             "Allreduce rounds");
  const std::vector<int> mine = read_locked(t, w.win, t.rank(), 0, kSlots);
  const auto total = [&](Count c) {
    return totals[static_cast<std::size_t>(t.rank() * cCounts + c)];
  };
  bool exact = true;
  exact &= t.expect_eq(mine[kAcc], total(cAcc), "Accumulate count");
  exact &= t.expect_eq(mine[kFop], total(cFop), "Fetch_and_op count");
  exact &= t.expect_eq(mine[kCas], total(cCas), "Compare_and_swap count");
  exact &= t.expect_eq(mine[kExcl], total(cExcl), "exclusive read-modify-write count");
  exact &= t.expect_eq(mine[kAll], rounds, "lock_all accumulate count");
  exact &= t.expect_eq(mine[kGacc], total(cGacc), "Get_accumulate count");
  exact &= t.expect_eq(s.pattern_mismatches, 0,
                       "patterns read back differently under an exclusive lock");
  t.check(done > 0, "no operation done");
  t.out("totals exact: {}", exact);
  free_window(t, w.win);
}
