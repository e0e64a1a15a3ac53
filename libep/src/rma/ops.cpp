// The RMA operations: Put, Get, the accumulate family and their request forms.
//
// Each call checks its arguments and its epoch, checks the access against
// the TARGET ENDPOINT's region (MPI sees one window per process and would
// let an overrun land in the neighbour's region: research rma.md 3.8 #7),
// then either copies directly (Put/Get to an endpoint of the same process,
// unified model: research 3.3) or issues the MPI operation on the process's
// MPI window at displacement region base + disp * the target's disp_unit
// (the MPI window's disp_unit is 1, so derived target types apply unchanged).
// Every accumulate-family operation goes through MPI, also to the caller's
// own process: MPI accumulates are not atomic with CPU atomics on the same
// word on either MPI (research 2.6: up to 444 384 lost updates).
#include <cstring>
#include <string>
#include <vector>

#include "ep/rma.hpp"
#include "object/error.hpp"
#include "object/request.hpp"
#include "p2p/engine.hpp"
#include "rma/cas64.hpp"
#include "rma/op_types.hpp"
#include "rma/window.hpp"

namespace ep {

using detail::RegionEntry;
using detail::WinImpl;

namespace {

// Where one checked access goes.
struct Access {
  bool proc_null = false;
  detail::TypeLayout layout;  // of the target datatype
  int process = 0;
  MPI_Aint mpi_disp = 0;        // in the MPI window
  std::byte* direct = nullptr;  // the target element 0's address, if the target is local
};

bool predefined_op(MPI_Op op, bool no_op_allowed) {
  static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,    MPI_PROD, MPI_LAND,
                               MPI_BAND,   MPI_LOR,    MPI_BOR,    MPI_LXOR, MPI_BXOR,
                               MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE};
  for (MPI_Op known : ops) {
    if (op == known) return true;
  }
  return no_op_allowed && op == MPI_NO_OP;
}

// A null datatype is refused here; other invalid ones by the layout query
// or, on the MPI path, by MPI itself (before it does anything).
int check_type(WinImpl* w, MPI_Datatype type, const char* what, detail::TypeLayout* layout,
               const char* fn) {
  if (type == MPI_DATATYPE_NULL) {
    return detail::raise_win(w, MPI_ERR_TYPE, fn, "{} datatype is MPI_DATATYPE_NULL", what);
  }
  if (!layout) return MPI_SUCCESS;
  if (detail::query_layout(type, layout) != MPI_SUCCESS) {
    return detail::raise_win(w, MPI_ERR_TYPE, fn, "{} datatype is not valid", what);
  }
  return MPI_SUCCESS;
}

int check_count(WinImpl* w, int count, const char* what, const char* fn) {
  if (count >= 0) return MPI_SUCCESS;
  return detail::raise_win(w, MPI_ERR_COUNT, fn, "negative {} count {}", what, count);
}

// The last target type (and op) of this thread that passed the checks
// below, if it is a predefined type, which is never freed (a derived type's
// handle may be freed and taken by another type): a loop of calls on one
// type and op looks them up once. The lookups were half the instructions of
// a Fetch_and_op between endpoints of one process (callgrind, stop 28).
struct Passed {
  bool set = false;
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;

