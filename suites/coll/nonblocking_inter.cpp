// The non-blocking collectives on inter-communicators (MPI 4.0, 6.2.2 and
// 6.12): two inter-communicators over the test's ranks, "parity" (even and
// odd ranks, whose groups share processes) and "halves" (first and second
// half). Every I-function but Iscan and Iexscan: the rooted ones from each
// group with MPI_ROOT and MPI_PROC_NULL, a vector type on one side, uneven
// counts (zeros among them) in the v-variants; then several outstanding at
// once on the inter-communicator and on its local group, completed by
// Waitall in reverse order; an endpoint that only calls Test; and the error
// classes of Iscan, Iexscan and a bad root. Every result is checked against
// values computed here and printed as a digest.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "nonblocking.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;
using namespace eptest::coll::nb;

void report(Context& t, const Inter& x, const std::vector<int>& got, const std::vector<int>& want,
            const std::string& what) {
  same(t, x.sub(), got, want, what);
  t.out("{} {} {}", x.name, what, digest(got));
}

// Test rank `from`'s block for test rank `to`.
std::vector<int> block(int step, int from, int to, int ints) {
  return values(step, from * 64 + to, ints);
}
// Ints from test rank `a` to test rank `b` (even, zeros among them).
int pair_ints(int step, int a, int b) { return (a * 5 + b * 3 + step) % 4 * 2; }

// Displacements (elements) of blocks of `counts` elements, a gap of one
// after each. Returns the span.
int gapped(const std::vector<int>& counts, std::vector<int>& displs) {
  displs.clear();
  int at = 0;
  for (const int c : counts) {
    displs.push_back(at);
    at += c + 1;
  }
  return at;
}

std::vector<int> remote_sum(const Inter& x, int step, int from, int count) {
  std::vector<int> total(static_cast<std::size_t>(count), 0);
  for (const int q : x.other) {
    for (int i = 0; i < count; ++i) total[static_cast<std::size_t>(i)] += value(step, q, from + i);
  }
  return total;
}

