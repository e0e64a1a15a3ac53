// The collectives without a root: Barrier, Allgather, Allgatherv, Alltoall,
// Alltoallv, Allreduce, Reduce_scatter, Reduce_scatter_block, Scan and
// Exscan, with small and large counts, uneven counts in the v-variants and
// the in-place forms, over the test's communicator and split communicators
// whose ranks interleave across processes (make_subs). Results are checked
// against values computed here and printed as digests for the diff against
// plain MPI.
#include <algorithm>
#include <array>
#include <chrono>
#include <numeric>
#include <thread>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kLarge = 40000;

std::vector<int> concat(int step, const std::vector<int>& counts, const std::vector<int>& displs,
                        int span, int fill) {
  std::vector<int> all(static_cast<std::size_t>(span), fill);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto v = values(step, static_cast<int>(r), counts[r]);
    std::copy(v.begin(), v.end(), all.begin() + displs[r]);
  }
  return all;
}

void allgather(Context& t, const Sub& s, int count, bool in_place) {
  std::vector<int> counts(static_cast<std::size_t>(s.size), count);
  std::vector<int> displs(counts.size());
  for (int r = 0; r < s.size; ++r) displs[static_cast<std::size_t>(r)] = r * count;
  const auto want = concat(10, counts, displs, s.size * count, -1);
  std::vector<int> all(want.size(), -1);
  const auto mine = values(10, s.rank, count);
  if (in_place) {
    std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(s.rank) * count);
    ok(t, s,
       capi::Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), count, MPI_INT, s.comm),
       "Allgather in place");
  } else {
    ok(t, s, capi::Allgather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, s.comm),
       "Allgather");
  }
  same(t, s, all, want, fmt::format("Allgather count {}", count));
  t.out("{} allgather count={} in_place={} {}", s.name, count, in_place, digest(all));
}

void allgatherv(Context& t, const Sub& s, int scale, bool in_place) {
  std::vector<int> counts;
  std::vector<int> displs;
  int span = 0;
  for (int r = 0; r < s.size; ++r) {
    counts.push_back(uneven_count(r, scale));
    displs.push_back(span);
    span += counts.back() + 2;  // gaps must stay untouched
  }
  const auto want = concat(11, counts, displs, span, -1);
  std::vector<int> all(want.size(), -1);
  const int n = counts[static_cast<std::size_t>(s.rank)];
  const auto mine = values(11, s.rank, n);
  if (in_place) {
    std::copy(mine.begin(), mine.end(), all.begin() + displs[static_cast<std::size_t>(s.rank)]);
    ok(t, s,
       capi::Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), counts.data(),
                        displs.data(), MPI_INT, s.comm),
       "Allgatherv in place");
  } else {
    ok(t, s,
       capi::Allgatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                        s.comm),
       "Allgatherv");
  }
  same(t, s, all, want, fmt::format("Allgatherv scale {}", scale));
  t.out("{} allgatherv scale={} in_place={} {}", s.name, scale, in_place, digest(all));
}

// Element i of the block rank `from` sends rank `to`.
int pair_value(int from, int to, int i) { return from * 1000 + to * 10 + i % 10; }

void alltoall(Context& t, const Sub& s, int count, bool in_place) {
  std::vector<int> send(static_cast<std::size_t>(s.size) * count);
  std::vector<int> want(send.size());
  for (int r = 0; r < s.size; ++r) {
    for (int i = 0; i < count; ++i) {
      send[static_cast<std::size_t>(r * count + i)] = pair_value(s.rank, r, i);
      want[static_cast<std::size_t>(r * count + i)] = pair_value(r, s.rank, i);
    }
  }
  std::vector<int> recv(send.size(), -1);
  if (in_place) {
    recv = send;
    ok(t, s,
       capi::Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.data(), count, MPI_INT, s.comm),
       "Alltoall in place");
  } else {
    ok(t, s, capi::Alltoall(send.data(), count, MPI_INT, recv.data(), count, MPI_INT, s.comm),
       "Alltoall");
  }
  same(t, s, recv, want, fmt::format("Alltoall count {}", count));
  t.out("{} alltoall count={} in_place={} {}", s.name, count, in_place, digest(recv));
}

