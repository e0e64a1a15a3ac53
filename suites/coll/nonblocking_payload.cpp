// coll.nonblocking's payloads: every I-function once per pair of element
// kinds (ints and a vector type, on either side) and size (none, a few ints,
// 8 KiB a block), with roots other than 0, the in-place forms, and uneven
// counts (zeros among them) at displacements in reverse rank order with gaps;
// then the reductions again with a non-commutative op. Each result is
// checked against values computed here and printed as a digest.
#include <algorithm>
#include <array>
#include <numeric>

#include "nonblocking.hpp"
#include "reference_mpi.hpp"

namespace eptest::coll::nb {

namespace {

constexpr std::array<int, 3> kSizes{0, 6, 2048};  // ints a block, multiples of 2

// One transfer: the kinds of the sending and the receiving side, the ints a
// block, the root, and the step that seeds the data.
struct Case {
  const Kind& send;
  const Kind& recv;
  int ints;
  int root;
  int step;
  bool in_place;
  std::string tag() const {
    return fmt::format("{}>{} ints={} root={}{}", send.name, recv.name, ints, root,
                       in_place ? " in_place" : "");
  }
};

void report(Context& t, const Sub& s, const std::vector<int>& got, const std::vector<int>& want,
            const std::string& what) {
  same(t, s, got, want, what);
  t.out("{} {} {}", s.name, what, digest(got));
}

// Rank `from`'s block for rank `to`.
std::vector<int> block(int step, int from, int to, int ints) {
  return values(step, from * 64 + to, ints);
}

// Uneven counts (in ints, zeros among them) and a count per pair of ranks
// that is symmetric, as the in-place Alltoallv needs.
// Both multiples of 2 for the vector type, ints / 3 being one.
int uneven_ints(int rank, int ints) { return uneven_count(rank, ints / 3); }
int pair_ints(int step, int a, int b, int ints) {
  return ((a + b) * 3 + a * b + step) % 4 * (ints / 3);
}

// Element displacements for blocks of `counts` elements: the blocks in
// reverse rank order, one element of gap after each. Returns the span.
int reversed_displs(const std::vector<int>& counts, std::vector<int>& displs) {
  displs.assign(counts.size(), 0);
  int at = 0;
  for (std::size_t q = counts.size(); q-- > 0;) {
    displs[q] = at;
    at += counts[q] + 1;
  }
  return at;
}

void bcast(Context& t, const Sub& s, const Case& c) {
  const Kind& k = s.rank == c.root ? c.send : c.recv;
  const std::vector<int> data = values(c.step, c.root, c.ints);
  std::vector<int> buf = s.rank == c.root ? lay(k, data) : blank(k, c.ints / k.sig);
  capi::Request r{};
  ok(t, s, capi::Ibcast(buf.data(), c.ints / k.sig, k.type, c.root, s.comm, &r), "Ibcast");
  complete(t, s, r, "Ibcast");
  report(t, s, buf, lay(k, data), "ibcast " + c.tag());
}

void gather(Context& t, const Sub& s, const Case& c, bool all) {
  const int n = c.ints / c.recv.sig;  // elements a block at the receiver
  const bool in_place = c.in_place && (all || s.rank == c.root);
  std::vector<int> recv = blank(c.recv, n * s.size);
  std::vector<int> want = recv;
  for (int q = 0; q < s.size; ++q) put(c.recv, want, q * n, values(c.step, q, c.ints));
  const std::vector<int> send = lay(c.send, values(c.step, s.rank, c.ints));
  if (in_place) put(c.recv, recv, s.rank * n, values(c.step, s.rank, c.ints));
  const void* sb = in_place ? MPI_IN_PLACE : send.data();
  const int sn = c.ints / c.send.sig;
  capi::Request r{};
  const std::string call = all ? "Iallgather" : "Igather";
  ok(t, s,
     all ? capi::Iallgather(sb, sn, c.send.type, recv.data(), n, c.recv.type, s.comm, &r)
         : capi::Igather(sb, sn, c.send.type, recv.data(), n, c.recv.type, c.root, s.comm, &r),
     call);
  complete(t, s, r, call);
  if (all || s.rank == c.root)
    report(t, s, recv, want, (all ? "iallgather " : "igather ") + c.tag());
}

void gatherv(Context& t, const Sub& s, const Case& c, bool all) {
  std::vector<int> counts;  // elements at the receiver
  for (int q = 0; q < s.size; ++q) counts.push_back(uneven_ints(q, c.ints) / c.recv.sig);
  std::vector<int> displs;
  const int span = reversed_displs(counts, displs);
  const int mine = uneven_ints(s.rank, c.ints);
  const bool in_place = c.in_place && (all || s.rank == c.root);
  std::vector<int> recv = blank(c.recv, span);
  std::vector<int> want = recv;
  for (int q = 0; q < s.size; ++q)
    put(c.recv, want, displs[q], values(c.step, q, uneven_ints(q, c.ints)));
  const std::vector<int> send = lay(c.send, values(c.step, s.rank, mine));
  if (in_place) put(c.recv, recv, displs[s.rank], values(c.step, s.rank, mine));
  const void* sb = in_place ? MPI_IN_PLACE : send.data();
  const int sn = mine / c.send.sig;
  capi::Request r{};
  const std::string call = all ? "Iallgatherv" : "Igatherv";
  ok(t, s,
     all ? capi::Iallgatherv(sb, sn, c.send.type, recv.data(), counts.data(), displs.data(),
                             c.recv.type, s.comm, &r)
         : capi::Igatherv(sb, sn, c.send.type, recv.data(), counts.data(), displs.data(),
                          c.recv.type, c.root, s.comm, &r),
     call);
  complete(t, s, r, call);
  if (all || s.rank == c.root)
    report(t, s, recv, want, (all ? "iallgatherv " : "igatherv ") + c.tag());
}

void scatter(Context& t, const Sub& s, const Case& c) {
  const int n = c.ints / c.send.sig;  // elements a block at the root
  const bool root = s.rank == c.root;
  std::vector<int> send;
  if (root) {
    send = blank(c.send, n * s.size);
    for (int q = 0; q < s.size; ++q) put(c.send, send, q * n, block(c.step, c.root, q, c.ints));
  }
  const std::vector<int> sent = send;
  std::vector<int> recv = blank(c.recv, c.ints / c.recv.sig);
  void* rb = c.in_place && root ? MPI_IN_PLACE : recv.data();
  capi::Request r{};
  ok(t, s,
     capi::Iscatter(send.data(), n, c.send.type, rb, c.ints / c.recv.sig, c.recv.type, c.root,
                    s.comm, &r),
     "Iscatter");
  complete(t, s, r, "Iscatter");
  if (c.in_place && root) {
    report(t, s, send, sent, "iscatter " + c.tag());  // its own block stays
  } else {
    report(t, s, recv, lay(c.recv, block(c.step, c.root, s.rank, c.ints)), "iscatter " + c.tag());
  }
}

void scatterv(Context& t, const Sub& s, const Case& c) {
  const bool root = s.rank == c.root;
  std::vector<int> counts;  // elements at the root
  for (int q = 0; q < s.size; ++q) counts.push_back(uneven_ints(q, c.ints) / c.send.sig);
  std::vector<int> displs;
  const int span = reversed_displs(counts, displs);
  std::vector<int> send;
  if (root) {
    send = blank(c.send, span);
    for (int q = 0; q < s.size; ++q)
      put(c.send, send, displs[q], block(c.step, c.root, q, uneven_ints(q, c.ints)));
  }
  const std::vector<int> sent = send;
  const int mine = uneven_ints(s.rank, c.ints);
  std::vector<int> recv = blank(c.recv, mine / c.recv.sig);
  void* rb = c.in_place && root ? MPI_IN_PLACE : recv.data();
  capi::Request r{};
  ok(t, s,
     capi::Iscatterv(send.data(), counts.data(), displs.data(), c.send.type, rb, mine / c.recv.sig,
                     c.recv.type, c.root, s.comm, &r),
     "Iscatterv");
  complete(t, s, r, "Iscatterv");
  if (c.in_place && root) {
    report(t, s, send, sent, "iscatterv " + c.tag());
  } else {
    report(t, s, recv, lay(c.recv, block(c.step, c.root, s.rank, mine)), "iscatterv " + c.tag());
  }
}

void alltoall(Context& t, const Sub& s, const Case& c) {
  const int sn = c.ints / c.send.sig;
  const int rn = c.ints / c.recv.sig;
  std::vector<int> send = blank(c.send, sn * s.size);
  std::vector<int> recv = blank(c.recv, rn * s.size);
  std::vector<int> want = recv;
  for (int q = 0; q < s.size; ++q) {
    put(c.send, send, q * sn, block(c.step, s.rank, q, c.ints));
    if (c.in_place) put(c.recv, recv, q * rn, block(c.step, s.rank, q, c.ints));
    put(c.recv, want, q * rn, block(c.step, q, s.rank, c.ints));
  }
  capi::Request r{};
  ok(t, s,
     capi::Ialltoall(c.in_place ? MPI_IN_PLACE : send.data(), sn, c.send.type, recv.data(), rn,
                     c.recv.type, s.comm, &r),
     "Ialltoall");
  complete(t, s, r, "Ialltoall");
  report(t, s, recv, want, "ialltoall " + c.tag());
}

void alltoallv(Context& t, const Sub& s, const Case& c) {
  // Checked on endpoints; printed where the reference can answer.
  const bool printed = !c.in_place || !reference::kInPlaceIalltoallvWithIdleRankHangs;
  if (!kEndpoints && !printed) return;
  std::vector<int> scounts, rcounts;  // elements
  for (int q = 0; q < s.size; ++q) {
    scounts.push_back(pair_ints(c.step, s.rank, q, c.ints) / c.send.sig);
    rcounts.push_back(pair_ints(c.step, q, s.rank, c.ints) / c.recv.sig);
  }
  std::vector<int> sdispls, rdispls;
  std::vector<int> send = blank(c.send, reversed_displs(scounts, sdispls));
  std::vector<int> recv = blank(c.recv, reversed_displs(rcounts, rdispls));
  std::vector<int> want = recv;
  for (int q = 0; q < s.size; ++q) {
    put(c.send, send, sdispls[q], block(c.step, s.rank, q, scounts[q] * c.send.sig));
    if (c.in_place)
      put(c.recv, recv, rdispls[q], block(c.step, s.rank, q, rcounts[q] * c.recv.sig));
    put(c.recv, want, rdispls[q], block(c.step, q, s.rank, rcounts[q] * c.recv.sig));
  }
  capi::Request r{};
  ok(t, s,
     capi::Ialltoallv(c.in_place ? MPI_IN_PLACE : send.data(), scounts.data(), sdispls.data(),
                      c.send.type, recv.data(), rcounts.data(), rdispls.data(), c.recv.type, s.comm,
                      &r),
     "Ialltoallv");
  complete(t, s, r, "Ialltoallv");
  same(t, s, recv, want, "ialltoallv " + c.tag());
  if (printed) t.out("{} ialltoallv {} {}", s.name, c.tag(), digest(recv));
}

// A kind per peer: ints to even ranks and the vector type to odd ones on the
// sending side, the other way round on the receiving side; displacements in
// bytes, blocks in reverse rank order.
void alltoallw(Context& t, const Sub& s, const Kind& ints, const Kind& vec, int size, int step) {
  const std::size_t n = static_cast<std::size_t>(s.size);
  std::vector<int> scounts(n), rcounts(n), sdispls(n), rdispls(n);
  std::vector<MPI_Datatype> stypes(n), rtypes(n);
  std::vector<int> send, recv, want;
  // Appends a block of `count` elements of `k` (one int of gap after it) and
  // returns its displacement in bytes.
  const auto append = [](std::vector<int>& buf, const Kind& k, int count) {
    const std::size_t at = buf.size();
    buf.resize(at + static_cast<std::size_t>(count * k.slot() + 1), -1);
    return static_cast<int>(at * sizeof(int));
  };
  const auto fill = [](std::vector<int>& buf, const Kind& k, int displ,
                       const std::vector<int>& data) {
    std::vector<int> part = lay(k, data);
    std::copy(part.begin(), part.end(), buf.begin() + displ / static_cast<int>(sizeof(int)));
  };
  for (int q = s.size - 1; q >= 0; --q) {
    const Kind& sk = q % 2 == 0 ? ints : vec;
    const Kind& rk = q % 2 == 0 ? vec : ints;
    scounts[q] = pair_ints(step, s.rank, q, size) / sk.sig;
    rcounts[q] = pair_ints(step, q, s.rank, size) / rk.sig;
    stypes[q] = sk.type;
    rtypes[q] = rk.type;
    sdispls[q] = append(send, sk, scounts[q]);
    rdispls[q] = append(recv, rk, rcounts[q]);
    fill(send, sk, sdispls[q], block(step, s.rank, q, scounts[q] * sk.sig));
  }
  want = recv;
  for (int q = 0; q < s.size; ++q) {
    const Kind& rk = q % 2 == 0 ? vec : ints;
    fill(want, rk, rdispls[q], block(step, q, s.rank, rcounts[q] * rk.sig));
  }
  capi::Request r{};
  ok(t, s,
     capi::Ialltoallw(send.data(), scounts.data(), sdispls.data(), stypes.data(), recv.data(),
                      rcounts.data(), rdispls.data(), rtypes.data(), s.comm, &r),
     "Ialltoallw");
  complete(t, s, r, "Ialltoallw");
  report(t, s, recv, want, fmt::format("ialltoallw ints={}", size));
}

// The element-wise sum over ranks [first, last) of values(step, q, ...).
std::vector<int> sum(int step, int first, int last, int from, int count) {
  std::vector<int> total(static_cast<std::size_t>(count), 0);
  for (int q = first; q < last; ++q) {
    for (int i = 0; i < count; ++i) total[static_cast<std::size_t>(i)] += value(step, q, from + i);
  }
  return total;
}

void reductions(Context& t, const Sub& s, int size, int root, int step, bool in_place) {
  const std::string tag = fmt::format("ints={}{}", size, in_place ? " in_place" : "");
  const std::vector<int> mine = values(step, s.rank, size);
  capi::Request r{};

  std::vector<int> out = in_place && s.rank == root ? mine : std::vector<int>(mine.size(), -1);
  ok(t, s,
     capi::Ireduce(in_place && s.rank == root ? MPI_IN_PLACE : mine.data(), out.data(), size,
                   MPI_INT, MPI_SUM, root, s.comm, &r),
     "Ireduce");
  complete(t, s, r, fmt::format("Ireduce root={} {}", root, tag));
  if (s.rank == root)
    report(t, s, out, sum(step, 0, s.size, 0, size), fmt::format("ireduce root={} {}", root, tag));

  out = in_place ? mine : std::vector<int>(mine.size(), -1);
  ok(t, s,
     capi::Iallreduce(in_place ? MPI_IN_PLACE : mine.data(), out.data(), size, MPI_INT, MPI_SUM,
                      s.comm, &r),
     "Iallreduce");
  complete(t, s, r, "Iallreduce " + tag);
  report(t, s, out, sum(step, 0, s.size, 0, size), "iallreduce " + tag);

  for (const bool exclusive : {false, true}) {
    out = in_place ? mine : std::vector<int>(mine.size(), -1);
    const void* sb = in_place ? MPI_IN_PLACE : mine.data();
    const std::string call = exclusive ? "Iexscan" : "Iscan";
    ok(t, s,
       exclusive ? capi::Iexscan(sb, out.data(), size, MPI_INT, MPI_SUM, s.comm, &r)
                 : capi::Iscan(sb, out.data(), size, MPI_INT, MPI_SUM, s.comm, &r),
       call);
    complete(t, s, r, call + " " + tag);
    if (exclusive && s.rank == 0) continue;  // undefined there
    report(t, s, out, sum(step, 0, exclusive ? s.rank : s.rank + 1, 0, size),
           (exclusive ? "iexscan " : "iscan ") + tag);
  }

  for (const bool blocks : {false, true}) {
    std::vector<int> counts;
    for (int q = 0; q < s.size; ++q) counts.push_back(blocks ? size : uneven_ints(q, size));
    const int total = std::accumulate(counts.begin(), counts.end(), 0);
    const int first = std::accumulate(counts.begin(), counts.begin() + s.rank, 0);
    const int n = counts[static_cast<std::size_t>(s.rank)];
    std::vector<int> all = values(step, s.rank, total);
    out.assign(static_cast<std::size_t>(n), -1);
    void* rb = in_place ? all.data() : out.data();
    const void* sb = in_place ? MPI_IN_PLACE : all.data();
    const std::string call = blocks ? "Ireduce_scatter_block" : "Ireduce_scatter";
    ok(t, s,
       blocks ? capi::Ireduce_scatter_block(sb, rb, n, MPI_INT, MPI_SUM, s.comm, &r)
              : capi::Ireduce_scatter(sb, rb, counts.data(), MPI_INT, MPI_SUM, s.comm, &r),
       call);
    complete(t, s, r, call + " " + tag);
    if (in_place) out.assign(all.begin(), all.begin() + n);
    report(t, s, out, sum(step, 0, s.size, first, n),
           (blocks ? "ireduce_scatter_block " : "ireduce_scatter ") + tag);
  }
}

// inout[k] = in[k] * inout[k]: `in` holds the lower ranks' product. The
// elements are 4 ints in a slot of 5 (the fifth must stay untouched).
void multiply(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int k = 0; k < *len; ++k) {
    const int* x = static_cast<const int*>(in) + 5 * k;
    int* y = static_cast<int*>(inout) + 5 * k;
    const Mat product = mul({x[0], x[1], x[2], x[3]}, {y[0], y[1], y[2], y[3]});
    std::copy(product.begin(), product.end(), y);
  }
}

// In slots of 5 ints with -9 as padding: matrices [first, first + count)
// of rank `rank`, or (product) their product over ranks [0, ranks).
std::vector<int> slots(const std::vector<Mat>& m) {
  std::vector<int> buf(m.size() * 5, -9);
  for (std::size_t i = 0; i < m.size(); ++i)
    std::copy(m[i].begin(), m[i].end(), buf.begin() + 5 * i);
  return buf;
}
std::vector<int> mats(int step, int rank, int first, int count) {
  std::vector<Mat> m;
  for (int i = first; i < first + count; ++i) m.push_back(matrix(step, rank, i));
  return slots(m);
}
std::vector<int> product(int step, int ranks, int first, int count) {
  std::vector<Mat> m(static_cast<std::size_t>(count), Mat{1, 0, 0, 1});
  for (int q = 0; q < ranks; ++q) {
    for (int i = 0; i < count; ++i) m[i] = mul(m[i], matrix(step, q, first + i));
  }
  return slots(m);
}

}  // namespace

