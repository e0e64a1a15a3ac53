// The rooted collectives: Bcast, Gather, Gatherv, Scatter, Scatterv and
// Reduce, from every root, with small and large counts, uneven counts and
// gaps in the v-variants, the in-place forms, and Bcast between different
// (signature-equal) datatypes. Runs over the test's communicator and over
// split communicators whose ranks interleave across processes (make_subs).
// Every result is checked against values computed here and printed as a
// digest, so that the plain-MPI run must print the same lines.
#include <algorithm>
#include <numeric>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kLarge = 40000;  // 160 KB of ints: past the sizes where endpoints share work

void bcast(Context& t, const Sub& s, int root, int count) {
  std::vector<int> buf = s.rank == root ? values(1, root, count) : std::vector<int>(count, -1);
  ok(t, s, capi::Bcast(buf.data(), count, MPI_INT, root, s.comm), "Bcast");
  same(t, s, buf, values(1, root, count), fmt::format("Bcast root {} count {}", root, count));
  t.out("{} bcast root={} count={} {}", s.name, root, count, digest(buf));
}

// The root sends 3 blocks of 2 ints with a gap of one (a vector type); the
// others receive 6 contiguous ints.
void bcast_derived(Context& t, const Sub& s, int root) {
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 2, 3, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  const std::vector<int> source = values(2, root, 9);
  std::vector<int> buf(9, -1);
  if (s.rank == root) {
    buf = source;
    ok(t, s, capi::Bcast(buf.data(), 1, strided, root, s.comm), "Bcast strided");
  } else {
    ok(t, s, capi::Bcast(buf.data(), 6, MPI_INT, root, s.comm), "Bcast ints");
    const std::vector<int> want{source[0], source[1], source[3], source[4], source[6],
                                source[7], -1,        -1,        -1};
    same(t, s, buf, want, fmt::format("Bcast strided root {}", root));
  }
  MPI_Type_free(&strided);
  t.out("{} bcast-derived root={} {}", s.name, root, digest(buf));
}

void gather(Context& t, const Sub& s, int root, int count, bool in_place) {
  const std::vector<int> mine = values(3, s.rank, count);
  std::vector<int> all(static_cast<std::size_t>(s.size) * count, -1);
  std::vector<int> want;
  for (int r = 0; r < s.size; ++r) {
    const auto v = values(3, r, count);
    want.insert(want.end(), v.begin(), v.end());
  }
  if (s.rank == root && in_place) {
    std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(root) * count);
    ok(t, s,
       capi::Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), count, MPI_INT, root, s.comm),
       "Gather in place");
  } else {
    ok(t, s, capi::Gather(mine.data(), count, MPI_INT, all.data(), count, MPI_INT, root, s.comm),
       "Gather");
  }
  if (s.rank != root) return;
  same(t, s, all, want, fmt::format("Gather root {} count {}", root, count));
  t.out("{} gather root={} count={} in_place={} {}", s.name, root, count, in_place, digest(all));
}

// Uneven counts (some zero) and a one-element gap after every block.
struct Uneven {
  std::vector<int> counts;
  std::vector<int> displs;
  int span = 0;
  Uneven(int size, int scale) {
    for (int r = 0; r < size; ++r) {
      counts.push_back(uneven_count(r, scale));
      displs.push_back(span);
      span += counts.back() + 1;
    }
  }
};

void gatherv(Context& t, const Sub& s, int root, int scale, bool in_place) {
  const Uneven u(s.size, scale);
  const int mine_count = u.counts[static_cast<std::size_t>(s.rank)];
  const std::vector<int> mine = values(4, s.rank, mine_count);
  std::vector<int> all(static_cast<std::size_t>(u.span), -1);
  std::vector<int> want(all);
  for (int r = 0; r < s.size; ++r) {
    const auto v = values(4, r, u.counts[static_cast<std::size_t>(r)]);
    std::copy(v.begin(), v.end(), want.begin() + u.displs[static_cast<std::size_t>(r)]);
  }
  int rc = MPI_SUCCESS;
  if (s.rank == root && in_place) {
    std::copy(mine.begin(), mine.end(), all.begin() + u.displs[static_cast<std::size_t>(root)]);
    rc = capi::Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), u.counts.data(),
                       u.displs.data(), MPI_INT, root, s.comm);
  } else {
    rc = capi::Gatherv(mine.data(), mine_count, MPI_INT, all.data(), u.counts.data(),
                       u.displs.data(), MPI_INT, root, s.comm);
  }
  ok(t, s, rc, "Gatherv");
  if (s.rank != root) return;
  same(t, s, all, want, fmt::format("Gatherv root {} scale {}", root, scale));
  t.out("{} gatherv root={} scale={} in_place={} {}", s.name, root, scale, in_place, digest(all));
}