// Rank a sends rank b (a + 2b) % 4 elements; blocks are laid out in reverse
// rank order on both sides, with a gap of one.
void alltoallv(Context& t, const Sub& s) {
  const auto count = [](int a, int b) { return (a + 2 * b) % 4; };
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  int sspan = 0;
  int rspan = 0;
  for (int r = s.size - 1; r >= 0; --r) {
    scounts.insert(scounts.begin(), count(s.rank, r));
    sdispls.insert(sdispls.begin(), sspan);
    sspan += count(s.rank, r) + 1;
    rcounts.insert(rcounts.begin(), count(r, s.rank));
    rdispls.insert(rdispls.begin(), rspan);
    rspan += count(r, s.rank) + 1;
  }
  std::vector<int> send(static_cast<std::size_t>(sspan), -5);
  std::vector<int> want(static_cast<std::size_t>(rspan), -1);
  for (int r = 0; r < s.size; ++r) {
    for (int i = 0; i < count(s.rank, r); ++i) {
      send[static_cast<std::size_t>(sdispls[static_cast<std::size_t>(r)] + i)] =
          pair_value(s.rank, r, i);
    }
    for (int i = 0; i < count(r, s.rank); ++i) {
      want[static_cast<std::size_t>(rdispls[static_cast<std::size_t>(r)] + i)] =
          pair_value(r, s.rank, i);
    }
  }
  std::vector<int> recv(want.size(), -1);
  ok(t, s,
     capi::Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_INT, recv.data(),
                     rcounts.data(), rdispls.data(), MPI_INT, s.comm),
     "Alltoallv");
  same(t, s, recv, want, "Alltoallv");
  t.out("{} alltoallv {}", s.name, digest(recv));
}

std::vector<int> sum_over(int step, int first, int last, int count) {
  std::vector<int> sum(static_cast<std::size_t>(count), 0);
  for (int r = first; r < last; ++r) {
    const auto v = values(step, r, count);
    for (int i = 0; i < count; ++i)
      sum[static_cast<std::size_t>(i)] += v[static_cast<std::size_t>(i)];
  }
  return sum;
}

void allreduce(Context& t, const Sub& s, int count, bool in_place) {
  const auto mine = values(12, s.rank, count);
  std::vector<int> result(static_cast<std::size_t>(count), -1);
  if (in_place) {
    result = mine;
    ok(t, s, capi::Allreduce(MPI_IN_PLACE, result.data(), count, MPI_INT, MPI_SUM, s.comm),
       "Allreduce in place");
  } else {
    ok(t, s, capi::Allreduce(mine.data(), result.data(), count, MPI_INT, MPI_SUM, s.comm),
       "Allreduce");
  }
  same(t, s, result, sum_over(12, 0, s.size, count), fmt::format("Allreduce count {}", count));
  t.out("{} allreduce count={} in_place={} {}", s.name, count, in_place, digest(result));
}

