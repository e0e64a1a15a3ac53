// The non-blocking collectives on intra-communicators (MPI 4.0, 6.12), as an
// MPI program relies on them:
// - every I-function's payload, over the test's communicator and splits
//   whose ranks interleave across processes, and the reductions with a
//   non-commutative op (nonblocking_payload.cpp);
// - several operations outstanding at once on two communicators, started in
//   a different order across communicators by even and odd ranks, beside
//   point-to-point requests, completed by Waitall in another order, by
//   Testany and by Waitsome;
// - progress: endpoints that only call Test, a late arrival, and ranks
//   blocked in a Recv whose message is sent only once the sender's
//   collective completed;
// - datatypes freed while the operation is pending;
// - the request and status after completion;
// - the error classes of bad arguments (MPI_ERRORS_RETURN).
// Every result is checked against values computed here and printed as a
// digest, so that the plain-MPI run must print the same lines.
#include "nonblocking.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <thread>

#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;
using namespace eptest::coll::nb;

std::vector<int> sum(int step, int ranks, int count) {
  std::vector<int> total(static_cast<std::size_t>(count), 0);
  for (int q = 0; q < ranks; ++q) {
    for (int i = 0; i < count; ++i) total[static_cast<std::size_t>(i)] += value(step, q, i);
  }
  return total;
}

// Six collectives on two communicators and a ring of messages, all
// outstanding at once.
struct Batch {
  int step;
  int n;
  int rank;
  std::vector<int> reduce_in, reduce_out, bcast, gather_in, gather_out, a2a_in, a2a_out, scan_in,
      scan_out, ring_out, ring_in;
  std::vector<capi::Request> requests;  // in the order started
  std::vector<std::string> names;

  Batch(int step_, int n_, int rank_) : step(step_), n(n_), rank(rank_) {
    reduce_in = values(step, rank, 1000);
    reduce_out.assign(1000, -1);
    bcast = rank == n - 1 ? values(step + 1, n - 1, 500) : std::vector<int>(500, -1);
    gather_in = values(step + 2, rank, 3);
    gather_out.assign(static_cast<std::size_t>(3 * n), -1);
    for (int q = 0; q < n; ++q) {
      const std::vector<int> v = values(step + 3, rank * 64 + q, 2);
      a2a_in.insert(a2a_in.end(), v.begin(), v.end());
    }
    a2a_out.assign(a2a_in.size(), -1);
    scan_in = values(step + 4, rank, 4);
    scan_out.assign(4, -1);
    ring_out = values(step + 5, rank, 64);
    ring_in.assign(64, -1);
  }

  // Per communicator every rank starts the same collectives in the same
  // order, as MPI requires; across the two the order differs by rank.
  void start(Context& t, const Sub& s, capi::Comm dup) {
    using Start = std::pair<std::string, std::function<int(capi::Request*)>>;
    const int root = n / 2;
    const std::vector<Start> on_comm{
        {"Iallreduce",
         [&](capi::Request* r) {
           return capi::Iallreduce(reduce_in.data(), reduce_out.data(), 1000, MPI_INT, MPI_SUM,
                                   s.comm, r);
         }},
        {"Igather",
         [&](capi::Request* r) {
           return capi::Igather(gather_in.data(), 3, MPI_INT, gather_out.data(), 3, MPI_INT, root,
                                s.comm, r);
         }},
        {"Iscan", [&](capi::Request* r) {
           return capi::Iscan(scan_in.data(), scan_out.data(), 4, MPI_INT, MPI_SUM, s.comm, r);
         }}};
    const std::vector<Start> on_dup{
        {"Ibcast",
         [&](capi::Request* r) { return capi::Ibcast(bcast.data(), 500, MPI_INT, n - 1, dup, r); }},
        {"Ialltoall",
         [&](capi::Request* r) {
           return capi::Ialltoall(a2a_in.data(), 2, MPI_INT, a2a_out.data(), 2, MPI_INT, dup, r);
         }},
        {"Ibarrier", [&](capi::Request* r) { return capi::Ibarrier(dup, r); }}};
    const std::vector<Start> ring{
        {"Irecv",
         [&](capi::Request* r) {
           return api::Irecv(ring_in.data(), 64, MPI_INT, (rank + n - 1) % n, 5, s.comm, r);
         }},
        {"Isend", [&](capi::Request* r) {
           return api::Isend(ring_out.data(), 64, MPI_INT, (rank + 1) % n, 5, s.comm, r);
         }}};
    std::vector<const Start*> order;
    const auto& first = rank % 2 == 0 ? on_comm : on_dup;
    const auto& second = rank % 2 == 0 ? on_dup : on_comm;
    if (rank % 2 == 1) order.push_back(&ring[0]);
    for (std::size_t i = 0; i < first.size(); ++i) {
      order.push_back(&first[i]);
      order.push_back(&second[i]);
    }
    if (rank % 2 == 0) order.push_back(&ring[0]);
    order.push_back(&ring[1]);
    for (const Start* st : order) {
      requests.emplace_back();
      names.push_back(st->first);
      ok(t, s, st->second(&requests.back()), st->first);
    }
  }

