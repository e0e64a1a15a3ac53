// The collectives on inter-communicators (MPI 4.0, 6.2.2), and Alltoallw on
// intra- and inter-communicators. Two inter-communicators over the test's
// ranks: "parity" (even and odd ranks, whose groups share processes) and
// "halves" (first and second half, on "2,2" on different processes). From
// each group and every root: Gather(v), Scatter(v) and Reduce (with a
// non-commutative op) with MPI_ROOT and MPI_PROC_NULL; Allgatherv,
// Alltoall(v), Allreduce, Reduce_scatter(_block); Alltoallw with a datatype
// per peer (contiguous, a pair, a strided pair) and byte displacements with
// gaps, also in place on the intra-communicators; counts that vary per pair
// of ranks, zeros included; and the error classes of bad roots (and, on
// endpoints, of MPI_IN_PLACE and Scan). Last, Comm_split of each
// inter-communicator, with a collective on the result.
// Every result is checked against values computed here and printed as a
// digest, so that the plain-MPI run must print the same lines.
#include <algorithm>
#include <numeric>

#include "coll_test.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

constexpr int kModulus = 1009;

// The root argument of a rooted collective whose root is rank `root` of
// group `root_group`.
int root_arg(const Inter& x, int root_group, int root) {
  if (x.group != root_group) return root;
  return x.rank == root ? MPI_ROOT : MPI_PROC_NULL;
}

// Counts that vary per pair of ranks, with zeros.
int pair_count(int step, int from, int to) { return (step * 7 + from * 5 + to * 3) % 4; }

// Displacements of blocks of `counts` with a gap of one element after each.
std::vector<int> gapped(const std::vector<int>& counts) {
  std::vector<int> displs;
  int at = 0;
  for (const int c : counts) {
    displs.push_back(at);
    at += c + 1;
  }
  return displs;
}
int span(const std::vector<int>& counts) {
  return std::accumulate(counts.begin(), counts.end(), 0) + static_cast<int>(counts.size());
}

// The data of block `block` from test rank `from`.
std::vector<int> block_values(int step, int from, int block, int count) {
  return values(step, from * 64 + block, count);
}

// Receive buffers start at -1; the blocks land at their displacements.
std::vector<int> placed(int step, const std::vector<int>& from, int block,
                        const std::vector<int>& counts, const std::vector<int>& displs, int size) {
  std::vector<int> want(static_cast<std::size_t>(size), -1);
  for (std::size_t q = 0; q < from.size(); ++q) {
    const std::vector<int> v = block_values(step, from[q], block, counts[q]);
    std::copy(v.begin(), v.end(), want.begin() + displs[q]);
  }
  return want;
}

void report(Context& t, const Inter& x, const std::vector<int>& got, const std::vector<int>& want,
            const std::string& what) {
  same(t, x.sub(), got, want, what);
  t.out("{} {} {}", x.name, what, digest(got));
}

void rooted(Context& t, const Inter& x, int step, int root_group, int root) {
  const int arg = root_arg(x, root_group, root);
  const std::string at = fmt::format("root {}:{}", root_group, root);
  const Sub s = x.sub();
  const int n = x.remote();
  std::vector<int> from(x.other);

  // Gather and Gatherv: the senders' blocks land at the root.
  const int c = 1 + (step + root) % 3;
  const std::vector<int> equal(static_cast<std::size_t>(n), c);
  std::vector<int> displs(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) displs[static_cast<std::size_t>(q)] = q * c;
  std::vector<int> send = block_values(step, x.me(), 0, c);
  std::vector<int> recv(static_cast<std::size_t>(n * c), -1);
  ok(t, s, capi::Gather(send.data(), c, MPI_INT, recv.data(), c, MPI_INT, arg, x.comm), "Gather");
  if (arg == MPI_ROOT)
    report(t, x, recv, placed(step, from, 0, equal, displs, n * c), "gather " + at);

  std::vector<int> counts(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) counts[static_cast<std::size_t>(q)] = pair_count(step, from[q], 0);
  displs = gapped(counts);
  const int mine = pair_count(step, x.me(), 0);
  send = block_values(step, x.me(), 0, mine);
  recv.assign(static_cast<std::size_t>(span(counts)), -1);
  ok(t, s,
     capi::Gatherv(send.data(), mine, MPI_INT, recv.data(), counts.data(), displs.data(), MPI_INT,
                   arg, x.comm),
     "Gatherv");
  if (arg == MPI_ROOT) {
    report(t, x, recv, placed(step, from, 0, counts, displs, span(counts)), "gatherv " + at);
  }

  // Scatter and Scatterv: block q of the root's buffer lands at remote rank q.
  const int root_rank = x.group == root_group ? x.me() : x.other[static_cast<std::size_t>(root)];
  if (arg == MPI_ROOT) {
    send.clear();
    for (int q = 0; q < n; ++q) {
      const std::vector<int> v = block_values(step + 1, x.me(), from[q], c);
      send.insert(send.end(), v.begin(), v.end());
    }
  }
  recv.assign(static_cast<std::size_t>(c), -1);
  ok(t, s, capi::Scatter(send.data(), c, MPI_INT, recv.data(), c, MPI_INT, arg, x.comm), "Scatter");
  if (arg >= 0) report(t, x, recv, block_values(step + 1, root_rank, x.me(), c), "scatter " + at);

  for (int q = 0; q < n; ++q) counts[static_cast<std::size_t>(q)] = pair_count(step, 0, from[q]);
  displs = gapped(counts);
  if (arg == MPI_ROOT) {
    send.assign(static_cast<std::size_t>(span(counts)), -2);
    for (int q = 0; q < n; ++q) {
      const std::vector<int> v = block_values(step + 2, x.me(), from[q], counts[q]);
      std::copy(v.begin(), v.end(), send.begin() + displs[q]);
    }
  }
  const int want_count = pair_count(step, 0, x.me());
  recv.assign(static_cast<std::size_t>(want_count), -1);
  ok(t, s,
     capi::Scatterv(send.data(), counts.data(), displs.data(), MPI_INT, recv.data(), want_count,
                    MPI_INT, arg, x.comm),
     "Scatterv");
  if (arg >= 0) {
    report(t, x, recv, block_values(step + 2, root_rank, x.me(), want_count), "scatterv " + at);
  }
}