void reduce_scatter(Context& t, const Sub& s, int scale, bool in_place, bool block) {
  std::vector<int> counts;
  for (int r = 0; r < s.size; ++r) counts.push_back(block ? scale : uneven_count(r, scale) + 1);
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  const int first = std::accumulate(counts.begin(), counts.begin() + s.rank, 0);
  const int n = counts[static_cast<std::size_t>(s.rank)];
  const auto mine = values(13, s.rank, total);
  const auto sum = sum_over(13, 0, s.size, total);
  std::vector<int> want(sum.begin() + first, sum.begin() + first + n);
  std::vector<int> result(static_cast<std::size_t>(n), -1);
  int rc = MPI_SUCCESS;
  if (in_place) {
    std::vector<int> inout = mine;
    rc = block ? capi::Reduce_scatter_block(MPI_IN_PLACE, inout.data(), n, MPI_INT, MPI_SUM, s.comm)
               : capi::Reduce_scatter(MPI_IN_PLACE, inout.data(), counts.data(), MPI_INT, MPI_SUM,
                                      s.comm);
    result.assign(inout.begin(), inout.begin() + n);
  } else {
    rc = block ? capi::Reduce_scatter_block(mine.data(), result.data(), n, MPI_INT, MPI_SUM, s.comm)
               : capi::Reduce_scatter(mine.data(), result.data(), counts.data(), MPI_INT, MPI_SUM,
                                      s.comm);
  }
  const char* name = block ? "reduce_scatter_block" : "reduce_scatter";
  ok(t, s, rc, name);
  same(t, s, result, want, fmt::format("{} scale {}", name, scale));
  t.out("{} {} scale={} in_place={} {}", s.name, name, scale, in_place, digest(result));
}

void scan(Context& t, const Sub& s, int count, bool exclusive, bool in_place) {
  const auto mine = values(14, s.rank, count);
  std::vector<int> result(static_cast<std::size_t>(count), -1);
  if (in_place) result = mine;
  const void* send = in_place ? MPI_IN_PLACE : mine.data();
  const int rc = exclusive ? capi::Exscan(send, result.data(), count, MPI_INT, MPI_SUM, s.comm)
                           : capi::Scan(send, result.data(), count, MPI_INT, MPI_SUM, s.comm);
  const char* name = exclusive ? "exscan" : "scan";
  ok(t, s, rc, name);
  if (exclusive && s.rank == 0) return;  // undefined there
  same(t, s, result, sum_over(14, 0, exclusive ? s.rank : s.rank + 1, count),
       fmt::format("{} count {}", name, count));
  t.out("{} {} count={} in_place={} {}", s.name, name, count, in_place, digest(result));
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Nobody leaves a barrier before the last rank arrived: each rank in turn
// (up to 4) arrives 2 ms late, and the earliest departure must follow the
// latest arrival (all processes run on one host, whose monotonic clock they
// share). Covers the team's gate, whose last arriver may be any endpoint.
void barrier_waits(Context& t, const Sub& s) {
  for (int late = 0; late < std::min(s.size, 4); ++late) {
    if (s.rank == late) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const double arrived = now_seconds();
    if (!ok(t, s, capi::Barrier(s.comm), "Barrier")) return;
    const std::array<double, 2> mine{arrived, -now_seconds()};
    std::array<double, 2> all{};
    if (!ok(t, s, capi::Allreduce(mine.data(), all.data(), 2, MPI_DOUBLE, MPI_MAX, s.comm),
            "Allreduce"))
      return;
    if (-all[1] < all[0])
      t.fail(fmt::format("{}: a rank left the barrier before rank {} arrived", s.name, late));
  }
}

void run_over(Context& t, const Sub& s) {
  ok(t, s, capi::Barrier(s.comm), "Barrier");
  barrier_waits(t, s);
  for (const bool in_place : {false, true}) {
    for (const int count : {0, 1, 6, kLarge}) {
      allreduce(t, s, count, in_place);
      scan(t, s, count, false, in_place);
      scan(t, s, count, true, in_place);
    }
    for (const int count : {1, 4, kLarge / 8}) {
      allgather(t, s, count, in_place);
      alltoall(t, s, count, in_place);
    }
    for (const int scale : {1, 3, kLarge / 8}) {
      allgatherv(t, s, scale, in_place);
      reduce_scatter(t, s, scale, in_place, false);
      reduce_scatter(t, s, scale, in_place, true);
    }
  }
  alltoallv(t, s);
  ok(t, s, capi::Barrier(s.comm), "Barrier");
}

}  // namespace

void eptest::run(Context& t) {
  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    if (selected(t, s)) run_over(t, s);
  }
  free_subs(t, subs);
}
