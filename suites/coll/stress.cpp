// Many collectives back to back on two communicators that the same
// processes use at the same time: every rank drives a duplicate of the
// test's communicator from its own thread and an interleaved split of it
// from a second thread. Collectives of one communicator must neither wait
// for nor disturb the other's (each has its own team, flags and scratch).
// Every result is checked; each thread's results are folded into one digest
// per communicator, which the plain-MPI run must reproduce.
#include <algorithm>
#include <numeric>
#include <thread>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

// Failures are counted per thread, reported by the rank's own thread after
// the join (Context is not shared between threads).
struct Worker {
  Sub sub;
  int iterations = 0;
  std::vector<std::string> failures;
  std::uint64_t digest = 0xcbf29ce484222325ull;

  void fold(const std::vector<int>& v) {
    for (const int x : v) {
      digest ^= static_cast<std::uint32_t>(x);
      digest *= 0x100000001b3ull;
    }
  }
  void expect(int rc, const std::vector<int>& got, const std::vector<int>& want, const char* what,
              int iteration) {
    if (rc != MPI_SUCCESS) {
      failures.push_back(fmt::format("{} {}: {} returned {}", sub.name, iteration, what, rc));
    } else if (got != want) {
      failures.push_back(fmt::format("{} {}: {} gave a wrong result", sub.name, iteration, what));
    }
    fold(got);
  }

  void step(int i);
  void run() {
    for (int i = 0; i < iterations; ++i) step(i);
  }
};

std::vector<int> sum_of(int step, int ranks, int count) {
  std::vector<int> sum(static_cast<std::size_t>(count), 0);
  for (int r = 0; r < ranks; ++r) {
    const auto v = values(step, r, count);
    std::transform(sum.begin(), sum.end(), v.begin(), sum.begin(), std::plus<>());
  }
  return sum;
}

void Worker::step(int i) {
  const int n = sub.size;
  const int me = sub.rank;
  const int root = i % n;
  // Mostly small messages, where hand-offs dominate; now and then a large one.
  const int count = i % 16 == 15 ? 20000 : 1 + i % 5;
  switch (i % 6) {
    case 0: {
      const auto mine = values(i, me, count);
      std::vector<int> out(mine.size());
      const int rc = capi::Allreduce(mine.data(), out.data(), count, MPI_INT, MPI_SUM, sub.comm);
      expect(rc, out, sum_of(i, n, count), "Allreduce", i);
      break;
    }
    case 1: {
      std::vector<int> buf = me == root ? values(i, root, count) : std::vector<int>(count, 0);
      const int rc = capi::Bcast(buf.data(), count, MPI_INT, root, sub.comm);
      expect(rc, buf, values(i, root, count), "Bcast", i);
      break;
    }
    case 2: {
      const int rc = capi::Barrier(sub.comm);
      expect(rc, {}, {}, "Barrier", i);
      break;
    }
    case 3: {
      const auto mine = values(i, me, 2);
      std::vector<int> all(static_cast<std::size_t>(2 * n)), want;
      for (int r = 0; r < n; ++r) {
        const auto v = values(i, r, 2);
        want.insert(want.end(), v.begin(), v.end());
      }
      const int rc = capi::Allgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, sub.comm);
      expect(rc, all, want, "Allgather", i);
      break;
    }
    case 4: {
      const auto mine = values(i, me, count);
      std::vector<int> out(mine.size(), 0);
      const int rc = capi::Reduce(mine.data(), out.data(), count, MPI_INT, MPI_SUM, root, sub.comm);
      expect(rc, out, me == root ? sum_of(i, n, count) : std::vector<int>(count, 0), "Reduce", i);
      break;
    }
    default: {
      const auto mine = values(i, me, count);
      std::vector<int> out(mine.size());
      const int rc = capi::Scan(mine.data(), out.data(), count, MPI_INT, MPI_SUM, sub.comm);
      expect(rc, out, sum_of(i, me + 1, count), "Scan", i);
      break;
    }
  }
}

}  // namespace

void eptest::run(Context& t) {
  const int iterations = t.params().get_int("iterations", 600);
  capi::Comm dup{};
  capi::Comm split{};
  t.check_rc(capi::Comm_dup(t.comm(), &dup), "Comm_dup");
  t.check_rc(capi::Comm_split(t.comm(), 0, (t.rank() % 2) * t.size() + t.rank(), &split),
             "Comm_split");
  Worker a;
  a.sub = {dup, "dup", t.rank(), t.size()};
  a.iterations = iterations;
  Worker b;
  b.sub = {split, "split", 0, t.size()};
  b.iterations = iterations;
  capi::Comm_rank(split, &b.sub.rank);

  std::thread second([&b] { b.run(); });
  a.run();
  second.join();

  for (const Worker* w : {&a, &b}) {
    for (const std::string& f : w->failures) t.fail(f);
    t.out("{} iterations={} digest={:016x}", w->sub.name, w->iterations, w->digest);
  }
  t.check_rc(capi::Comm_free(&split), "Comm_free split");
  t.check_rc(capi::Comm_free(&dup), "Comm_free dup");
}