void noncommutative(Context& t, const Sub& s) {
  MPI_Datatype mat = MPI_DATATYPE_NULL;
  MPI_Datatype padded = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_create_resized(mat, 0, 5 * sizeof(int), &padded);
  MPI_Type_commit(&padded);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(multiply, 0, &op);
  capi::Request r{};
  for (const int count : {1, 300}) {
    const int step = 60 + count;
    for (const bool in_place : {false, true}) {
      const std::string tag = fmt::format("mats={}{}", count, in_place ? " in_place" : "");
      const std::vector<int> mine = mats(step, s.rank, 0, count);
      const std::vector<int> all = product(step, s.size, 0, count);
      const std::vector<int> blank(mine.size(), -9);
      for (const int root : {0, s.size - 1}) {
        const bool here = s.rank == root;
        std::vector<int> out = in_place && here ? mine : blank;
        ok(t, s,
           capi::Ireduce(in_place && here ? MPI_IN_PLACE : mine.data(), out.data(), count, padded,
                         op, root, s.comm, &r),
           "Ireduce");
        complete(t, s, r, fmt::format("Ireduce root={} {}", root, tag));
        if (here)
          report(t, s, out, all, fmt::format("noncommutative ireduce root={} {}", root, tag));
      }
      std::vector<int> out = in_place ? mine : blank;
      const void* sb = in_place ? MPI_IN_PLACE : mine.data();
      ok(t, s, capi::Iallreduce(sb, out.data(), count, padded, op, s.comm, &r), "Iallreduce");
      complete(t, s, r, "Iallreduce " + tag);
      report(t, s, out, all, "noncommutative iallreduce " + tag);
      for (const bool exclusive : {false, true}) {
        out = in_place ? mine : blank;
        const std::string call = exclusive ? "Iexscan" : "Iscan";
        ok(t, s,
           exclusive ? capi::Iexscan(sb, out.data(), count, padded, op, s.comm, &r)
                     : capi::Iscan(sb, out.data(), count, padded, op, s.comm, &r),
           call);
        complete(t, s, r, call + " " + tag);
        if (exclusive && s.rank == 0) continue;
        report(t, s, out, product(step, exclusive ? s.rank : s.rank + 1, 0, count),
               "noncommutative " + call + " " + tag);
      }
      // Ireduce_scatter with uneven counts, Ireduce_scatter_block with `count`.
      for (const bool blocks : {false, true}) {
        // Checked on endpoints; printed where the reference can answer.
        const bool printed = !blocks || !reference::kIreduceScatterBlockNoncommutativeWrong;
        if (!kEndpoints && !printed) continue;
        std::vector<int> counts;
        for (int q = 0; q < s.size; ++q) counts.push_back(blocks ? count : uneven_count(q, count));
        const int total = std::accumulate(counts.begin(), counts.end(), 0);
        const int first = std::accumulate(counts.begin(), counts.begin() + s.rank, 0);
        const int n = counts[static_cast<std::size_t>(s.rank)];
        std::vector<int> input = mats(step, s.rank, 0, total);
        out.assign(static_cast<std::size_t>(n) * 5, -9);
        const std::string call = blocks ? "Ireduce_scatter_block" : "Ireduce_scatter";
        void* rb = in_place ? input.data() : out.data();
        const void* in = in_place ? MPI_IN_PLACE : input.data();
        ok(t, s,
           blocks ? capi::Ireduce_scatter_block(in, rb, n, padded, op, s.comm, &r)
                  : capi::Ireduce_scatter(in, rb, counts.data(), padded, op, s.comm, &r),
           call);
        complete(t, s, r, call + " " + tag);
        if (in_place) out.assign(input.begin(), input.begin() + 5 * n);
        same(t, s, out, product(step, s.size, first, n), "noncommutative " + call + " " + tag);
        if (printed) t.out("{} noncommutative {} {} {}", s.name, call, tag, digest(out));
      }
    }
  }
  MPI_Op_free(&op);
  MPI_Type_free(&padded);
  MPI_Type_free(&mat);
}