// Ibcast, Igather(v), Iscatter(v) and Ireduce rooted at rank `root` of group
// `root_group`: the root's side in the vector type, the other in ints.
void rooted(Context& t, const Inter& x, const Kind& ints, const Kind& vec, int step, int root_group,
            int root) {
  const bool in_root_group = x.group == root_group;
  const int arg = !in_root_group ? root : x.rank == root ? MPI_ROOT : MPI_PROC_NULL;
  const int root_rank = in_root_group ? x.me() : x.other[static_cast<std::size_t>(root)];
  const std::string at = fmt::format("root {}:{}", root_group, root);
  const Sub s = x.sub();
  const int n = x.remote();
  capi::Request r{};

  // Ibcast: 10 ints from the root to the other group. Checked on
  // endpoints; printed where the reference can answer.
  const bool printed = root == 0 || !reference::kIbcastIntercommNonzeroRootLost;
  std::vector<int> buf = arg == MPI_ROOT ? lay(vec, values(step, root_rank, 10)) : blank(ints, 10);
  const Kind& bk = arg == MPI_ROOT ? vec : ints;
  if (kEndpoints || printed) {
    ok(t, s, capi::Ibcast(buf.data(), 10 / bk.sig, bk.type, arg, x.comm, &r), "Ibcast");
    complete(t, s, r, "Ibcast " + at);
    if (arg == MPI_ROOT) {
      same(t, s, buf, lay(vec, values(step, root_rank, 10)), "ibcast root " + at);
    } else if (arg >= 0) {
      same(t, s, buf, values(step, root_rank, 10), "ibcast " + at);
    }
    if (printed && arg != MPI_PROC_NULL) t.out("{} ibcast {} {}", x.name, at, digest(buf));
  }

  // Igather: 4 ints from each of the other group; Igatherv: uneven.
  const std::vector<int> send = values(step + 1, x.me(), 4);
  std::vector<int> recv = blank(vec, 2 * n);
  ok(t, s, capi::Igather(send.data(), 4, MPI_INT, recv.data(), 2, vec.type, arg, x.comm, &r),
     "Igather");
  complete(t, s, r, "Igather " + at);
  if (arg == MPI_ROOT) {
    std::vector<int> want = blank(vec, 2 * n);
    for (int q = 0; q < n; ++q) put(vec, want, 2 * q, values(step + 1, x.other[q], 4));
    report(t, x, recv, want, "igather " + at);
  }
  std::vector<int> counts, displs;  // elements of the vector type at the root
  for (const int q : x.other) counts.push_back(pair_ints(step, q, root_rank) / 2);
  recv = blank(vec, gapped(counts, displs));
  const int mine = pair_ints(step, x.me(), root_rank);
  const std::vector<int> part = values(step + 2, x.me(), mine);
  ok(t, s,
     capi::Igatherv(part.data(), mine, MPI_INT, recv.data(), counts.data(), displs.data(), vec.type,
                    arg, x.comm, &r),
     "Igatherv");
  complete(t, s, r, "Igatherv " + at);
  if (arg == MPI_ROOT) {
    std::vector<int> want = recv;
    for (int q = 0; q < n; ++q)
      put(vec, want, displs[q], values(step + 2, x.other[q], 2 * counts[q]));
    report(t, x, recv, want, "igatherv " + at);
  }

  // Iscatter: 4 ints to each of the other group; Iscatterv: uneven.
  std::vector<int> from = blank(vec, 2 * n);
  if (arg == MPI_ROOT) {
    for (int q = 0; q < n; ++q) put(vec, from, 2 * q, block(step + 3, x.me(), x.other[q], 4));
  }
  std::vector<int> got(4, -1);
  ok(t, s, capi::Iscatter(from.data(), 2, vec.type, got.data(), 4, MPI_INT, arg, x.comm, &r),
     "Iscatter");
  complete(t, s, r, "Iscatter " + at);
  if (arg >= 0) report(t, x, got, block(step + 3, root_rank, x.me(), 4), "iscatter " + at);
  from = blank(vec, gapped(counts, displs));
  if (arg == MPI_ROOT) {
    for (int q = 0; q < n; ++q)
      put(vec, from, displs[q], block(step + 4, x.me(), x.other[q], 2 * counts[q]));
  }
  got.assign(static_cast<std::size_t>(mine), -1);
  ok(t, s,
     capi::Iscatterv(from.data(), counts.data(), displs.data(), vec.type, got.data(), mine, MPI_INT,
                     arg, x.comm, &r),
     "Iscatterv");
  complete(t, s, r, "Iscatterv " + at);
  if (arg >= 0) report(t, x, got, block(step + 4, root_rank, x.me(), mine), "iscatterv " + at);

  // Ireduce: the sum over the other group, at the root.
  const std::vector<int> operand = values(step + 5, x.me(), 300);
  std::vector<int> sum(300, -1);
  ok(t, s, capi::Ireduce(operand.data(), sum.data(), 300, MPI_INT, MPI_SUM, arg, x.comm, &r),
     "Ireduce");
  complete(t, s, r, "Ireduce " + at);
  if (arg == MPI_ROOT) report(t, x, sum, remote_sum(x, step + 5, 0, 300), "ireduce " + at);
}