  void check(Context& t, const Sub& s, const std::string& how) {
    const std::string at = fmt::format("batch {}", how);
    same(t, s, reduce_out, sum(step, n, 1000), at + " Iallreduce");
    same(t, s, bcast, values(step + 1, n - 1, 500), at + " Ibcast");
    if (rank == n / 2) {
      std::vector<int> want;
      for (int q = 0; q < n; ++q) {
        const std::vector<int> v = values(step + 2, q, 3);
        want.insert(want.end(), v.begin(), v.end());
      }
      same(t, s, gather_out, want, at + " Igather");
    }
    std::vector<int> want;
    for (int q = 0; q < n; ++q) {
      const std::vector<int> v = values(step + 3, q * 64 + rank, 2);
      want.insert(want.end(), v.begin(), v.end());
    }
    same(t, s, a2a_out, want, at + " Ialltoall");
    same(t, s, scan_out, sum(step + 4, rank + 1, 4), at + " Iscan");
    same(t, s, ring_in, values(step + 5, (rank + n - 1) % n, 64), at + " ring");
    for (const capi::Request& r : requests) {
      t.check(r == capi::REQUEST_NULL, at + ": every request is reset");
    }
    t.out("{} {}: {} {} {} {} {} {}", s.name, at, digest(reduce_out), digest(bcast),
          digest(rank == n / 2 ? gather_out : std::vector<int>{}), digest(a2a_out),
          digest(scan_out), digest(ring_in));
  }
};