void payloads(Context& t, const Sub& s, const Kind& ints, const Kind& vec) {
  capi::Request r{};
  ok(t, s, capi::Ibarrier(s.comm, &r), "Ibarrier");
  complete(t, s, r, "Ibarrier");
  t.out("{} ibarrier", s.name);

  const std::array<std::pair<const Kind*, const Kind*>, 3> pairs{
      {{&ints, &ints}, {&vec, &ints}, {&ints, &vec}}};
  int step = 40;
  for (const auto& [send, recv] : pairs) {
    for (const int size : kSizes) {
      ++step;
      const Case c{*send, *recv, size, step % s.size, step, false};
      bcast(t, s, c);
      for (const bool in_place : {false, true}) {
        // In place the send side's kind plays no part: once is enough.
        if (in_place && send != &ints) continue;
        Case d = c;
        d.in_place = in_place;
        gather(t, s, d, false);
        gather(t, s, d, true);
        gatherv(t, s, d, false);
        gatherv(t, s, d, true);
        scatter(t, s, d);
        scatterv(t, s, d);
        alltoall(t, s, d);
        alltoallv(t, s, d);
      }
    }
  }
  for (const int size : kSizes) {
    alltoallw(t, s, ints, vec, size, ++step);
    for (const bool in_place : {false, true}) {
      ++step;
      reductions(t, s, size, step % s.size, step, in_place);
    }
  }
}

}  // namespace eptest::coll::nb