  bool holds(MPI_Op o, MPI_Datatype t) const { return set && o == op && t == type; }
  void remember(MPI_Op o, MPI_Datatype t) {
    set = true;
    op = o;
    type = t;
  }
};

// The target datatype of an accumulate-family call (`what` names it in
// messages), then MPI_ERR_OP unless MPI defines `op` on its elements:
// rma/op_types.hpp says why libep, not MPI, checks it.
int check_target_op(WinImpl* w, MPI_Op op, MPI_Datatype type, const char* what, const char* fn) {
  thread_local Passed passed;
  if (passed.holds(op, type)) return MPI_SUCCESS;
  detail::TypeLayout layout;
  int rc = check_type(w, type, what, &layout, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (op == MPI_REPLACE || op == MPI_NO_OP) return MPI_SUCCESS;
  MPI_Datatype element = MPI_DATATYPE_NULL;
  rc = detail::element_type(type, &element);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Type_get_contents");
  if (element == MPI_DATATYPE_NULL) {
    return detail::raise_win(w, MPI_ERR_TYPE, fn,
                             "the target datatype is built of several predefined types; an "
                             "accumulate needs one");
  }
  if (!detail::op_defined_on(op, element)) {
    return detail::raise_win(w, MPI_ERR_OP, fn, "{} is not defined on {}", detail::op_name(op),
                             detail::type_name(element, "its type"));
  }
  if (element == type) passed.remember(op, type);  // a predefined type is its own element
  return MPI_SUCCESS;
}

// The datatype of Compare_and_swap: MPI_ERR_TYPE unless it is an integer,
// logical or byte type.
int check_swappable(WinImpl* w, MPI_Datatype type, const char* fn) {
  thread_local Passed passed;
  if (passed.holds(MPI_OP_NULL, type)) return MPI_SUCCESS;
  detail::TypeLayout layout;
  const int rc = check_type(w, type, "the", &layout, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!detail::swappable(type)) {
    return detail::raise_win(w, MPI_ERR_TYPE, fn,
                             "{} is not an integer, logical or byte type, which "
                             "Compare_and_swap needs",
                             detail::type_name(type, "the type"));
  }
  passed.remember(MPI_OP_NULL, type);  // only predefined types are swappable
  return MPI_SUCCESS;
}

// Checks everything about the target side and the epoch; fills `a`.
int target_access(WinImpl* w, int rank, MPI_Aint disp, int count, MPI_Datatype type,
                  bool request_based, const char* fn, Access* a) {
  if (rank == MPI_PROC_NULL) {
    a->proc_null = true;
    return MPI_SUCCESS;
  }
  const int n = static_cast<int>(w->shared->by_rank.size());
  if (rank < 0 || rank >= n) {
    return detail::raise_win(w, MPI_ERR_RANK, fn,
                             "target rank {} is not in the window's group of {}", rank, n);
  }
  int rc = check_count(w, count, "target", fn);
  if (rc != MPI_SUCCESS) return rc;
  detail::TypeLayout& layout = a->layout;
  rc = check_type(w, type, "the target", &layout, fn);
  if (rc != MPI_SUCCESS) return rc;
  // MPI's displacement is relative to the target's window base and never
  // negative (libep has no dynamic windows, whose displacements are
  // addresses); both MPIs refuse it as an argument, before any access.
  if (disp < 0) {
    return detail::raise_win(w, MPI_ERR_DISP, fn, "target displacement {} is negative", disp);
  }
  const RegionEntry& r = w->shared->by_rank[static_cast<std::size_t>(rank)];
  MPI_Aint offset = 0;
  if (__builtin_mul_overflow(disp, static_cast<MPI_Aint>(r.disp_unit), &offset)) {
    return detail::raise_win(w, MPI_ERR_RMA_RANGE, fn, "displacement {} overflows", disp);
  }
  const detail::Footprint fp = layout.footprint(count);
  if (fp.bytes > 0 && layout.size > 0) {
    const MPI_Aint low = offset + fp.offset;
    const MPI_Aint high = low + static_cast<MPI_Aint>(fp.bytes);
    if (low < 0 || high > r.size) {
      return detail::raise_win(w, MPI_ERR_RMA_RANGE, fn,
                               "out of range (MPI_ERR_RMA_RANGE): bytes [{}, {}) of target {}, "
                               "whose region holds {} bytes; nothing moved",
                               low, high, rank, r.size);
    }
  }
  rc = detail::enter_access(w, rank, request_based, fn);
  if (rc != MPI_SUCCESS) return rc;
  a->process = r.mpi_rank;
  a->mpi_disp = r.base + offset;
  std::byte* local = w->shared->local_address[static_cast<std::size_t>(rank)];
  if (local && (w->shared->unified || w->shared->local_atomics)) a->direct = local + offset;
  return MPI_SUCCESS;
}

int check_win(Win win, const char* fn, WinImpl** w) {
  *w = detail::valid_win(win);
  return *w ? MPI_SUCCESS : detail::invalid_win(fn);
}

// The request of an R-form: complete already (`mpi` null) or in MPI.
Request make_request(WinImpl* w, MPI_Request mpi) {
  auto* r = new detail::RequestImpl;
  r->kind = detail::RequestImpl::Kind::rma;
  r->endpoint = w->endpoint;
  r->status = detail::empty_status();
  r->mpi = mpi;
  r->state.store(mpi == MPI_REQUEST_NULL ? detail::RequestImpl::State::complete
                                         : detail::RequestImpl::State::in_mpi,
                 std::memory_order_relaxed);
  return detail::handle_of(r);
}

int check_request_ptr(WinImpl* w, Request* request, const char* fn) {
  if (request) return MPI_SUCCESS;
  return detail::raise_win(w, MPI_ERR_ARG, fn, "the request pointer is null");
}

// ---- Put and Get ----

// What Put and Get share before they move data: the checks, the target's
// access, and the origin's layout where the target is in this process.
// `*done`: nothing to move (MPI_PROC_NULL, or no elements), the request
// already made.
struct Transfer {
  WinImpl* w = nullptr;
  Access a;
  detail::TypeLayout origin_layout;
};

int prepare_transfer(Win win, int origin_count, MPI_Datatype origin_type, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_type,
                     Request* request, const char* fn, Transfer* t, bool* done) {
  *done = false;
  int rc = check_win(win, fn, &t->w);
  if (rc != MPI_SUCCESS) return rc;
  WinImpl* w = t->w;
  if (request && (rc = check_request_ptr(w, request, fn)) != MPI_SUCCESS) return rc;
  if ((rc = check_count(w, origin_count, "origin", fn)) != MPI_SUCCESS) return rc;
  if ((rc = check_type(w, origin_type, "the origin", nullptr, fn)) != MPI_SUCCESS) return rc;
  rc = target_access(w, target_rank, target_disp, target_count, target_type, request != nullptr, fn,
                     &t->a);
  if (rc != MPI_SUCCESS) return rc;
  if (t->a.proc_null || origin_count == 0) {
    if (request) *request = make_request(w, MPI_REQUEST_NULL);
    *done = true;
    return MPI_SUCCESS;
  }
  if (t->a.direct) return check_type(w, origin_type, "the origin", &t->origin_layout, fn);
  return MPI_SUCCESS;
}

// The end of a transfer: through MPI (`rc` of the call named `mpi_call`,
// `mpi` its request for the R-forms) or by a same-process copy (`rc` of it).
int finish_transfer(const Transfer& t, int rc, MPI_Request mpi, Request* request, const char* fn,
                    const char* mpi_call) {
  if (rc != MPI_SUCCESS) {
    return detail::raise_mpi(t.w, rc, fn, t.a.direct ? "the same-process copy" : mpi_call);
  }
  if (!t.a.direct) detail::touch(t.w, t.a.process);
  if (request) *request = make_request(t.w, mpi);
  return MPI_SUCCESS;
}

int put(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_type, Win win, Request* request,
        const char* fn) {
  Transfer t;
  bool done = false;
  int rc = prepare_transfer(win, origin_count, origin_type, target_rank, target_disp, target_count,
                            target_type, request, fn, &t, &done);
  if (rc != MPI_SUCCESS || done) return rc;
  MPI_Request mpi = MPI_REQUEST_NULL;
  if (t.a.direct) {
    rc = detail::copy_typed({origin_addr, origin_count, origin_type, t.origin_layout},
                            {t.a.direct, target_count, target_type, t.a.layout});
  } else if (request) {
    rc = MPI_Rput(origin_addr, origin_count, origin_type, t.a.process, t.a.mpi_disp, target_count,
                  target_type, t.w->shared->win, &mpi);
  } else {
    rc = MPI_Put(origin_addr, origin_count, origin_type, t.a.process, t.a.mpi_disp, target_count,
                 target_type, t.w->shared->win);
  }
  return finish_transfer(t, rc, mpi, request, fn, request ? "MPI_Rput" : "MPI_Put");
}

int get(void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_type, Win win, Request* request,
        const char* fn) {
  Transfer t;
  bool done = false;
  int rc = prepare_transfer(win, origin_count, origin_type, target_rank, target_disp, target_count,
                            target_type, request, fn, &t, &done);
  if (rc != MPI_SUCCESS || done) return rc;
  MPI_Request mpi = MPI_REQUEST_NULL;
  if (t.a.direct) {
    rc = detail::copy_typed(detail::ConstTyped{t.a.direct, target_count, target_type, t.a.layout},
                            detail::Typed{origin_addr, origin_count, origin_type, t.origin_layout});
  } else if (request) {
    rc = MPI_Rget(origin_addr, origin_count, origin_type, t.a.process, t.a.mpi_disp, target_count,
                  target_type, t.w->shared->win, &mpi);
  } else {
    rc = MPI_Get(origin_addr, origin_count, origin_type, t.a.process, t.a.mpi_disp, target_count,
                 target_type, t.w->shared->win);
  }
  return finish_transfer(t, rc, mpi, request, fn, request ? "MPI_Rget" : "MPI_Get");
}

// ---- The accumulate family: always through MPI ----

struct AccArgs {
  const void* origin_addr;
  int origin_count;
  MPI_Datatype origin_type;
  void* result_addr;  // Get_accumulate only
  int result_count;
  MPI_Datatype result_type;
  int target_rank;
  MPI_Aint target_disp;
  int target_count;
  MPI_Datatype target_type;
  MPI_Op op;
};

int accumulate(const AccArgs& x, bool fetch, Win win, Request* request, const char* fn) {
  WinImpl* w = nullptr;
  int rc = check_win(win, fn, &w);
  if (rc != MPI_SUCCESS) return rc;
  if (request && (rc = check_request_ptr(w, request, fn)) != MPI_SUCCESS) return rc;
  if (!predefined_op(x.op, fetch)) {
    return detail::raise_win(w, MPI_ERR_OP, fn,
                             fetch ? "the op must be predefined, MPI_REPLACE or MPI_NO_OP"
                                   : "the op must be predefined or MPI_REPLACE");
  }
  const bool reads_origin = !(fetch && x.op == MPI_NO_OP);
  if (reads_origin) {
    if ((rc = check_count(w, x.origin_count, "origin", fn)) != MPI_SUCCESS) return rc;
    if ((rc = check_type(w, x.origin_type, "the origin", nullptr, fn)) != MPI_SUCCESS) return rc;
  }
  if (fetch) {
    if ((rc = check_count(w, x.result_count, "result", fn)) != MPI_SUCCESS) return rc;
    if ((rc = check_type(w, x.result_type, "the result", nullptr, fn)) != MPI_SUCCESS) return rc;
  }
  if (x.target_rank != MPI_PROC_NULL &&
      (rc = check_target_op(w, x.op, x.target_type, "the target", fn)) != MPI_SUCCESS) {
    return rc;
  }
  Access a;
  rc = target_access(w, x.target_rank, x.target_disp, x.target_count, x.target_type,
                     request != nullptr, fn, &a);
  if (rc != MPI_SUCCESS) return rc;
  if (a.proc_null) {
    if (request) *request = make_request(w, MPI_REQUEST_NULL);
    return MPI_SUCCESS;
  }
  if (w->shared->local_atomics) {
    rc = detail::local_atomic(
        *w->shared,
        {x.origin_addr, x.origin_count, x.origin_type, fetch ? x.result_addr : nullptr,
         x.result_count, x.result_type, nullptr, a.direct, x.target_count, x.target_type, x.op});
    if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "the same-process accumulate");
    if (request) *request = make_request(w, MPI_REQUEST_NULL);
    return MPI_SUCCESS;
  }
  MPI_Win mwin = w->shared->win;
  MPI_Request mpi = MPI_REQUEST_NULL;
  const char* call = nullptr;
  if (fetch) {
    call = request ? "MPI_Rget_accumulate" : "MPI_Get_accumulate";
    rc = request ? MPI_Rget_accumulate(x.origin_addr, x.origin_count, x.origin_type, x.result_addr,
                                       x.result_count, x.result_type, a.process, a.mpi_disp,
                                       x.target_count, x.target_type, x.op, mwin, &mpi)
                 : MPI_Get_accumulate(x.origin_addr, x.origin_count, x.origin_type, x.result_addr,
                                      x.result_count, x.result_type, a.process, a.mpi_disp,
                                      x.target_count, x.target_type, x.op, mwin);
  } else {
    call = request ? "MPI_Raccumulate" : "MPI_Accumulate";
    rc = request ? MPI_Raccumulate(x.origin_addr, x.origin_count, x.origin_type, a.process,
                                   a.mpi_disp, x.target_count, x.target_type, x.op, mwin, &mpi)
                 : MPI_Accumulate(x.origin_addr, x.origin_count, x.origin_type, a.process,
                                  a.mpi_disp, x.target_count, x.target_type, x.op, mwin);
  }
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, call);
  detail::touch(w, a.process);
  if (request) *request = make_request(w, mpi);
  return MPI_SUCCESS;
}

}  // namespace

int Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win) {
  return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr, "Put");
}

int Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win) {
  return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr, "Get");
}

int Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win,
         Request* request) {
  if (!request) {
    WinImpl* w = detail::valid_win(win);
    if (!w) return detail::invalid_win("Rput");
    return check_request_ptr(w, request, "Rput");
  }
  return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request, "Rput");
}

int Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, Win win,
         Request* request) {
  if (!request) {
    WinImpl* w = detail::valid_win(win);
    if (!w) return detail::invalid_win("Rget");
    return check_request_ptr(w, request, "Rget");
  }
  return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request, "Rget");
}

int Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count,
               MPI_Datatype target_datatype, MPI_Op op, Win win) {
  const AccArgs x{origin_addr, origin_count, origin_datatype, nullptr,         0, MPI_DATATYPE_NULL,
                  target_rank, target_disp,  target_count,    target_datatype, op};
  return accumulate(x, false, win, nullptr, "Accumulate");
}

int Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype, MPI_Op op, Win win, Request* request) {
  if (!request) {
    WinImpl* w = detail::valid_win(win);
    if (!w) return detail::invalid_win("Raccumulate");
    return check_request_ptr(w, request, "Raccumulate");
  }
  const AccArgs x{origin_addr, origin_count, origin_datatype, nullptr,         0, MPI_DATATYPE_NULL,
                  target_rank, target_disp,  target_count,    target_datatype, op};
  return accumulate(x, false, win, request, "Raccumulate");
}

int Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   void* result_addr, int result_count, MPI_Datatype result_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, Win win) {
  const AccArgs x{origin_addr,
                  origin_count,
                  origin_datatype,
                  result_addr,
                  result_count,
                  result_datatype,
                  target_rank,
                  target_disp,
                  target_count,
                  target_datatype,
                  op};
  return accumulate(x, true, win, nullptr, "Get_accumulate");
}

int Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    void* result_addr, int result_count, MPI_Datatype result_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, Win win, Request* request) {
  if (!request) {
    WinImpl* w = detail::valid_win(win);
    if (!w) return detail::invalid_win("Rget_accumulate");
    return check_request_ptr(w, request, "Rget_accumulate");
  }
  const AccArgs x{origin_addr,
                  origin_count,
                  origin_datatype,
                  result_addr,
                  result_count,
                  result_datatype,
                  target_rank,
                  target_disp,
                  target_count,
                  target_datatype,
                  op};
  return accumulate(x, true, win, request, "Rget_accumulate");
}

int Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                 MPI_Aint target_disp, MPI_Op op, Win win) {
  constexpr const char* fn = "Fetch_and_op";
  WinImpl* w = nullptr;
  int rc = check_win(win, fn, &w);
  if (rc != MPI_SUCCESS) return rc;
  if (!predefined_op(op, true)) {
    return detail::raise_win(w, MPI_ERR_OP, fn,
                             "the op must be predefined, MPI_REPLACE or MPI_NO_OP");
  }
  if (target_rank != MPI_PROC_NULL &&
      (rc = check_target_op(w, op, datatype, "the", fn)) != MPI_SUCCESS) {
    return rc;
  }
  Access a;
  rc = target_access(w, target_rank, target_disp, 1, datatype, false, fn, &a);
  if (rc != MPI_SUCCESS || a.proc_null) return rc;
  if (w->shared->local_atomics) {
    rc = detail::local_atomic(*w->shared, {origin_addr, 1, datatype, result_addr, 1, datatype,
                                           nullptr, a.direct, 1, datatype, op});
    if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "the same-process Fetch_and_op");
    return MPI_SUCCESS;
  }
  rc = MPI_Fetch_and_op(origin_addr, result_addr, datatype, a.process, a.mpi_disp, op,
                        w->shared->win);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Fetch_and_op");
  detail::touch(w, a.process);
  return MPI_SUCCESS;
}

int Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, Win win) {
  constexpr const char* fn = "Compare_and_swap";
  WinImpl* w = nullptr;
  int rc = check_win(win, fn, &w);
  if (rc != MPI_SUCCESS) return rc;
  if (target_rank != MPI_PROC_NULL && (rc = check_swappable(w, datatype, fn)) != MPI_SUCCESS) {
    return rc;
  }
  Access a;
  rc = target_access(w, target_rank, target_disp, 1, datatype, false, fn, &a);
  if (rc != MPI_SUCCESS || a.proc_null) return rc;
  if (a.layout.size == 8 && w->shared->mpi_size > 1 && detail::cas64_crashes()) {
    return detail::raise_win(
        w, MPI_ERR_UNSUPPORTED_OPERATION, fn,
        "8-byte MPI_Compare_and_swap crashes Open MPI 4.1 (osc/rdma over vader's single-copy "
        "path, open-mpi/ompi#11349); use a 4-byte type, or run with `--mca "
        "btl_vader_single_copy_mechanism none` or `--mca osc ucx`");
  }
  if (w->shared->local_atomics) {
    rc = detail::local_atomic(*w->shared, {origin_addr, 1, datatype, result_addr, 1, datatype,
                                           compare_addr, a.direct, 1, datatype, MPI_REPLACE});
    if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "the same-process Compare_and_swap");
    return MPI_SUCCESS;
  }
  rc = MPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, a.process, a.mpi_disp,
                            w->shared->win);
  if (rc != MPI_SUCCESS) return detail::raise_mpi(w, rc, fn, "MPI_Compare_and_swap");
  detail::touch(w, a.process);
  return MPI_SUCCESS;
}

}  // namespace ep
