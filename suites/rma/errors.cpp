// Bad input to the one-sided calls, under MPI_ERRORS_RETURN: the MPI error
// class for each kind (issue 9): MPI_ERR_SIZE and MPI_ERR_DISP at creation;
// MPI_ERR_RMA_SYNC for an operation or flush outside an epoch, unlock
// without lock, a second lock of one target, a fence inside a passive
// epoch, a request-based operation in a fence epoch, free with an epoch
// open; MPI_ERR_RMA_RANGE for accesses outside the target's region;
// MPI_ERR_RANK, MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_OP, MPI_ERR_LOCKTYPE,
// and MPI_ERR_WIN for MPI_WIN_NULL. Every rank makes every error alike, so
// the collective calls (fence, free) fail on all ranks together.
//
// After each error a good call (an Accumulate of 1 into the right
// neighbour's counter) must work; at the end each rank's window must hold
// exactly its left neighbour's count of good calls and zeroes elsewhere: an
// access outside a region wrote nothing, not even into the region next to
// it (with endpoints, another endpoint's region of the same MPI window).
//
// Differential where the reference MPI detects the error itself; where it
// does not (see kReference), the case runs on endpoints only and prints
// nothing, so that both outputs stay comparable.
#include <cstring>
#include <functional>
#include <string>

#include "reference_mpi.hpp"
#include "rma_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::rma;

constexpr int kInts = 16;    // 64 bytes per rank
constexpr int kCounter = 8;  // the good calls' counter; every other int stays 0

// Which errors the reference MPI reports, with the class libep gives.
// Measured with this test's reference program. Open MPI 4.1.4 makes a
// Win_allocate window of one process with osc/sm, which checks little, and
// of several with osc/rdma:
//  - osc/sm: Put and Win_flush outside an epoch, Win_fence inside lock_all
//    (also with MPI_MODE_NOCHECK),
//    accesses past the end and Win_flush of rank `size` succeed (the Puts
//    write where they point);
//    Win_free inside lock_all segfaults (ompi_osc_sm_free -> ompi_comm_free);
//  - osc/rdma: a second Win_lock of one target, and Win_lock inside
//    lock_all, succeed (inside lock_all(NOCHECK) it is MPI_ERR_RMA_SYNC); Win_flush of rank `size`
//    segfaults (ompi_osc_rdma_flush); Win_free inside lock_all frees the window.
// MPICH 4.0.2 (ch4) checks no access against the target's size (the Put
// past the end succeeds) and reports a bad lock type as MPI_ERR_ARG.
// Neither MPI detects an Rput in a fence epoch (it succeeds and writes).
// Both report a negative target displacement as MPI_ERR_DISP, as libep does
// (until stop 28 libep said MPI_ERR_RMA_RANGE, as for any access outside
// the region).
struct Reference {
  bool put_outside_epoch = true;
  bool flush_outside_epoch = true;
  bool unlock_without_lock = true;
  bool locktype = true;
  bool double_lock = true;
  bool fence_in_passive = true;
  bool range = true;
  bool negative_disp = true;
  bool rank = true;
  bool flush_rank = true;
  bool type = true;
  bool count = true;
  bool op = true;
  bool free_in_epoch = true;
  bool request_in_fence = true;
  bool win_null = true;
  bool nocheck_lock_all = true;
  bool nocheck_lock = true;
  bool nocheck_fence = true;
};

Reference reference_for(int processes) {
  Reference r;
  r.request_in_fence = false;
  if (reference::kMpich) {
    r.locktype = false;
    r.range = false;
  } else {
    r.free_in_epoch = false;
    if (processes == 1) {
      r.put_outside_epoch = false;
      r.flush_outside_epoch = false;
      r.fence_in_passive = false;
      r.nocheck_fence = false;
      r.range = false;
      r.flush_rank = false;
    } else {
      r.double_lock = false;
      r.flush_rank = false;
    }
  }
  return r;
}

class Errors {
 public:
  Errors(Context& t, Window& w) : t_(t), w_(w), right_((t.rank() + 1) % t.size()) {}