// The collectives without a root: each group receives from the other.
void everyone(Context& t, const Inter& x, const Kind& ints, const Kind& vec, int step) {
  const Sub s = x.sub();
  const int n = x.remote();
  capi::Request r{};
  ok(t, s, capi::Ibarrier(x.comm, &r), "Ibarrier");
  complete(t, s, r, "Ibarrier");
  t.out("{} ibarrier", x.name);

  // Iallgather: 6 ints a rank, received as the vector type.
  std::vector<int> send = values(step, x.me(), 6);
  std::vector<int> recv = blank(vec, 3 * n);
  ok(t, s, capi::Iallgather(send.data(), 6, MPI_INT, recv.data(), 3, vec.type, x.comm, &r),
     "Iallgather");
  complete(t, s, r, "Iallgather");
  std::vector<int> want = recv;
  for (int q = 0; q < n; ++q) put(vec, want, 3 * q, values(step, x.other[q], 6));
  report(t, x, recv, want, "iallgather");

  // Iallgatherv: uneven, sent as the vector type, received as ints.
  std::vector<int> counts, displs;
  for (const int q : x.other) counts.push_back(pair_ints(step, q, 0));
  recv = blank(ints, gapped(counts, displs));
  const int mine = pair_ints(step, x.me(), 0);
  send = lay(vec, values(step + 1, x.me(), mine));
  ok(t, s,
     capi::Iallgatherv(send.data(), mine / 2, vec.type, recv.data(), counts.data(), displs.data(),
                       MPI_INT, x.comm, &r),
     "Iallgatherv");
  complete(t, s, r, "Iallgatherv");
  want = recv;
  for (int q = 0; q < n; ++q) put(ints, want, displs[q], values(step + 1, x.other[q], counts[q]));
  report(t, x, recv, want, "iallgatherv");

  // Ialltoall: 2 ints a pair.
  send.clear();
  want.clear();
  for (const int q : x.other) {
    const std::vector<int> out = block(step + 2, x.me(), q, 2);
    const std::vector<int> in = block(step + 2, q, x.me(), 2);
    send.insert(send.end(), out.begin(), out.end());
    want.insert(want.end(), in.begin(), in.end());
  }
  recv.assign(want.size(), -1);
  ok(t, s, capi::Ialltoall(send.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, x.comm, &r),
     "Ialltoall");
  complete(t, s, r, "Ialltoall");
  report(t, x, recv, want, "ialltoall");

  // Ialltoallv (ints) and Ialltoallw (the vector type to even test ranks and
  // from odd ones, displacements in bytes): counts per pair of test ranks.
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  for (const int q : x.other) {
    scounts.push_back(pair_ints(step + 3, x.me(), q));
    rcounts.push_back(pair_ints(step + 3, q, x.me()));
  }
  send = blank(ints, gapped(scounts, sdispls));
  recv = blank(ints, gapped(rcounts, rdispls));
  want = recv;
  for (int q = 0; q < n; ++q) {
    put(ints, send, sdispls[q], block(step + 3, x.me(), x.other[q], scounts[q]));
    put(ints, want, rdispls[q], block(step + 3, x.other[q], x.me(), rcounts[q]));
  }
  ok(t, s,
     capi::Ialltoallv(send.data(), scounts.data(), sdispls.data(), MPI_INT, recv.data(),
                      rcounts.data(), rdispls.data(), MPI_INT, x.comm, &r),
     "Ialltoallv");
  complete(t, s, r, "Ialltoallv");
  report(t, x, recv, want, "ialltoallv");

  std::vector<MPI_Datatype> stypes, rtypes;
  std::vector<int> wsend, wrecv, wwant;
  for (int q = 0; q < n; ++q) {
    const Kind& sk = x.other[q] % 2 == 0 ? vec : ints;
    const Kind& rk = x.other[q] % 2 == 0 ? ints : vec;
    stypes.push_back(sk.type);
    rtypes.push_back(rk.type);
    scounts[q] /= sk.sig;
    rcounts[q] /= rk.sig;
    sdispls[q] = static_cast<int>(wsend.size() * sizeof(int));
    rdispls[q] = static_cast<int>(wrecv.size() * sizeof(int));
    std::vector<int> b = lay(sk, block(step + 3, x.me(), x.other[q], scounts[q] * sk.sig));
    wsend.insert(wsend.end(), b.begin(), b.end());
    wsend.push_back(-1);
    b = blank(rk, rcounts[q]);
    wrecv.insert(wrecv.end(), b.begin(), b.end());
    wrecv.push_back(-1);
    b = lay(rk, block(step + 3, x.other[q], x.me(), rcounts[q] * rk.sig));
    wwant.insert(wwant.end(), b.begin(), b.end());
    wwant.push_back(-1);
  }
  ok(t, s,
     capi::Ialltoallw(wsend.data(), scounts.data(), sdispls.data(), stypes.data(), wrecv.data(),
                      rcounts.data(), rdispls.data(), rtypes.data(), x.comm, &r),
     "Ialltoallw");
  complete(t, s, r, "Ialltoallw");
  report(t, x, wrecv, wwant, "ialltoallw");

  // Iallreduce: the sum over the other group.
  send = values(step + 4, x.me(), 500);
  recv.assign(500, -1);
  ok(t, s, capi::Iallreduce(send.data(), recv.data(), 500, MPI_INT, MPI_SUM, x.comm, &r),
     "Iallreduce");
  complete(t, s, r, "Iallreduce");
  report(t, x, recv, remote_sum(x, step + 4, 0, 500), "iallreduce");

  // Ireduce_scatter: the other group's sum of `total` ints, scattered over
  // this group by its counts (the first rank gets none when the group has
  // more than one). Ireduce_scatter_block: both groups' vectors are
  // local size x remote size x 2 ints long.
  const int local = static_cast<int>(x.mine.size());
  const int total = 2 * local * n;
  counts.clear();
  for (int i = 0; i < local; ++i) {
    const int share = local == 1 ? total : i == 0 ? 0 : total / (local - 1);
    counts.push_back(share);
  }
  counts.back() += total - std::accumulate(counts.begin(), counts.end(), 0);
  const int first = std::accumulate(counts.begin(), counts.begin() + x.rank, 0);
  send = values(step + 5, x.me(), total);
  recv.assign(static_cast<std::size_t>(counts[static_cast<std::size_t>(x.rank)]), -1);
  ok(t, s,
     capi::Ireduce_scatter(send.data(), recv.data(), counts.data(), MPI_INT, MPI_SUM, x.comm, &r),
     "Ireduce_scatter");
  complete(t, s, r, "Ireduce_scatter");
  report(t, x, recv, remote_sum(x, step + 5, first, static_cast<int>(recv.size())),
         "ireduce_scatter");
  const int each = total / local;
  send = values(step + 6, x.me(), total);
  recv.assign(static_cast<std::size_t>(each), -1);
  ok(t, s,
     capi::Ireduce_scatter_block(send.data(), recv.data(), each, MPI_INT, MPI_SUM, x.comm, &r),
     "Ireduce_scatter_block");
  complete(t, s, r, "Ireduce_scatter_block");
  report(t, x, recv, remote_sum(x, step + 6, x.rank * each, each), "ireduce_scatter_block");
}