// Allgatherv and Alltoall(v): each group receives the other group's blocks.
void everyone(Context& t, const Inter& x, int step) {
  const Sub s = x.sub();
  const int n = x.remote();
  std::vector<int> counts(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) counts[static_cast<std::size_t>(q)] = pair_count(step, x.other[q], 1);
  std::vector<int> displs = gapped(counts);
  const int mine = pair_count(step, x.me(), 1);
  std::vector<int> send = block_values(step, x.me(), 0, mine);
  std::vector<int> recv(static_cast<std::size_t>(span(counts)), -1);
  ok(t, s,
     capi::Allgatherv(send.data(), mine, MPI_INT, recv.data(), counts.data(), displs.data(),
                      MPI_INT, x.comm),
     "Allgatherv");
  report(t, x, recv, placed(step, x.other, 0, counts, displs, span(counts)), "allgatherv");

  constexpr int c = 2;
  send.clear();
  for (int j = 0; j < n; ++j) {
    const std::vector<int> v = block_values(step, x.me(), x.other[j], c);
    send.insert(send.end(), v.begin(), v.end());
  }
  recv.assign(static_cast<std::size_t>(n * c), -1);
  ok(t, s, capi::Alltoall(send.data(), c, MPI_INT, recv.data(), c, MPI_INT, x.comm), "Alltoall");
  std::vector<int> want;
  for (int q = 0; q < n; ++q) {
    const std::vector<int> v = block_values(step, x.other[q], x.me(), c);
    want.insert(want.end(), v.begin(), v.end());
  }
  report(t, x, recv, want, "alltoall");

  std::vector<int> send_counts(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    send_counts[static_cast<std::size_t>(j)] = pair_count(step, x.me(), x.other[j]);
    counts[static_cast<std::size_t>(j)] = pair_count(step, x.other[j], x.me());
  }
  const std::vector<int> send_displs = gapped(send_counts);
  displs = gapped(counts);
  send.assign(static_cast<std::size_t>(span(send_counts)), -2);
  for (int j = 0; j < n; ++j) {
    const std::vector<int> v = block_values(step + 1, x.me(), x.other[j], send_counts[j]);
    std::copy(v.begin(), v.end(), send.begin() + send_displs[j]);
  }
  recv.assign(static_cast<std::size_t>(span(counts)), -1);
  ok(t, s,
     capi::Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_INT, recv.data(),
                     counts.data(), displs.data(), MPI_INT, x.comm),
     "Alltoallv");
  want.assign(recv.size(), -1);
  for (int q = 0; q < n; ++q) {
    const std::vector<int> v = block_values(step + 1, x.other[q], x.me(), counts[q]);
    std::copy(v.begin(), v.end(), want.begin() + displs[q]);
  }
  report(t, x, recv, want, "alltoallv");
}