  // Runs `call` (unless the reference cannot answer it), expects `klass`,
  // prints the outcome where both programs run it, then makes a good call.
  enum Epoch { kPassive, kNone, kFence };

  void expect(const std::string& what, int klass, bool reference_answers,
              const std::function<int()>& call, Epoch epoch = kPassive) {
    if (!kEndpoints && !reference_answers) return;
    const int rc = call();
    if (reference_answers) t_.out("{}: {}", what, class_of(rc));
    t_.expect_class(rc, klass, what);
    good(what, epoch);
  }

  // The good call after an error: inside the current passive epoch (then
  // flushed), in the current fence epoch, or in an epoch of its own.
  void good(const std::string& after, Epoch epoch) {
    const int one = 1;
    if (epoch == kNone) {
      t_.check_rc(api::Win_lock(MPI_LOCK_SHARED, right_, 0, w_.win), "Win_lock after " + after);
    }
    t_.check_rc(api::Accumulate(&one, 1, MPI_INT, right_, kCounter, 1, MPI_INT, MPI_SUM, w_.win),
                "Accumulate after " + after);
    if (epoch == kPassive) {
      t_.check_rc(api::Win_flush(right_, w_.win), "Win_flush after " + after);
    } else if (epoch == kNone) {
      t_.check_rc(api::Win_unlock(right_, w_.win), "Win_unlock after " + after);
    }
    ++good_calls_;
  }

  int good_calls() const { return good_calls_; }

 private:
  Context& t_;
  Window& w_;
  int right_;
  int good_calls_ = 0;
};

void creation(Context& t) {
  // No window yet: the communicator's handler applies.
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  void* base = nullptr;
  api::Win win = api::WIN_NULL;
  int rc = api::Win_allocate(-64, 4, MPI_INFO_NULL, t.comm(), &base, &win);
  t.out("Win_allocate size -64: {}", class_of(rc));
  t.expect_class(rc, MPI_ERR_SIZE, "Win_allocate size -64");
  rc = api::Win_allocate(64, -4, MPI_INFO_NULL, t.comm(), &base, &win);
  t.out("Win_allocate disp_unit -4: {}", class_of(rc));
  t.expect_class(rc, MPI_ERR_DISP, "Win_allocate disp_unit -4");
  int buffer[4] = {};
  if (kEndpoints) {  // MPI wants a positive unit; MPICH's answer was not measured
    rc = api::Win_allocate(64, 0, MPI_INFO_NULL, t.comm(), &base, &win);
    t.expect_class(rc, MPI_ERR_DISP, "Win_allocate disp_unit 0");
  }
  rc = api::Win_create(buffer, -16, 4, MPI_INFO_NULL, t.comm(), &win);
  t.out("Win_create size -16: {}", class_of(rc));
  t.expect_class(rc, MPI_ERR_SIZE, "Win_create size -16");
  t.check(win == api::WIN_NULL, "a failed creation left a window");
}

}  // namespace