// Several at once on the inter-communicator and on the local group, with
// Waitall over them in the reverse order; then an endpoint that only calls
// Test.
void outstanding(Context& t, const Inter& x, int step) {
  const Sub s = x.sub();
  const int n = x.remote();
  const std::vector<int> mine = values(step, x.me(), 200);
  std::vector<int> inter_sum(200, -1), local_sum(200, -1), bcast(50, -1);
  std::vector<int> a2a_in, a2a_out(static_cast<std::size_t>(3 * n), -1);
  for (const int q : x.other) {
    const std::vector<int> b = block(step + 1, x.me(), q, 3);
    a2a_in.insert(a2a_in.end(), b.begin(), b.end());
  }
  // Ibcast from rank 0 of group 0.
  const int root = x.group == 0 ? (x.rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  const int bcast_root = x.group == 0 ? x.mine[0] : x.other[0];
  if (root == MPI_ROOT) bcast = values(step + 2, bcast_root, 50);
  std::vector<capi::Request> requests(5);
  ok(t, s,
     capi::Iallreduce(mine.data(), inter_sum.data(), 200, MPI_INT, MPI_SUM, x.comm, &requests[0]),
     "Iallreduce");
  ok(t, s,
     capi::Iallreduce(mine.data(), local_sum.data(), 200, MPI_INT, MPI_SUM, x.local, &requests[1]),
     "Iallreduce on the local group");
  ok(t, s, capi::Ibcast(bcast.data(), 50, MPI_INT, root, x.comm, &requests[2]), "Ibcast");
  ok(t, s,
     capi::Ialltoall(a2a_in.data(), 3, MPI_INT, a2a_out.data(), 3, MPI_INT, x.comm, &requests[3]),
     "Ialltoall");
  ok(t, s, capi::Ibarrier(x.comm, &requests[4]), "Ibarrier");
  std::reverse(requests.begin(), requests.end());
  ok(t, s, capi::Waitall(5, requests.data(), api::STATUSES_IGNORE), "Waitall");
  same(t, s, inter_sum, remote_sum(x, step, 0, 200), "outstanding Iallreduce");
  std::vector<int> want(200, 0);
  for (const int q : x.mine) {
    for (int i = 0; i < 200; ++i) want[static_cast<std::size_t>(i)] += value(step, q, i);
  }
  same(t, s, local_sum, want, "outstanding local Iallreduce");
  if (root != MPI_PROC_NULL)
    same(t, s, bcast, values(step + 2, bcast_root, 50), "outstanding Ibcast");
  want.clear();
  for (const int q : x.other) {
    const std::vector<int> b = block(step + 1, q, x.me(), 3);
    want.insert(want.end(), b.begin(), b.end());
  }
  same(t, s, a2a_out, want, "outstanding Ialltoall");
  t.out("{} outstanding: {} {} {} {}", x.name, digest(inter_sum), digest(local_sum),
        root == MPI_PROC_NULL ? std::string("-") : digest(bcast), digest(a2a_out));

  // The first rank of each group arrives late; the others only Test.
  if (x.rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  capi::Request r{};
  inter_sum.assign(200, -1);
  ok(t, s, capi::Iallreduce(mine.data(), inter_sum.data(), 200, MPI_INT, MPI_SUM, x.comm, &r),
     "Iallreduce");
  int flag = 0;
  while (!flag) {
    if (!ok(t, s, capi::Test(&r, &flag, api::STATUS_IGNORE), "Test")) break;
    if (!flag) std::this_thread::yield();
  }
  same(t, s, inter_sum, remote_sum(x, step, 0, 200), "Iallreduce by Test");
  t.out("{} test loop: {}", x.name, digest(inter_sum));
}

void errors(Context& t, const Inter& x) {
  int buf[2] = {1, 2};
  int out[2] = {};
  capi::Request r{};
  const auto report_class = [&](int rc, int want, const std::string& what) {
    t.expect_class(rc, want, what);
    t.out("{} error: {} gives {}", x.name, what, error_class_name(error_class_of(rc)));
  };
  report_class(capi::Iscan(buf, out, 2, MPI_INT, MPI_SUM, x.comm, &r), MPI_ERR_COMM, "Iscan");
  // Checked on endpoints; printed where the reference can answer.
  if (kEndpoints || !reference::kIexscanOnIntercommCrashes) {
    const int rc = capi::Iexscan(buf, out, 2, MPI_INT, MPI_SUM, x.comm, &r);
    t.expect_class(rc, MPI_ERR_COMM, "Iexscan");
    if (!reference::kIexscanOnIntercommCrashes) {
      t.out("{} error: Iexscan gives {}", x.name, error_class_name(error_class_of(rc)));
    }
  }
  report_class(capi::Ibcast(buf, 2, MPI_INT, x.remote(), x.comm, &r), MPI_ERR_ROOT,
               "Ibcast root=remote size");
}

}  // namespace

void eptest::run(Context& t) {
  if (t.size() < 2) return;
  MPI_Datatype vector = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vector);
  MPI_Type_commit(&vector);
  const Kind ints{"int", MPI_INT, 1};
  const Kind vec{"vec", vector, 2};
  int tag = 80;
  for (const char* kind : {"parity", "halves"}) {
    Inter x = make_inter(t, kind, tag++);
    t.check_rc(capi::Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN), "Comm_set_errhandler");
    int step = 200;
    for (int root_group = 0; root_group < 2; ++root_group) {
      const int size = static_cast<int>(root_group == x.group ? x.mine.size() : x.other.size());
      rooted(t, x, ints, vec, step += 10, root_group, size - 1);
      if (size > 1) rooted(t, x, ints, vec, step += 10, root_group, 0);
    }
    everyone(t, x, ints, vec, step += 10);
    outstanding(t, x, step += 10);
    errors(t, x);
    t.check_rc(capi::Comm_free(&x.comm), "Comm_free");
    t.check_rc(capi::Comm_free(&x.local), "Comm_free");
  }
  MPI_Type_free(&vector);
}