// Alltoallw's blocks: n elements of two ints, as 2n MPI_INT, n pairs, or n
// strided pairs (ints 0 and 2 of three), chosen per block.
struct Shapes {
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  MPI_Datatype type(int kind) const { return kind == 0 ? MPI_INT : kind == 1 ? pair : strided; }
  static int count(int kind, int n) { return kind == 0 ? 2 * n : n; }
  static int ints(int kind, int n) { return kind == 2 ? 3 * n : 2 * n; }
  // Writes the 2n ints of `seq` where a block of `kind` at `at` holds them.
  static void place(std::vector<int>& buf, int at, int kind, const std::vector<int>& seq) {
    for (std::size_t i = 0; i < seq.size(); ++i) {
      const std::size_t slot = kind == 2 ? (i / 2) * 3 + (i % 2) * 2 : i;
      buf[static_cast<std::size_t>(at) + slot] = seq[i];
    }
  }
};

int w_count(int step, int a, int b) { return (step + a + b) % 4; }  // symmetric, for in place

// Alltoallw among `peers` (test ranks, by rank of the receiving side), this
// endpoint being test rank `me`.
void alltoallw(Context& t, const Sub& s, const std::string& name, const Shapes& shapes, int me,
               const std::vector<int>& peers, int step, bool in_place) {
  const int n = static_cast<int>(peers.size());
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  std::vector<MPI_Datatype> stypes, rtypes;
  std::vector<int> send, recv, want;
  for (int j = 0; j < n; ++j) {
    const int elements = w_count(step, me, peers[j]);
    const int kind = (me + peers[j] + step) % 3;
    const int at = static_cast<int>(send.size());
    send.resize(send.size() + Shapes::ints(kind, elements) + 1, -2);
    Shapes::place(send, at, kind, block_values(step, me, peers[j], 2 * elements));
    scounts.push_back(Shapes::count(kind, elements));
    sdispls.push_back(at * static_cast<int>(sizeof(int)));
    stypes.push_back(shapes.type(kind));
  }
  for (int q = 0; q < n; ++q) {
    const int elements = w_count(step, peers[q], me);
    const int kind = (peers[q] * 2 + me + step) % 3;
    const int at = static_cast<int>(recv.size());
    recv.resize(recv.size() + Shapes::ints(kind, elements) + 1, -1);
    want.resize(recv.size(), -1);
    Shapes::place(want, at, kind, block_values(step, peers[q], me, 2 * elements));
    // In place, each block holds what goes to that peer.
    if (in_place) Shapes::place(recv, at, kind, block_values(step, me, peers[q], 2 * elements));
    rcounts.push_back(Shapes::count(kind, elements));
    rdispls.push_back(at * static_cast<int>(sizeof(int)));
    rtypes.push_back(shapes.type(kind));
  }
  ok(t, s,
     capi::Alltoallw(in_place ? MPI_IN_PLACE : send.data(), scounts.data(), sdispls.data(),
                     stypes.data(), recv.data(), rcounts.data(), rdispls.data(), rtypes.data(),
                     s.comm),
     "Alltoallw");
  const std::string what = in_place ? "alltoallw in place" : "alltoallw";
  same(t, s, recv, want, what);
  if (!in_place || !reference::kAlltoallwInPlaceTypesAbort) {
    t.out("{} {} {}", name, what, digest(recv));
  }
}

// x op y = x after y, for affine maps t -> a t + b modulo kModulus:
// associative, not commutative.
void compose(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* x = static_cast<const int*>(in);
  int* y = static_cast<int*>(inout);
  for (int k = 0; k < *len; ++k, x += 2, y += 2) {
    const int a = x[0] * y[0] % kModulus;
    const int b = (x[0] * y[1] + x[1]) % kModulus;
    y[0] = a;
    y[1] = b;
  }
}
std::vector<int> maps(int step, int rank, int count) {
  std::vector<int> v = values(step, rank, 2 * count);
  for (std::size_t i = 0; i < v.size(); i += 2) v[i] = v[i] % 13 + 1;
  return v;
}
// The reduction of the vectors of `ranks`, in their order.
std::vector<int> composed(int step, const std::vector<int>& ranks, int count) {
  std::vector<int> acc = maps(step, ranks[0], count);
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    std::vector<int> next = maps(step, ranks[r], count);
    int len = count;
    compose(acc.data(), next.data(), &len, nullptr);
    acc = next;
  }
  return acc;
}