void scatter(Context& t, const Sub& s, int root, int count, bool in_place) {
  std::vector<int> all;
  for (int r = 0; r < s.size; ++r) {
    const auto v = values(5, r, count);
    all.insert(all.end(), v.begin(), v.end());
  }
  std::vector<int> mine(static_cast<std::size_t>(count), -1);
  if (s.rank == root && in_place) {
    ok(t, s,
       capi::Scatter(all.data(), count, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, s.comm),
       "Scatter in place");
    mine.assign(all.begin() + static_cast<std::ptrdiff_t>(root) * count,
                all.begin() + static_cast<std::ptrdiff_t>(root + 1) * count);
  } else {
    ok(t, s, capi::Scatter(all.data(), count, MPI_INT, mine.data(), count, MPI_INT, root, s.comm),
       "Scatter");
  }
  same(t, s, mine, values(5, s.rank, count), fmt::format("Scatter root {} count {}", root, count));
  t.out("{} scatter root={} count={} in_place={} {}", s.name, root, count, in_place, digest(mine));
}

void scatterv(Context& t, const Sub& s, int root, int scale, bool in_place) {
  const Uneven u(s.size, scale);
  std::vector<int> all(static_cast<std::size_t>(u.span), -7);
  for (int r = 0; r < s.size; ++r) {
    const auto v = values(6, r, u.counts[static_cast<std::size_t>(r)]);
    std::copy(v.begin(), v.end(), all.begin() + u.displs[static_cast<std::size_t>(r)]);
  }
  const int mine_count = u.counts[static_cast<std::size_t>(s.rank)];
  // One extra element that must stay untouched.
  std::vector<int> mine(static_cast<std::size_t>(mine_count) + 1, -1);
  if (s.rank == root && in_place) {
    ok(t, s,
       capi::Scatterv(all.data(), u.counts.data(), u.displs.data(), MPI_INT, MPI_IN_PLACE, 0,
                      MPI_DATATYPE_NULL, root, s.comm),
       "Scatterv in place");
    std::copy_n(all.begin() + u.displs[static_cast<std::size_t>(root)], mine_count, mine.begin());
  } else {
    ok(t, s,
       capi::Scatterv(all.data(), u.counts.data(), u.displs.data(), MPI_INT, mine.data(),
                      mine_count, MPI_INT, root, s.comm),
       "Scatterv");
  }
  auto want = values(6, s.rank, mine_count);
  want.push_back(-1);
  same(t, s, mine, want, fmt::format("Scatterv root {} scale {}", root, scale));
  t.out("{} scatterv root={} scale={} in_place={} {}", s.name, root, scale, in_place, digest(mine));
}

void reduce(Context& t, const Sub& s, int root, int count, MPI_Op op, bool in_place) {
  const std::vector<int> mine = values(7, s.rank, count);
  std::vector<int> result(static_cast<std::size_t>(count), -1);
  if (s.rank == root && in_place) {
    result = mine;
    ok(t, s, capi::Reduce(MPI_IN_PLACE, result.data(), count, MPI_INT, op, root, s.comm),
       "Reduce in place");
  } else {
    ok(t, s, capi::Reduce(mine.data(), result.data(), count, MPI_INT, op, root, s.comm), "Reduce");
  }
  if (s.rank != root) return;
  std::vector<int> want = values(7, 0, count);
  for (int r = 1; r < s.size; ++r) {
    const auto v = values(7, r, count);
    for (int i = 0; i < count; ++i) {
      int& w = want[static_cast<std::size_t>(i)];
      w = op == MPI_SUM ? w + v[static_cast<std::size_t>(i)]
                        : std::max(w, v[static_cast<std::size_t>(i)]);
    }
  }
  same(t, s, result, want, fmt::format("Reduce root {} count {}", root, count));
  t.out("{} reduce root={} count={} op={} in_place={} {}", s.name, root, count,
        op == MPI_SUM ? "sum" : "max", in_place, digest(result));
}

void run_over(Context& t, const Sub& s) {
  for (int root = 0; root < s.size; ++root) {
    for (const int count : {0, 1, 5, kLarge}) bcast(t, s, root, count);
    bcast_derived(t, s, root);
    for (const bool in_place : {false, true}) {
      gather(t, s, root, 3, in_place);
      gatherv(t, s, root, 2, in_place);
      scatter(t, s, root, 3, in_place);
      scatterv(t, s, root, 2, in_place);
      reduce(t, s, root, 4, MPI_SUM, in_place);
      reduce(t, s, root, kLarge, MPI_SUM, in_place);
    }
    gather(t, s, root, kLarge / 4, false);
    scatterv(t, s, root, kLarge / 8, false);
    reduce(t, s, root, 7, MPI_MAX, false);
  }
}

}  // namespace

void eptest::run(Context& t) {
  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    if (selected(t, s)) run_over(t, s);
  }
  free_subs(t, subs);
}
