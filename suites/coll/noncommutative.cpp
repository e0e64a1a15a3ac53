// Reductions with a user-defined, non-commutative op on derived datatypes:
// the product of 2x2 integer matrices modulo 1009 (associative, not
// commutative, never overflows an int), on a contiguous type of 4 ints and
// on a padded one (4 ints in a 5-int slot, so elements are not contiguous
// and the padding must never be written). Reduce from every root,
// Allreduce, Reduce_scatter(_block), Scan and Exscan, in place and not,
// small and large, over the test's communicator and over splits whose ranks
// interleave across processes, where only a rank-order reduction is right.
#include <algorithm>
#include <array>
#include <numeric>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kPad = -9;
constexpr int kLarge = 6000;  // 96 KB of matrices: endpoints share the work

// inout[k] = in[k] * inout[k]: `in` holds the lower ranks' product.
void multiply(void* in, void* inout, int* len, MPI_Datatype* type) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(*type, &lb, &extent);
  for (int k = 0; k < *len; ++k) {
    auto* x = reinterpret_cast<int*>(static_cast<char*>(in) + k * extent);
    auto* y = reinterpret_cast<int*>(static_cast<char*>(inout) + k * extent);
    const Mat product = mul({x[0], x[1], x[2], x[3]}, {y[0], y[1], y[2], y[3]});
    std::copy(product.begin(), product.end(), y);
  }
}

// The element type under test and how to lay matrices out in it.
struct Kind {
  const char* name;
  MPI_Datatype type;
  int stride;  // ints per element
};

std::vector<int> layout_of(const Kind& k, const std::vector<Mat>& mats) {
  std::vector<int> buf(mats.size() * static_cast<std::size_t>(k.stride), kPad);
  for (std::size_t e = 0; e < mats.size(); ++e)
    std::copy(mats[e].begin(), mats[e].end(), buf.begin() + e * k.stride);
  return buf;
}

std::vector<Mat> mats_of(int step, int rank, int first, int count) {
  std::vector<Mat> m;
  for (int i = first; i < first + count; ++i) m.push_back(matrix(step, rank, i));
  return m;
}

// The product over ranks [first, last) of elements [from, from + count).
std::vector<Mat> product(int step, int first, int last, int from, int count) {
  std::vector<Mat> p(static_cast<std::size_t>(count), Mat{1, 0, 0, 1});
  for (int r = first; r < last; ++r) {
    for (int i = 0; i < count; ++i) {
      p[static_cast<std::size_t>(i)] =
          mul(p[static_cast<std::size_t>(i)], matrix(step, r, from + i));
    }
  }
  return p;
}

struct Ctx {
  Context& t;
  const Sub& s;
  MPI_Op op;
};

void report(Ctx& c, const Kind& k, const std::vector<int>& got, const std::vector<Mat>& want,
            const std::string& what) {
  same(c.t, c.s, got, layout_of(k, want), fmt::format("{} {}", what, k.name));
  c.t.out("{} {} {} {}", c.s.name, what, k.name, digest(got));
}

void reduce(Ctx& c, const Kind& k, int root, int count, bool in_place) {
  const auto mine = layout_of(k, mats_of(20, c.s.rank, 0, count));
  std::vector<int> result(mine.size(), kPad);
  if (in_place && c.s.rank == root) result = mine;
  const void* send = in_place && c.s.rank == root ? MPI_IN_PLACE : mine.data();
  ok(c.t, c.s, capi::Reduce(send, result.data(), count, k.type, c.op, root, c.s.comm), "Reduce");
  if (c.s.rank != root) return;
  report(c, k, result, product(20, 0, c.s.size, 0, count),
         fmt::format("reduce root={} count={} in_place={}", root, count, in_place));
}