void outstanding(Context& t, const Sub& s) {
  capi::Comm dup{};
  if (!ok(t, s, capi::Comm_dup(s.comm, &dup), "Comm_dup")) return;

  // Waitall, over the requests in the reverse of the order started.
  {
    Batch b(100, s.size, s.rank);
    b.start(t, s, dup);
    std::vector<capi::Request> reversed(b.requests.rbegin(), b.requests.rend());
    std::vector<api::Status> statuses(reversed.size());
    const int rc =
        capi::Waitall(static_cast<int>(reversed.size()), reversed.data(), statuses.data());
    ok(t, s, rc, "Waitall");
    // The Irecv's status names the sender.
    const std::size_t at = static_cast<std::size_t>(
        std::find(b.names.rbegin(), b.names.rend(), "Irecv") - b.names.rbegin());
    const api::Status& recv = statuses[at];
    t.expect_eq(recv.MPI_SOURCE, (s.rank + s.size - 1) % s.size, "ring Irecv's source");
    t.expect_eq(recv.MPI_TAG, 5, "ring Irecv's tag");
    b.requests = reversed;
    t.out("{} waitall returned {}", s.name, error_class_name(error_class_of(rc)));
    b.check(t, s, "waitall");
  }
  // Testany until none is active; completion order is not printed (it is
  // timing).
  {
    Batch b(110, s.size, s.rank);
    b.start(t, s, dup);
    int done = 0;
    for (;;) {
      int index = -1;
      int flag = 0;
      if (!ok(t, s,
              api::Testany(static_cast<int>(b.requests.size()), b.requests.data(), &index, &flag,
                           api::STATUS_IGNORE),
              "Testany"))
        break;
      if (flag && index == MPI_UNDEFINED) break;
      if (flag) ++done;
    }
    t.expect_eq(done, static_cast<int>(b.requests.size()), "requests Testany completed");
    b.check(t, s, "testany");
  }
  // Waitsome until none is active.
  {
    Batch b(120, s.size, s.rank);
    b.start(t, s, dup);
    std::vector<int> indices(b.requests.size());
    int done = 0;
    for (;;) {
      int count = 0;
      if (!ok(t, s,
              api::Waitsome(static_cast<int>(b.requests.size()), b.requests.data(), &count,
                            indices.data(), api::STATUSES_IGNORE),
              "Waitsome"))
        break;
      if (count == MPI_UNDEFINED) break;
      done += count;
    }
    t.expect_eq(done, static_cast<int>(b.requests.size()), "requests Waitsome completed");
    b.check(t, s, "waitsome");
  }
  ok(t, s, capi::Comm_free(&dup), "Comm_free");
}