void reductions(Context& t, const Inter& x, const Shapes& shapes, MPI_Op op, int step) {
  const Sub s = x.sub();
  constexpr int count = 3;
  const std::vector<int> send = maps(step, x.me(), count);
  std::vector<int> recv(2 * count, -1);
  for (int root_group = 0; root_group < 2; ++root_group) {
    const int roots = static_cast<int>(root_group == x.group ? x.mine.size() : x.other.size());
    for (int root = 0; root < roots; ++root) {
      const int arg = root_arg(x, root_group, root);
      recv.assign(recv.size(), -1);
      ok(t, s, capi::Reduce(send.data(), recv.data(), count, shapes.pair, op, arg, x.comm),
         "Reduce");
      if (arg == MPI_ROOT) {
        report(t, x, recv, composed(step, x.other, count),
               fmt::format("reduce root {}:{}", root_group, root));
      }
    }
  }
  recv.assign(recv.size(), -1);
  ok(t, s, capi::Allreduce(send.data(), recv.data(), count, shapes.pair, op, x.comm), "Allreduce");
  report(t, x, recv, composed(step, x.other, count), "allreduce");

  // Reduce_scatter: both groups' vectors have kTotal elements, scattered by
  // each group's own counts.
  constexpr int kTotal = 7;
  const int size = static_cast<int>(x.mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size));
  for (int r = 0; r + 1 < size; ++r) counts[static_cast<std::size_t>(r)] = (r + step + x.group) % 3;
  counts.back() = kTotal - std::accumulate(counts.begin(), counts.end() - 1, 0);
  const int first = std::accumulate(counts.begin(), counts.begin() + x.rank, 0);
  const std::vector<int> vector = maps(step + 1, x.me(), kTotal);
  const std::vector<int> whole = composed(step + 1, x.other, kTotal);
  recv.assign(2 * static_cast<std::size_t>(counts[x.rank]), -1);
  ok(t, s, capi::Reduce_scatter(vector.data(), recv.data(), counts.data(), shapes.pair, op, x.comm),
     "Reduce_scatter");
  report(t, x, recv,
         std::vector<int>(whole.begin() + 2 * first, whole.begin() + 2 * (first + counts[x.rank])),
         "reduce_scatter");

  // Reduce_scatter_block: a block of the remote group's size each, so that
  // both groups' vectors have size * remote elements.
  const int block = x.remote();
  const std::vector<int> blocks = maps(step + 2, x.me(), size * block);
  const std::vector<int> all = composed(step + 2, x.other, size * block);
  recv.assign(2 * static_cast<std::size_t>(block), -1);
  ok(t, s, capi::Reduce_scatter_block(blocks.data(), recv.data(), block, shapes.pair, op, x.comm),
     "Reduce_scatter_block");
  report(t, x, recv,
         std::vector<int>(all.begin() + 2 * x.rank * block, all.begin() + 2 * (x.rank + 1) * block),
         "reduce_scatter_block");
}

// Roots that are neither a remote rank, MPI_ROOT nor MPI_PROC_NULL:
// MPI_ERR_ROOT on every endpoint.
void bad_roots(Context& t, const Inter& x) {
  t.check_rc(capi::Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  for (const int bad : {x.remote(), -7}) {
    int buf[8] = {};
    const std::vector<int> counts(static_cast<std::size_t>(x.remote()), 1);
    const std::vector<int> displs(static_cast<std::size_t>(x.remote()), 0);
    const int rcs[] = {
        capi::Bcast(buf, 1, MPI_INT, bad, x.comm),
        capi::Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, bad, x.comm),
        capi::Gatherv(buf, 1, MPI_INT, buf, counts.data(), displs.data(), MPI_INT, bad, x.comm),
        capi::Scatter(buf, 1, MPI_INT, buf, 1, MPI_INT, bad, x.comm),
        capi::Scatterv(buf, counts.data(), displs.data(), MPI_INT, buf, 1, MPI_INT, bad, x.comm),
        capi::Reduce(buf, buf + 4, 1, MPI_INT, MPI_SUM, bad, x.comm)};
    for (const int rc : rcs) t.expect_class(rc, MPI_ERR_ROOT, fmt::format("root {}", bad));
  }
  t.out("{} bad roots: MPI_ERR_ROOT", x.name);
  if (!kEndpoints) return;
  // Endpoints only (the reference MPIs differ): MPI_IN_PLACE has no meaning
  // on an inter-communicator, and Scan has no inter form.
  const std::vector<int> zeros(static_cast<std::size_t>(x.remote()), 0);
  const std::vector<MPI_Datatype> types(zeros.size(), MPI_INT);
  int buf[2] = {};
  t.expect_class(capi::Alltoallw(MPI_IN_PLACE, zeros.data(), zeros.data(), types.data(), buf,
                                 zeros.data(), zeros.data(), types.data(), x.comm),
                 MPI_ERR_BUFFER, "Alltoallw in place");
  t.expect_class(capi::Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, x.comm), MPI_ERR_BUFFER,
                 "Allreduce in place");
  t.expect_class(capi::Scan(buf, buf + 1, 1, MPI_INT, MPI_SUM, x.comm), MPI_ERR_COMM, "Scan");
}

