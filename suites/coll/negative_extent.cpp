// Datatypes whose elements run downwards (negative extent) or whose data
// starts below the element's address (negative lower bound), as MPI allows:
// a resized int of extent -4, a vector of 2 ints with stride -2 (lower bound
// -8), and that vector resized to extent -12. Element i of such a buffer
// starts at buf + i * extent, so the memory it covers lies below buf. Moved
// by the collectives that move data, and by messages between the ranks of a
// process (eager and rendezvous) and to oneself; on an inter-communicator
// also reduced. Every int of the memory around the elements must keep its
// padding value.
//
// Each rank lays its buffers out itself from the kind's description (not
// from MPI's extents) and checks every result against what it computed.
// Differential where the reference MPI moves these types correctly; see
// kReference for where it does not (the endpoint program then still runs
// and checks the step but prints nothing for it).
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include "coll_test.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kPad = -9;

// Where the reference MPI cannot be the reference. Measured with 2 and 3
// processes and counts 1 to 4900: Open MPI 4.1.4's MPI_Gather of a type with
// a negative extent corrupts the heap ("double free or corruption") or
// hangs, and its MPI_Allgather of one on 3 processes returns wrong data
// (with a negative lower bound and a positive extent both are right). MPICH
// 4.0.2 is right for every collective here. Reductions of such types fail in
// both (MPI_ERR_OTHER, heap corruption), so only the inter-communicator
// Allreduce, which libep reduces locally with MPI_Reduce_local, is reduced
// here, on endpoints only.
struct Reference {
  bool gathers_downwards = reference::kMpich;
};
constexpr Reference kReference;

// A datatype and where its ints are, in ints: element i starts at
// buf + i * extent, its ints at the offsets from there.
struct Kind {
  const char* name;
  MPI_Datatype type;
  int extent;
  std::vector<int> offsets;
  bool downwards() const { return extent < 0; }
  int ints() const { return static_cast<int>(offsets.size()); }
};

// `count` elements of a kind in memory of their own, padding elsewhere.
struct Laid {
  std::vector<int> memory;
  std::ptrdiff_t base = 0;  // index of buf in memory
  void* buf() { return memory.data() + base; }
  int& at(const Kind& k, int element, int j) {
    return memory[static_cast<std::size_t>(base + std::ptrdiff_t{element} * k.extent +
                                           k.offsets[static_cast<std::size_t>(j)])];
  }
};

Laid lay_out(const Kind& k, int count) {
  const auto [lowest, highest] = std::minmax_element(k.offsets.begin(), k.offsets.end());
  const int stretch = (count - 1) * k.extent;
  // A margin of padding on both sides keeps other buffers out of the span
  // that MPICH 4.0.2's aliasing check derives from a negative extent: it
  // refused an Allgather whose receive buffer started 12 bytes below the
  // send buffer's base ("Buffers must not be aliased"), as heap placement
  // happened to put them.
  const int margin = std::abs(k.extent) * (count + 1) + 16;
  const int low = *lowest + std::min(0, stretch) - margin;
  const int high = *highest + 1 + std::max(0, stretch) + margin;
  Laid l;
  l.memory.assign(static_cast<std::size_t>(high - low), kPad);
  l.base = -low;
  return l;
}

// The buffer holding `values` (count * ints of them, in signature order).
Laid laid(const Kind& k, int count, const std::vector<int>& values) {
  Laid l = lay_out(k, count);
  for (int e = 0; e < count; ++e) {
    for (int j = 0; j < k.ints(); ++j)
      l.at(k, e, j) = values[static_cast<std::size_t>(e * k.ints() + j)];
  }
  return l;
}

std::vector<int> values_of(const Kind& k, int step, int rank, int count) {
  return values(step, rank, count * k.ints());
}

struct Ctx {
  Context& t;
  const Sub& s;
  const Kind& k;
};

// Compares the whole memory, padding included, and prints its digest.
void report(Ctx& c, const Laid& got, const Laid& want, const std::string& what, bool print = true) {
  same(c.t, c.s, got.memory, want.memory, fmt::format("{} {}", what, c.k.name));
  if (print) c.t.out("{} {} {} {}", c.s.name, what, c.k.name, digest(got.memory));
}

void bcast(Ctx& c, int root, int count) {
  const std::vector<int> data = values_of(c.k, 40, root, count);
  Laid buf = c.s.rank == root ? laid(c.k, count, data) : lay_out(c.k, count);
  ok(c.t, c.s, capi::Bcast(buf.buf(), count, c.k.type, root, c.s.comm), "Bcast");
  report(c, buf, laid(c.k, count, data), fmt::format("bcast root={} count={}", root, count));
}