void eptest::run(Context& t) {
  const int me = t.rank();
  const int n = t.size();
  const int right = (me + 1) % n;
  creation(t);
  Window w = allocate(t, t.comm(), kInts);
  if (w.win == api::WIN_NULL) return;
  Errors e(t, w);
  const Reference ref = reference_for(n);
  int data[4] = {1, 2, 3, 4};
  int result = 0;
  const int one = 1;

  // Outside any epoch (the fence in allocate() said NOSUCCEED).
  e.expect(
      "Put outside an epoch", MPI_ERR_RMA_SYNC, ref.put_outside_epoch,
      [&] { return api::Put(data, 1, MPI_INT, right, 0, 1, MPI_INT, w.win); }, Errors::kNone);
  e.expect(
      "Win_flush outside an epoch", MPI_ERR_RMA_SYNC, ref.flush_outside_epoch,
      [&] { return api::Win_flush(right, w.win); }, Errors::kNone);
  e.expect(
      "Win_unlock without a lock", MPI_ERR_RMA_SYNC, ref.unlock_without_lock,
      [&] { return api::Win_unlock(right, w.win); }, Errors::kNone);
  e.expect(
      "Win_unlock_all without lock_all", MPI_ERR_RMA_SYNC, ref.unlock_without_lock,
      [&] { return api::Win_unlock_all(w.win); }, Errors::kNone);
  e.expect(
      "Win_lock with a bad lock type", MPI_ERR_LOCKTYPE, ref.locktype,
      [&] { return api::Win_lock(12345, right, 0, w.win); }, Errors::kNone);
  // Unknown assert flags (Open MPI: MPI_ERR_ASSERT; MPICH not measured).
  e.expect(
      "Win_lock with an unknown assert", MPI_ERR_ASSERT, false,
      [&] { return api::Win_lock(MPI_LOCK_SHARED, right, 0x7fff0000, w.win); }, Errors::kNone);
  e.expect(
      "Win_lock_all with an unknown assert", MPI_ERR_ASSERT, false,
      [&] { return api::Win_lock_all(0x7fff0000, w.win); }, Errors::kNone);

  // A second lock of the same target.
  t.check_rc(api::Win_lock(MPI_LOCK_SHARED, right, 0, w.win), "Win_lock");
  e.expect("second Win_lock of one target", MPI_ERR_RMA_SYNC, ref.double_lock,
           [&] { return api::Win_lock(MPI_LOCK_SHARED, right, 0, w.win); });
  t.check_rc(api::Win_unlock(right, w.win), "Win_unlock after the second lock");

  // Inside one lock_all epoch: fence, ranges, ranks, types, counts, ops, free.
  t.check_rc(api::Win_lock_all(0, w.win), "Win_lock_all");
  e.expect("Win_fence inside lock_all", MPI_ERR_RMA_SYNC, ref.fence_in_passive,
           [&] { return api::Win_fence(0, w.win); });
  e.expect("Win_lock inside lock_all", MPI_ERR_RMA_SYNC, ref.double_lock,
           [&] { return api::Win_lock(MPI_LOCK_SHARED, right, 0, w.win); });

  e.expect("Put past the end", MPI_ERR_RMA_RANGE, ref.range,
           [&] { return api::Put(data, 4, MPI_INT, right, kInts - 2, 4, MPI_INT, w.win); });
  e.expect("Put at displacement -2", MPI_ERR_DISP, ref.negative_disp,
           [&] { return api::Put(data, 1, MPI_INT, right, -2, 1, MPI_INT, w.win); });
  int got[2] = {-7, -7};
  e.expect("Get past the end", MPI_ERR_RMA_RANGE, ref.range,
           [&] { return api::Get(got, 2, MPI_INT, right, kInts - 1, 2, MPI_INT, w.win); });
  if (kEndpoints || ref.range) {
    t.check(got[0] == -7 && got[1] == -7, "a Get outside the region wrote the origin buffer");
  }
  e.expect("Accumulate at the end", MPI_ERR_RMA_RANGE, ref.range, [&] {
    return api::Accumulate(&one, 1, MPI_INT, right, kInts, 1, MPI_INT, MPI_SUM, w.win);
  });
  e.expect("Fetch_and_op at the end", MPI_ERR_RMA_RANGE, ref.range,
           [&] { return api::Fetch_and_op(&one, &result, MPI_INT, right, kInts, MPI_SUM, w.win); });
  e.expect("Compare_and_swap at displacement -1", MPI_ERR_DISP, ref.negative_disp, [&] {
    return api::Compare_and_swap(&one, &result, &result, MPI_INT, right, -1, w.win);
  });
  MPI_Datatype wide = MPI_DATATYPE_NULL;  // 4 ints spread over 19: past the end from 0
  t.check_rc(MPI_Type_vector(4, 1, 6, MPI_INT, &wide), "MPI_Type_vector");
  t.check_rc(MPI_Type_commit(&wide), "MPI_Type_commit");
  e.expect("Put through a strided type past the end", MPI_ERR_RMA_RANGE, ref.range,
           [&] { return api::Put(data, 4, MPI_INT, right, 0, 1, wide, w.win); });
  t.check_rc(MPI_Type_free(&wide), "MPI_Type_free");

  e.expect("Put to rank size", MPI_ERR_RANK, ref.rank,
           [&] { return api::Put(data, 1, MPI_INT, n, 0, 1, MPI_INT, w.win); });
  e.expect("Get from rank -5", MPI_ERR_RANK, ref.rank,
           [&] { return api::Get(got, 1, MPI_INT, -5, 0, 1, MPI_INT, w.win); });
  e.expect("Win_flush of rank size", MPI_ERR_RANK, ref.flush_rank,
           [&] { return api::Win_flush(n, w.win); });

  e.expect("Put of MPI_DATATYPE_NULL", MPI_ERR_TYPE, ref.type,
           [&] { return api::Put(data, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, w.win); });
  e.expect("Get into MPI_DATATYPE_NULL at the target", MPI_ERR_TYPE, ref.type,
           [&] { return api::Get(got, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, w.win); });

  e.expect("Put of count -1", MPI_ERR_COUNT, ref.count,
           [&] { return api::Put(data, -1, MPI_INT, right, 0, -1, MPI_INT, w.win); });
  e.expect("Accumulate of target count -1", MPI_ERR_COUNT, ref.count, [&] {
    return api::Accumulate(data, 1, MPI_INT, right, 0, -1, MPI_INT, MPI_SUM, w.win);
  });

  e.expect("Accumulate with MPI_OP_NULL", MPI_ERR_OP, ref.op, [&] {
    return api::Accumulate(data, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_OP_NULL, w.win);
  });
  MPI_Op mine = MPI_OP_NULL;
  t.check_rc(MPI_Op_create([](void*, void*, int*, MPI_Datatype*) {}, 1, &mine), "MPI_Op_create");
  e.expect("Accumulate with a user-defined op", MPI_ERR_OP, ref.op,
           [&] { return api::Accumulate(data, 1, MPI_INT, right, 0, 1, MPI_INT, mine, w.win); });
  t.check_rc(MPI_Op_free(&mine), "MPI_Op_free");

  // Ops MPI does not define on the type (and a type Compare_and_swap does
  // not take: Open MPI accepts it). Open MPI 4.1.4's Fetch_and_op dies
  // of them, and the local path of a one-process window reported them
  // through MPI_COMM_WORLD's handler (rma/op_types.hpp): the reference does
  // not run these.
  const float real = 1.0F;
  float real_result = 0.0F;
  e.expect("Accumulate of MPI_FLOAT with MPI_BAND", MPI_ERR_OP, false, [&] {
    return api::Accumulate(&real, 1, MPI_FLOAT, right, 0, 1, MPI_FLOAT, MPI_BAND, w.win);
  });
  e.expect("Fetch_and_op of MPI_FLOAT with MPI_BAND", MPI_ERR_OP, false, [&] {
    return api::Fetch_and_op(&real, &real_result, MPI_FLOAT, right, 0, MPI_BAND, w.win);
  });
  const int two[2] = {1, 2};
  int two_result[2] = {0, 0};
  e.expect("Fetch_and_op of MPI_2INT with MPI_SUM", MPI_ERR_OP, false,
           [&] { return api::Fetch_and_op(two, two_result, MPI_2INT, right, 0, MPI_SUM, w.win); });
  e.expect("Compare_and_swap of MPI_FLOAT", MPI_ERR_TYPE, false, [&] {
    return api::Compare_and_swap(&real, &real, &real_result, MPI_FLOAT, right, 0, w.win);
  });
  MPI_Datatype reals = MPI_DATATYPE_NULL;  // derived: the element type is found through it
  t.check_rc(MPI_Type_contiguous(2, MPI_FLOAT, &reals), "MPI_Type_contiguous");
  t.check_rc(MPI_Type_commit(&reals), "MPI_Type_commit");
  const float reals_in[2] = {1.0F, 2.0F};
  e.expect("Accumulate of 2 MPI_FLOATs with MPI_LXOR", MPI_ERR_OP, false, [&] {
    return api::Accumulate(reals_in, 2, MPI_FLOAT, right, 0, 1, reals, MPI_LXOR, w.win);
  });
  t.check_rc(MPI_Type_free(&reals), "MPI_Type_free");

  e.expect("Win_free inside lock_all", MPI_ERR_RMA_SYNC, ref.free_in_epoch,
           [&] { return api::Win_free(&w.win); });
  t.check(w.win != api::WIN_NULL, "a failed Win_free reset the handle");
  t.check_rc(api::Win_unlock_all(w.win), "Win_unlock_all");

  // The same checks in a lock_all epoch that asserts MPI_MODE_NOCHECK (no
  // lock is taken; the epoch is still open).
  t.check_rc(api::Win_lock_all(MPI_MODE_NOCHECK, w.win), "Win_lock_all(NOCHECK)");
  e.expect("Win_lock_all inside lock_all(NOCHECK)", MPI_ERR_RMA_SYNC, ref.nocheck_lock_all,
           [&] { return api::Win_lock_all(0, w.win); });
  e.expect("Win_lock inside lock_all(NOCHECK)", MPI_ERR_RMA_SYNC, ref.nocheck_lock,
           [&] { return api::Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win); });
  e.expect("Win_fence inside lock_all(NOCHECK)", MPI_ERR_RMA_SYNC, ref.nocheck_fence,
           [&] { return api::Win_fence(0, w.win); });
  e.expect("Put past the end inside lock_all(NOCHECK)", MPI_ERR_RMA_RANGE, ref.range,
           [&] { return api::Put(data, 4, MPI_INT, right, kInts - 2, 4, MPI_INT, w.win); });
  t.check_rc(api::Win_unlock_all(w.win), "Win_unlock_all(NOCHECK)");

  // A request-based operation in a fence epoch.
  t.check_rc(api::Win_fence(0, w.win), "Win_fence");
  e.expect(
      "Win_fence with an unknown assert", MPI_ERR_ASSERT, false,
      [&] { return api::Win_fence(0x7fff0000, w.win); }, Errors::kFence);
  api::Request req = api::REQUEST_NULL;
  e.expect(
      "Rput in a fence epoch", MPI_ERR_RMA_SYNC, ref.request_in_fence,
      [&] { return api::Rput(data, 1, MPI_INT, right, 0, 1, MPI_INT, w.win, &req); },
      Errors::kFence);
  t.check_rc(api::Win_fence(MPI_MODE_NOSUCCEED, w.win), "Win_fence");

  // MPI_WIN_NULL: no window, so MPI_COMM_WORLD's handler applies. The
  // handler is per process: every rank sets it, between barriers so that
  // none is still using the fatal one.
  if (kEndpoints || ref.win_null) {
    t.barrier();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t.barrier();
    api::Win null = api::WIN_NULL;
    e.expect(
        "Put to MPI_WIN_NULL", MPI_ERR_WIN, ref.win_null,
        [&] { return api::Put(data, 1, MPI_INT, right, 0, 1, MPI_INT, null); }, Errors::kNone);
    e.expect(
        "Win_fence of MPI_WIN_NULL", MPI_ERR_WIN, ref.win_null,
        [&] { return api::Win_fence(0, null); }, Errors::kNone);
    e.expect(
        "Win_lock of MPI_WIN_NULL", MPI_ERR_WIN, ref.win_null,
        [&] { return api::Win_lock(MPI_LOCK_SHARED, right, 0, null); }, Errors::kNone);
    e.expect(
        "Win_free of MPI_WIN_NULL", MPI_ERR_WIN, ref.win_null, [&] { return api::Win_free(&null); },
        Errors::kNone);
    t.barrier();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    t.barrier();
  }

  // Every rank's good calls are done: the windows are final.
  t.barrier();
  const std::vector<int> window = read_locked(t, w.win, me, 0, kInts);
  std::vector<int> want(kInts, 0);
  want[kCounter] = e.good_calls();  // every rank made as many
  // The count of good calls differs where the reference skips cases: the
  // line says only whether the window is right.
  t.out("window after the errors holds the good calls only: {}", window == want);
  t.check(window == want, "window after the errors: " + join(window) + ", expected " + join(want));
  free_window(t, w.win);
}