// Comm_split of an inter-communicator: each group splits on its own, and a
// color of one group alone gives COMM_NULL. Rank 1 of group 0 takes a color
// of its own, one rank of group 1 none; keys reverse each group's order.
int split_color(int group, int rank) {
  if (group == 0) return rank == 1 ? 5 : 0;
  if (group == 1 && rank == 2) return MPI_UNDEFINED;
  return rank % 2;
}
void split(Context& t, const Inter& x) {
  const int color = split_color(x.group, x.rank);
  const auto part = [&](const std::vector<int>& ranks, int group) {
    std::vector<int> members;  // test ranks, in new rank order (descending keys)
    for (int r = static_cast<int>(ranks.size()) - 1; r >= 0; --r) {
      if (split_color(group, r) == color) members.push_back(ranks[static_cast<std::size_t>(r)]);
    }
    return members;
  };
  const std::vector<int> local = part(x.mine, x.group);
  const std::vector<int> remote = part(x.other, 1 - x.group);
  capi::Comm sub{};
  ok(t, x.sub(), capi::Comm_split(x.comm, color, -x.rank, &sub), "Comm_split");
  if (color == MPI_UNDEFINED || remote.empty()) {
    t.check(sub == capi::COMM_NULL, "Comm_split of a color of one group gives COMM_NULL");
    t.out("{} split color {}: COMM_NULL", x.name,
          color == MPI_UNDEFINED ? "undefined" : std::to_string(color));
    return;
  }
  int rank = -1;
  int size = -1;
  int remote_size = -1;
  t.check_rc(capi::Comm_rank(sub, &rank), "Comm_rank");
  t.check_rc(capi::Comm_size(sub, &size), "Comm_size");
  t.check_rc(capi::Comm_remote_size(sub, &remote_size), "Comm_remote_size");
  t.expect_eq(size, static_cast<int>(local.size()), "size after the split");
  t.expect_eq(remote_size, static_cast<int>(remote.size()), "remote size after the split");
  t.expect_eq(rank, static_cast<int>(std::find(local.begin(), local.end(), x.me()) - local.begin()),
              "rank after the split");
  std::vector<int> got(remote.size(), -1);
  const int me = x.me();
  const Sub s{sub, x.name + " split", rank, size};
  ok(t, s, capi::Allgather(&me, 1, MPI_INT, got.data(), 1, MPI_INT, sub), "Allgather");
  same(t, s, got, remote, "split Allgather");
  t.out("{} split color {}: rank {} of {}, remote {}", x.name, color, rank, size, digest(got));
  t.check_rc(capi::Comm_free(&sub), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  Shapes shapes;
  MPI_Type_contiguous(2, MPI_INT, &shapes.pair);
  MPI_Type_commit(&shapes.pair);
  MPI_Type_vector(2, 1, 2, MPI_INT, &shapes.strided);
  MPI_Type_commit(&shapes.strided);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(compose, 0, &op);

  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    if (!selected(t, s)) continue;
    std::vector<int> peers(static_cast<std::size_t>(s.size));
    std::iota(peers.begin(), peers.end(), 0);
    alltoallw(t, s, s.name, shapes, s.rank, peers, 1, false);
    // Checked on endpoints; printed where the reference can answer.
    if (kEndpoints || !reference::kAlltoallwInPlaceTypesAbort) {
      alltoallw(t, s, s.name, shapes, s.rank, peers, 1, true);
    }
  }
  free_subs(t, subs);

  if (t.size() >= 2) {
    int tag = 70;
    for (const char* kind : {"parity", "halves"}) {
      Inter x = make_inter(t, kind, tag++);
      for (int root_group = 0; root_group < 2; ++root_group) {
        const int roots = static_cast<int>(root_group == x.group ? x.mine.size() : x.other.size());
        for (int root = 0; root < roots; ++root) rooted(t, x, 3 + root, root_group, root);
      }
      everyone(t, x, 4);
      alltoallw(t, x.sub(), x.name, shapes, x.me(), x.other, 5, false);
      reductions(t, x, shapes, op, 6);
      bad_roots(t, x);
      split(t, x);
      t.check_rc(capi::Comm_free(&x.comm), "Comm_free");
      t.check_rc(capi::Comm_free(&x.local), "Comm_free");
    }
  }

  MPI_Op_free(&op);
  MPI_Type_free(&shapes.strided);
  MPI_Type_free(&shapes.pair);
}