void allreduce(Ctx& c, const Kind& k, int count, bool in_place) {
  const auto mine = layout_of(k, mats_of(21, c.s.rank, 0, count));
  std::vector<int> result = in_place ? mine : std::vector<int>(mine.size(), kPad);
  ok(c.t, c.s,
     capi::Allreduce(in_place ? MPI_IN_PLACE : mine.data(), result.data(), count, k.type, c.op,
                     c.s.comm),
     "Allreduce");
  report(c, k, result, product(21, 0, c.s.size, 0, count),
         fmt::format("allreduce count={} in_place={}", count, in_place));
}

void reduce_scatter(Ctx& c, const Kind& k, int scale, bool block, bool in_place) {
  std::vector<int> counts;
  for (int r = 0; r < c.s.size; ++r) counts.push_back(block ? scale : uneven_count(r, scale));
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  const int first = std::accumulate(counts.begin(), counts.begin() + c.s.rank, 0);
  const int n = counts[static_cast<std::size_t>(c.s.rank)];
  auto mine = layout_of(k, mats_of(22, c.s.rank, 0, total));
  std::vector<int> result(static_cast<std::size_t>(n) * k.stride, kPad);
  void* out = in_place ? mine.data() : result.data();
  const void* send = in_place ? MPI_IN_PLACE : mine.data();
  const int rc = block ? capi::Reduce_scatter_block(send, out, n, k.type, c.op, c.s.comm)
                       : capi::Reduce_scatter(send, out, counts.data(), k.type, c.op, c.s.comm);
  ok(c.t, c.s, rc, "Reduce_scatter");
  if (in_place)
    result.assign(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(n) * k.stride);
  report(c, k, result, product(22, 0, c.s.size, first, n),
         fmt::format("{} scale={} in_place={}", block ? "reduce_scatter_block" : "reduce_scatter",
                     scale, in_place));
}

void scan(Ctx& c, const Kind& k, int count, bool exclusive, bool in_place) {
  const auto mine = layout_of(k, mats_of(23, c.s.rank, 0, count));
  std::vector<int> result = in_place ? mine : std::vector<int>(mine.size(), kPad);
  const void* send = in_place ? MPI_IN_PLACE : mine.data();
  const int rc = exclusive ? capi::Exscan(send, result.data(), count, k.type, c.op, c.s.comm)
                           : capi::Scan(send, result.data(), count, k.type, c.op, c.s.comm);
  ok(c.t, c.s, rc, exclusive ? "Exscan" : "Scan");
  if (exclusive && c.s.rank == 0) return;
  report(c, k, result, product(23, 0, exclusive ? c.s.rank : c.s.rank + 1, 0, count),
         fmt::format("{} count={} in_place={}", exclusive ? "exscan" : "scan", count, in_place));
}

void run_over(Context& t, const Sub& s, MPI_Op op, const std::vector<Kind>& kinds) {
  Ctx c{t, s, op};
  for (const Kind& k : kinds) {
    for (const bool in_place : {false, true}) {
      for (int root = 0; root < s.size; ++root) reduce(c, k, root, 3, in_place);
      reduce(c, k, s.size - 1, kLarge, in_place);
      for (const int count : {1, 3, kLarge}) {
        allreduce(c, k, count, in_place);
        scan(c, k, count, false, in_place);
        scan(c, k, count, true, in_place);
      }
      for (const int scale : {1, 2, kLarge / 4}) {
        reduce_scatter(c, k, scale, false, in_place);
        reduce_scatter(c, k, scale, true, in_place);
      }
    }
  }
}

}  // namespace

void eptest::run(Context& t) {
  MPI_Datatype contiguous = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(4, MPI_INT, &contiguous);
  MPI_Type_commit(&contiguous);
  MPI_Datatype padded = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(contiguous, 0, 5 * sizeof(int), &padded);
  MPI_Type_commit(&padded);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(multiply, 0, &op);

  const std::vector<Kind> kinds{{"mat4", contiguous, 4}, {"mat4-in-5", padded, 5}};
  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    if (selected(t, s)) run_over(t, s, op, kinds);
  }
  free_subs(t, subs);

  MPI_Op_free(&op);
  MPI_Type_free(&padded);
  MPI_Type_free(&contiguous);
}
