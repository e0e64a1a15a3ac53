// Freeing a user-defined op right after starting a non-blocking reduction
// that uses it is legal: MPI defers the free until the operation completes.
// Each rank creates its op, starts Iallreduce, Ireduce, Ireduce_scatter_block
// or Iscan with it, frees it at once, creates another op (MPI may give it
// the freed op's handle, and a library that used the old handle would then
// run the new op, which writes -7 everywhere), passes a token to its right
// neighbour and only then waits. Odd ranks start only once their left
// neighbour has freed its op, so that within a process the endpoint that
// completes the set (and starts the process's MPI step) comes after others
// freed theirs.
//
// Two ops: a commutative sum of ints (the hierarchical form of Iallreduce
// and Ireduce on endpoints) and the non-commutative product of 2x2 matrices
// (the hierarchical form on the test's communicator, whose layout is a
// block one, and the gathered form over a split whose ranks interleave
// across processes); Ireduce_scatter_block and Iscan take the gathered form.
#include <algorithm>
#include <string>
#include <vector>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kToken = 71;

int ints_per(MPI_Datatype type) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  return static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int)));
}

void add(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const int* x = static_cast<const int*>(in);
  int* y = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) y[i] += x[i];
}

// inout[k] = in[k] * inout[k]: `in` holds the lower ranks' product.
void multiply(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const int* x = static_cast<const int*>(in);
  int* y = static_cast<int*>(inout);
  for (int k = 0; k < *len; ++k, x += 4, y += 4) {
    const Mat product = mul({x[0], x[1], x[2], x[3]}, {y[0], y[1], y[2], y[3]});
    std::copy(product.begin(), product.end(), y);
  }
}

// What no reduction of this test may run.
void poison(void* /*in*/, void* inout, int* len, MPI_Datatype* type) {
  std::fill_n(static_cast<int*>(inout), *len * ints_per(*type), -7);
}

struct OpCase {
  const char* name;
  MPI_User_function* fn;
  bool commutative;
  MPI_Datatype type;
  int width;  // ints per element

  std::vector<int> element(int step, int rank, int i) const {
    if (width == 1) return {value(step, rank, i)};
    const Mat m = matrix(step, rank, i);
    return {m.begin(), m.end()};
  }
  // lower op higher, in rank order.
  std::vector<int> combine(const std::vector<int>& lower, const std::vector<int>& higher) const {
    if (width == 1) return {lower[0] + higher[0]};
    const Mat m =
        mul({lower[0], lower[1], lower[2], lower[3]}, {higher[0], higher[1], higher[2], higher[3]});
    return {m.begin(), m.end()};
  }
  // Elements [from, from + count) of `rank`, as ints.
  std::vector<int> operands(int step, int rank, int from, int count) const {
    std::vector<int> out;
    for (int i = from; i < from + count; ++i) {
      const std::vector<int> e = element(step, rank, i);
      out.insert(out.end(), e.begin(), e.end());
    }
    return out;
  }
  // The reduction over ranks [0, ranks) of elements [from, from + count).
  std::vector<int> reduced(int step, int ranks, int from, int count) const {
    std::vector<int> out;
    for (int i = from; i < from + count; ++i) {
      std::vector<int> acc = element(step, 0, i);
      for (int q = 1; q < ranks; ++q) acc = combine(acc, element(step, q, i));
      out.insert(out.end(), acc.begin(), acc.end());
    }
    return out;
  }
};

enum class Call { iallreduce, ireduce, ireduce_scatter_block, iscan };
const char* name_of(Call c) {
  switch (c) {
    case Call::iallreduce:
      return "Iallreduce";
    case Call::ireduce:
      return "Ireduce";
    case Call::ireduce_scatter_block:
      return "Ireduce_scatter_block";
    case Call::iscan:
      return "Iscan";
  }
  return "?";
}