// An endpoint that only calls Test finishes; rank 0 arrives late.
void test_loop(Context& t, const Sub& s) {
  if (s.rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::vector<int> mine = values(130, s.rank, 300);
  std::vector<int> out(mine.size(), -1);
  capi::Request r{};
  ok(t, s, capi::Iallreduce(mine.data(), out.data(), 300, MPI_INT, MPI_SUM, s.comm, &r),
     "Iallreduce");
  int flag = 0;
  while (!flag) {
    if (!ok(t, s, capi::Test(&r, &flag, api::STATUS_IGNORE), "Test")) return;
    // Other threads (endpoints, or processes on few cores) need the CPU too.
    if (!flag) std::this_thread::yield();
  }
  t.check(r == capi::REQUEST_NULL, "Test resets the request");
  same(t, s, out, sum(130, s.size, 300), "Iallreduce by Test");
  t.out("{} test loop: {}", s.name, digest(out));
}

// Every rank but the last starts the collective, then blocks in a Recv from
// the next rank, which sends only once its own Wait returned: the
// collective must complete while the others are inside Recv (MPI's progress
// rule), whatever the processes that hold them.
void blocked_in_recv(Context& t, const Sub& s, bool barrier) {
  const int step = barrier ? 140 : 141;
  const std::vector<int> mine = values(step, s.rank, 100);
  std::vector<int> out(mine.size(), -1);
  capi::Request r{};
  const std::string call = barrier ? "Ibarrier" : "Iallreduce";
  ok(t, s,
     barrier ? capi::Ibarrier(s.comm, &r)
             : capi::Iallreduce(mine.data(), out.data(), 100, MPI_INT, MPI_SUM, s.comm, &r),
     call);
  int token = -1;
  if (s.rank < s.size - 1) {
    ok(t, s, api::Recv(&token, 1, MPI_INT, s.rank + 1, 9, s.comm, api::STATUS_IGNORE), "Recv");
    t.expect_eq(token, s.rank + 1, "token");
  }
  complete(t, s, r, call);
  if (s.rank > 0) ok(t, s, api::Send(&s.rank, 1, MPI_INT, s.rank - 1, 9, s.comm), "Send");
  if (!barrier) same(t, s, out, sum(step, s.size, 100), "Iallreduce past a blocked Recv");
  t.out("{} {} while blocked in Recv: {}", s.name, call, barrier ? "done" : digest(out));
}

// A root that runs ahead: 48 Ibcasts from the last rank, every fourth
// followed by an Iallreduce and every sixteenth by an Ibarrier, all started
// before any is waited for; rank 1 starts its calls late, and every rank
// but the root waits for them last first. An Ibcast's step among the
// processes may start before all the endpoints of a process came
// (ProcessStep::reads), the others' only once they all did: each call must
// still carry its own root's data, and the reductions their own sums.
void run_ahead(Context& t, const Sub& s) {
  constexpr int kCalls = 48;
  constexpr int kCount = 8;
  const int root = s.size - 1;
  if (s.rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<std::vector<int>> bcast(kCalls);
  std::vector<std::vector<int>> mine(kCalls);
  std::vector<std::vector<int>> reduced(kCalls);
  std::vector<capi::Request> requests;
  std::vector<std::string> names;
  for (int i = 0; i < kCalls; ++i) {
    const auto at = static_cast<std::size_t>(i);
    bcast[at] = s.rank == root ? values(150 + i, root, kCount) : std::vector<int>(kCount, -1);
    ok(t, s,
       capi::Ibcast(bcast[at].data(), kCount, MPI_INT, root, s.comm, &requests.emplace_back()),
       "Ibcast");
    names.push_back(fmt::format("Ibcast {}", i));
    if (i % 4 == 3) {
      mine[at] = values(150 + i, s.rank, kCount);
      reduced[at].assign(kCount, -1);
      ok(t, s,
         capi::Iallreduce(mine[at].data(), reduced[at].data(), kCount, MPI_INT, MPI_SUM, s.comm,
                          &requests.emplace_back()),
         "Iallreduce");
      names.push_back(fmt::format("Iallreduce {}", i));
    }
    if (i % 16 == 15) {
      ok(t, s, capi::Ibarrier(s.comm, &requests.emplace_back()), "Ibarrier");
      names.push_back(fmt::format("Ibarrier {}", i));
    }
  }
  if (s.rank == root) {
    ok(t, s,
       capi::Waitall(static_cast<int>(requests.size()), requests.data(), api::STATUSES_IGNORE),
       "Waitall");
  } else {
    for (std::size_t k = requests.size(); k-- > 0;) complete(t, s, requests[k], names[k]);
  }
  std::string digests;
  for (int i = 0; i < kCalls; ++i) {
    const auto at = static_cast<std::size_t>(i);
    same(t, s, bcast[at], values(150 + i, root, kCount), fmt::format("Ibcast {}", i));
    if (!reduced[at].empty()) {
      same(t, s, reduced[at], sum(150 + i, s.size, kCount), fmt::format("Iallreduce {}", i));
      digests += " " + digest(reduced[at]);
    }
  }
  t.out("{} root running ahead: {}{}", s.name, digest(bcast.back()), digests);
}

// Datatypes freed right after the call that uses them, before the Wait.
void freed_types(Context& t, const Sub& s) {
  const auto vector_type = [] {
    MPI_Datatype v = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    return v;
  };
  capi::Request r{};
  const int root = s.size - 1;

  Kind vec{"vec", vector_type(), 2};
  const std::vector<int> data = values(150, root, 40);
  std::vector<int> buf = s.rank == root ? lay(vec, data) : blank(vec, 20);
  ok(t, s, capi::Ibcast(buf.data(), 20, vec.type, root, s.comm, &r), "Ibcast");
  MPI_Type_free(&vec.type);
  complete(t, s, r, "Ibcast");
  same(t, s, buf, lay(vec, data), "Ibcast, type freed");
  t.out("{} freed type ibcast {}", s.name, digest(buf));

  vec.type = vector_type();
  std::vector<int> counts, displs;
  for (int q = 0; q < s.size; ++q) {
    counts.push_back(uneven_count(q, 2));
    displs.push_back(q == 0 ? 0 : displs.back() + counts[q - 1]);
  }
  const int span = displs.back() + counts.back();
  std::vector<int> out = blank(vec, span);
  std::vector<int> want = out;
  for (int q = 0; q < s.size; ++q) put(vec, want, displs[q], values(151, q, 2 * counts[q]));
  const std::vector<int> mine = values(151, s.rank, 2 * counts[s.rank]);
  ok(t, s,
     capi::Iallgatherv(mine.data(), 2 * counts[s.rank], MPI_INT, out.data(), counts.data(),
                       displs.data(), vec.type, s.comm, &r),
     "Iallgatherv");
  MPI_Type_free(&vec.type);
  complete(t, s, r, "Iallgatherv");
  same(t, s, out, want, "Iallgatherv, type freed");
  t.out("{} freed type iallgatherv {}", s.name, digest(out));

  // Ialltoallw: a type of its own per peer, all freed.
  std::vector<MPI_Datatype> stypes, rtypes(static_cast<std::size_t>(s.size), MPI_INT);
  std::vector<int> scounts(static_cast<std::size_t>(s.size), 3);
  std::vector<int> rcounts(static_cast<std::size_t>(s.size), 6);
  std::vector<int> sdispls, rdispls, send, recv(static_cast<std::size_t>(6 * s.size), -1);
  want.clear();
  for (int q = 0; q < s.size; ++q) {
    stypes.push_back(vector_type());
    sdispls.push_back(static_cast<int>(send.size() * sizeof(int)));
    rdispls.push_back(q * 6 * static_cast<int>(sizeof(int)));
    const std::vector<int> block = lay(vec, values(152, s.rank * 64 + q, 6));
    send.insert(send.end(), block.begin(), block.end());
    const std::vector<int> v = values(152, q * 64 + s.rank, 6);
    want.insert(want.end(), v.begin(), v.end());
  }
  ok(t, s,
     capi::Ialltoallw(send.data(), scounts.data(), sdispls.data(), stypes.data(), recv.data(),
                      rcounts.data(), rdispls.data(), rtypes.data(), s.comm, &r),
     "Ialltoallw");
  for (MPI_Datatype& type : stypes) MPI_Type_free(&type);
  complete(t, s, r, "Ialltoallw");
  same(t, s, recv, want, "Ialltoallw, types freed");
  t.out("{} freed type ialltoallw {}", s.name, digest(recv));
}

// What Wait, Test and the status say of a completed collective. MPI leaves
// MPI_SOURCE and MPI_TAG undefined there: they are not looked at.
void statuses(Context& t, const Sub& s) {
  capi::Request r{};
  api::Status status{};
  ok(t, s, capi::Ibarrier(s.comm, &r), "Ibarrier");
  const int rc = capi::Wait(&r, &status);
  int cancelled = -1;
  ok(t, s, api::Test_cancelled(&status, &cancelled), "Test_cancelled");
  t.out("{} status: Wait returned {}, request null {}, cancelled {}", s.name,
        error_class_name(error_class_of(rc)), r == capi::REQUEST_NULL, cancelled);

  const int mine = s.rank;
  int total = -1;
  ok(t, s, capi::Iallreduce(&mine, &total, 1, MPI_INT, MPI_MAX, s.comm, &r), "Iallreduce");
  int flag = 0;
  int test_rc = MPI_SUCCESS;
  while (!flag && test_rc == MPI_SUCCESS) {
    test_rc = capi::Test(&r, &flag, &status);
    if (!flag) std::this_thread::yield();
  }
  std::vector<capi::Request> none(2, capi::REQUEST_NULL);
  int all = 0;
  const int testall_rc = capi::Testall(2, none.data(), &all, api::STATUSES_IGNORE);
  t.out("{} status: Test returned {} with flag {}, request null {}, max {}; Testall of nulls {} {}",
        s.name, error_class_name(error_class_of(test_rc)), flag, r == capi::REQUEST_NULL, total,
        error_class_name(error_class_of(testall_rc)), all);
  t.expect_eq(total, s.size - 1, "Iallreduce max");
}

// Bad arguments given alike by every rank, under MPI_ERRORS_RETURN; the
// communicator works afterwards.
void errors(Context& t, const Sub& s) {
  int buf[4] = {1, 2, 3, 4};
  int out[4] = {};
  capi::Request r{};
  const auto report_class = [&](int rc, int want, const std::string& what) {
    t.expect_class(rc, want, what);
    t.out("{} error: {} gives {}", s.name, what, error_class_name(error_class_of(rc)));
  };
  report_class(capi::Ibcast(buf, 4, MPI_INT, s.size, s.comm, &r), MPI_ERR_ROOT, "Ibcast root=size");
  report_class(capi::Ireduce(buf, out, 4, MPI_INT, MPI_SUM, -1, s.comm, &r), MPI_ERR_ROOT,
               "Ireduce root=-1");
  report_class(capi::Igather(buf, 1, MPI_INT, out, 1, MPI_INT, s.size + 3, s.comm, &r),
               MPI_ERR_ROOT, "Igather root=size+3");
  report_class(capi::Iallreduce(buf, out, 4, MPI_INT, MPI_OP_NULL, s.comm, &r), MPI_ERR_OP,
               "Iallreduce MPI_OP_NULL");
  report_class(capi::Iscan(buf, out, 4, MPI_INT, MPI_OP_NULL, s.comm, &r), MPI_ERR_OP,
               "Iscan MPI_OP_NULL");
  if (kEndpoints) {
    // Endpoints only: MPI leaves the class open (Open MPI 4.1.4's
    // MPI_Ibarrier crashes, MPICH 4.0.2 says MPI_ERR_ARG); libep gives
    // MPI_ERR_REQUEST, as its point-to-point calls do.
    t.expect_class(capi::Ibarrier(s.comm, nullptr), MPI_ERR_REQUEST, "Ibarrier request=nullptr");
    t.expect_class(capi::Iallreduce(buf, out, 4, MPI_INT, MPI_SUM, s.comm, nullptr),
                   MPI_ERR_REQUEST, "Iallreduce request=nullptr");
  }
  // An invalid communicator has no handler of its own: MPI_COMM_WORLD's
  // applies. It is per process, so every rank sets it, between barriers.
  t.barrier();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  t.barrier();
  report_class(capi::Ibarrier(capi::COMM_NULL, &r), MPI_ERR_COMM, "Ibarrier COMM_NULL");
  report_class(capi::Iallreduce(buf, out, 4, MPI_INT, MPI_SUM, capi::COMM_NULL, &r), MPI_ERR_COMM,
               "Iallreduce COMM_NULL");
  t.barrier();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  t.barrier();

  const int mine = s.rank + 1;
  int total = 0;
  ok(t, s, capi::Iallreduce(&mine, &total, 1, MPI_INT, MPI_SUM, s.comm, &r), "Iallreduce");
  complete(t, s, r, "Iallreduce after the errors");
  t.expect_eq(total, s.size * (s.size + 1) / 2, "sum after the errors");
}

}  // namespace

void eptest::run(Context& t) {
  MPI_Datatype vector = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vector);
  MPI_Type_commit(&vector);
  const Kind ints{"int", MPI_INT, 1};
  const Kind vec{"vec", vector, 2};

  // Errors come back as return codes, so that one failing call is reported
  // and the rest still runs.
  std::vector<Sub> subs = make_subs(t);
  for (const Sub& s : subs) {
    t.check_rc(capi::Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  }
  for (const Sub& s : subs) {
    if (!selected(t, s)) continue;
    payloads(t, s, ints, vec);
    noncommutative(t, s);
  }
  const Sub& whole = subs[0];
  const Sub& interleaved = subs[1];
  for (const Sub* s : {&whole, &interleaved}) {
    outstanding(t, *s);
    run_ahead(t, *s);
    test_loop(t, *s);
    blocked_in_recv(t, *s, true);
    blocked_in_recv(t, *s, false);
  }
  freed_types(t, whole);
  statuses(t, whole);
  errors(t, whole);
  free_subs(t, subs);
  MPI_Type_free(&vector);
}