void allgather(Ctx& c, int count) {
  if (c.k.downwards() && !kEndpoints && !kReference.gathers_downwards) return;
  Laid send = laid(c.k, count, values_of(c.k, 41, c.s.rank, count));
  Laid recv = lay_out(c.k, count * c.s.size);
  ok(c.t, c.s, capi::Allgather(send.buf(), count, c.k.type, recv.buf(), count, c.k.type, c.s.comm),
     "Allgather");
  std::vector<int> all;
  for (int r = 0; r < c.s.size; ++r) {
    const std::vector<int> v = values_of(c.k, 41, r, count);
    all.insert(all.end(), v.begin(), v.end());
  }
  report(c, recv, laid(c.k, count * c.s.size, all), fmt::format("allgather count={}", count),
         !c.k.downwards() || kReference.gathers_downwards);
}

void gather(Ctx& c, int root, int count) {
  if (c.k.downwards() && !kEndpoints && !kReference.gathers_downwards) return;
  Laid send = laid(c.k, count, values_of(c.k, 42, c.s.rank, count));
  const bool at_root = c.s.rank == root;
  Laid recv = lay_out(c.k, at_root ? count * c.s.size : 1);
  ok(c.t, c.s,
     capi::Gather(send.buf(), count, c.k.type, recv.buf(), count, c.k.type, root, c.s.comm),
     "Gather");
  if (!at_root) return;
  std::vector<int> all;
  for (int r = 0; r < c.s.size; ++r) {
    const std::vector<int> v = values_of(c.k, 42, r, count);
    all.insert(all.end(), v.begin(), v.end());
  }
  report(c, recv, laid(c.k, count * c.s.size, all),
         fmt::format("gather root={} count={}", root, count),
         !c.k.downwards() || kReference.gathers_downwards);
}

void scatter(Ctx& c, int root, int count) {
  std::vector<int> all;
  for (int r = 0; r < c.s.size; ++r) {
    const std::vector<int> v = values_of(c.k, 43, r, count);
    all.insert(all.end(), v.begin(), v.end());
  }
  Laid send = c.s.rank == root ? laid(c.k, count * c.s.size, all) : lay_out(c.k, 1);
  Laid recv = lay_out(c.k, count);
  ok(c.t, c.s,
     capi::Scatter(send.buf(), count, c.k.type, recv.buf(), count, c.k.type, root, c.s.comm),
     "Scatter");
  report(c, recv, laid(c.k, count, values_of(c.k, 43, c.s.rank, count)),
         fmt::format("scatter root={} count={}", root, count));
}

void alltoall(Ctx& c, int count) {
  // Block d of rank r's send buffer: values(44 + d, r, ...).
  std::vector<int> mine;
  std::vector<int> want;
  for (int d = 0; d < c.s.size; ++d) {
    const std::vector<int> to_d = values_of(c.k, 44 + d, c.s.rank, count);
    mine.insert(mine.end(), to_d.begin(), to_d.end());
    const std::vector<int> from_d = values_of(c.k, 44 + c.s.rank, d, count);
    want.insert(want.end(), from_d.begin(), from_d.end());
  }
  Laid send = laid(c.k, count * c.s.size, mine);
  Laid recv = lay_out(c.k, count * c.s.size);
  ok(c.t, c.s, capi::Alltoall(send.buf(), count, c.k.type, recv.buf(), count, c.k.type, c.s.comm),
     "Alltoall");
  report(c, recv, laid(c.k, count * c.s.size, want), fmt::format("alltoall count={}", count));
}

// Rank r sends to r + 1 and receives from r - 1; on endpoints, between the
// ranks of one process, small messages go eager and large ones rendezvous.
// Then a message to oneself.
void messages(Ctx& c, int count) {
  const int next = (c.s.rank + 1) % c.s.size;
  const int previous = (c.s.rank + c.s.size - 1) % c.s.size;
  Laid send = laid(c.k, count, values_of(c.k, 45, c.s.rank, count));
  Laid recv = lay_out(c.k, count);
  ok(c.t, c.s,
     api::Sendrecv(send.buf(), count, c.k.type, next, 9, recv.buf(), count, c.k.type, previous, 9,
                   c.s.comm, api::STATUS_IGNORE),
     "Sendrecv");
  report(c, recv, laid(c.k, count, values_of(c.k, 45, previous, count)),
         fmt::format("message from rank-1 count={}", count));
  Laid self = lay_out(c.k, count);
  ok(c.t, c.s,
     api::Sendrecv(send.buf(), count, c.k.type, c.s.rank, 10, self.buf(), count, c.k.type, c.s.rank,
                   10, c.s.comm, api::STATUS_IGNORE),
     "Sendrecv to self");
  report(c, self, send, fmt::format("message to self count={}", count));
}