void run_one(Context& t, const Sub& s, const OpCase& k, Call call, int step) {
  constexpr int kCount = 5;  // elements per rank (per block for Ireduce_scatter_block)
  const int root = s.size - 1;
  const bool scatter = call == Call::ireduce_scatter_block;
  const std::vector<int> mine = k.operands(step, s.rank, 0, scatter ? kCount * s.size : kCount);
  std::vector<int> result(static_cast<std::size_t>(kCount * k.width), -1);
  const std::string what = fmt::format("{} {} {}", s.name, k.name, name_of(call));

  MPI_Op op = MPI_OP_NULL;
  t.check_rc(MPI_Op_create(k.fn, k.commutative ? 1 : 0, &op), "MPI_Op_create");
  int token = step;
  if (s.rank % 2 == 1) {
    ok(t, s, api::Recv(&token, 1, MPI_INT, s.rank - 1, kToken, s.comm, api::STATUS_IGNORE),
       "Recv of the token");
  }
  capi::Request request = capi::REQUEST_NULL;
  int rc = MPI_SUCCESS;
  switch (call) {
    case Call::iallreduce:
      rc = capi::Iallreduce(mine.data(), result.data(), kCount, k.type, op, s.comm, &request);
      break;
    case Call::ireduce:
      rc = capi::Ireduce(mine.data(), result.data(), kCount, k.type, op, root, s.comm, &request);
      break;
    case Call::ireduce_scatter_block:
      rc = capi::Ireduce_scatter_block(mine.data(), result.data(), kCount, k.type, op, s.comm,
                                       &request);
      break;
    case Call::iscan:
      rc = capi::Iscan(mine.data(), result.data(), kCount, k.type, op, s.comm, &request);
      break;
  }
  ok(t, s, rc, what);
  t.check_rc(MPI_Op_free(&op), "MPI_Op_free");
  t.check(op == MPI_OP_NULL, what + ": MPI_Op_free sets the handle to MPI_OP_NULL");
  MPI_Op decoy = MPI_OP_NULL;
  t.check_rc(MPI_Op_create(poison, k.commutative ? 1 : 0, &decoy), "MPI_Op_create");
  if (s.rank % 2 == 0 && s.rank + 1 < s.size) {
    ok(t, s, api::Send(&token, 1, MPI_INT, s.rank + 1, kToken, s.comm), "Send of the token");
  }
  ok(t, s, capi::Wait(&request, api::STATUS_IGNORE), "Wait for " + what);
  t.check_rc(MPI_Op_free(&decoy), "MPI_Op_free");

  if (call == Call::ireduce && s.rank != root) return;
  const std::vector<int> want =
      scatter ? k.reduced(step, s.size, s.rank * kCount, kCount)
              : k.reduced(step, call == Call::iscan ? s.rank + 1 : s.size, 0, kCount);
  same(t, s, result, want, what + " through an op freed while pending");
  t.out("{} {}", what, digest(result));
}

}  // namespace

void eptest::run(Context& t) {
  MPI_Datatype mat = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_contiguous(4, MPI_INT, &mat), "MPI_Type_contiguous");
  t.check_rc(MPI_Type_commit(&mat), "MPI_Type_commit");
  const OpCase cases[] = {{"sum", add, true, MPI_INT, 1}, {"mat2x2", multiply, false, mat, 4}};

  std::vector<Sub> subs{{t.comm(), "comm", t.rank(), t.size()}};
  capi::Comm interleaved{};
  t.check_rc(capi::Comm_split(t.comm(), 0, (t.rank() % 2) * t.size() + t.rank(), &interleaved),
             "Comm_split interleaved");
  subs.push_back({interleaved, "interleaved", 0, 0});
  t.check_rc(capi::Comm_rank(interleaved, &subs[1].rank), "Comm_rank");
  t.check_rc(capi::Comm_size(interleaved, &subs[1].size), "Comm_size");

  int step = 0;
  for (const Sub& s : subs) {
    for (const OpCase& k : cases) {
      for (const Call call :
           {Call::iallreduce, Call::ireduce, Call::ireduce_scatter_block, Call::iscan}) {
        run_one(t, s, k, call, ++step);
      }
    }
  }
  t.check_rc(capi::Comm_free(&interleaved), "Comm_free");
  t.check_rc(MPI_Type_free(&mat), "MPI_Type_free");
}