void run_over(Context& t, const Sub& s, const Kind& k) {
  Ctx c{t, s, k};
  // 20000 ints or more: beyond a Bcast mailbox and the eager limit.
  for (const int count : {3, 20000}) {
    bcast(c, 0, count);
    bcast(c, s.size - 1, count);
    messages(c, count);
  }
  for (const int count : {1, 2000}) {
    allgather(c, count);
    gather(c, s.size - 1, count);
    scatter(c, 0, count);
    alltoall(c, count);
  }
}

// inout[i] += in[i], int by int, through the datatype's own layout: its
// first int at true_lb and, for two ints, its last at true_lb + true_extent
// - 4.
void add(void* in, void* inout, int* len, MPI_Datatype* type) {
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  int size = 0;
  MPI_Type_get_extent(*type, &lb, &extent);
  MPI_Type_get_true_extent(*type, &true_lb, &true_extent);
  MPI_Type_size(*type, &size);
  for (int i = 0; i < *len; ++i) {
    auto* a = static_cast<char*>(in) + i * extent;
    auto* b = static_cast<char*>(inout) + i * extent;
    *reinterpret_cast<int*>(b + true_lb) += *reinterpret_cast<int*>(a + true_lb);
    if (size == 8) {
      const MPI_Aint last = true_lb + true_extent - 4;
      *reinterpret_cast<int*>(b + last) += *reinterpret_cast<int*>(a + last);
    }
  }
}

// On an inter-communicator of even and odd ranks: Bcast from rank 0 of the
// even group, Allgather and Allreduce of the other group's data. Endpoints
// only (the reference MPIs cannot reduce these types), so nothing printed.
void inter(Context& t, const std::vector<Kind>& kinds) {
  if (!kEndpoints || t.size() < 2) return;
  const int group = t.rank() % 2;
  capi::Comm local{};
  capi::Comm inter{};
  t.check_rc(capi::Comm_split(t.comm(), group, t.rank(), &local), "Comm_split");
  t.check_rc(capi::Intercomm_create(local, 0, t.comm(), 1 - group, 60, &inter), "Intercomm_create");
  const int rank = t.rank() / 2;
  const int remote = group == 0 ? t.size() / 2 : (t.size() + 1) / 2;
  const auto remote_world = [&](int r) { return 2 * r + (1 - group); };
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(add, 1, &op);
  const Sub s{inter, "inter", rank, remote};
  for (const Kind& k : kinds) {
    Ctx c{t, s, k};
    for (const int count : {3, 5000}) {
      const std::vector<int> data = values_of(k, 50, 0, count);
      Laid buf = group == 0 && rank == 0 ? laid(k, count, data) : lay_out(k, count);
      const int root = group == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
      ok(t, s, capi::Bcast(buf.buf(), count, k.type, root, inter), "inter Bcast");
      if (group == 1) report(c, buf, laid(k, count, data), "bcast", false);

      Laid send = laid(k, count, values_of(k, 51, t.rank(), count));
      Laid all = lay_out(k, count * remote);
      ok(t, s, capi::Allgather(send.buf(), count, k.type, all.buf(), count, k.type, inter),
         "inter Allgather");
      std::vector<int> want;
      std::vector<int> sum(static_cast<std::size_t>(count * k.ints()), 0);
      for (int r = 0; r < remote; ++r) {
        const std::vector<int> v = values_of(k, 51, remote_world(r), count);
        want.insert(want.end(), v.begin(), v.end());
        for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
      }
      report(c, all, laid(k, count * remote, want), "allgather", false);

      Laid reduced = lay_out(k, count);
      ok(t, s, capi::Allreduce(send.buf(), reduced.buf(), count, k.type, op, inter),
         "inter Allreduce");
      report(c, reduced, laid(k, count, sum), "allreduce", false);
    }
  }
  MPI_Op_free(&op);
  t.check_rc(capi::Comm_free(&inter), "Comm_free");
  t.check_rc(capi::Comm_free(&local), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  MPI_Datatype reversed = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(MPI_INT, 0, -static_cast<MPI_Aint>(sizeof(int)), &reversed);
  MPI_Type_commit(&reversed);
  MPI_Datatype below = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, -2, MPI_INT, &below);
  MPI_Type_commit(&below);
  MPI_Datatype both = MPI_DATATYPE_NULL;
  MPI_Type_create_resized(below, -2 * static_cast<MPI_Aint>(sizeof(int)),
                          -3 * static_cast<MPI_Aint>(sizeof(int)), &both);
  MPI_Type_commit(&both);

  const std::vector<Kind> kinds{{"int-extent-4", reversed, -1, {0}},
                                {"vector-stride-2", below, 3, {-2, 0}},
                                {"vector-extent-12", both, -3, {-2, 0}}};
  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    if (!selected(t, s)) continue;
    for (const Kind& k : kinds) run_over(t, s, k);
  }
  free_subs(t, subs);
  inter(t, kinds);

  MPI_Type_free(&both);
  MPI_Type_free(&below);
  MPI_Type_free(&reversed);
}
