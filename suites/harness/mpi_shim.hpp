// The plain-MPI side of a differential test: the names of libep's API
// (ep::Send, ep::Comm, ep::Status, ...) over the MPI C bindings, so that one
// test source compiles against either. Nothing here adds behaviour: each
// function forwards to its MPI_ namesake, so the MPI variant shows what an MPI
// process sees and the endpoint variant must show the same.
#pragma once

#include <mpi.h>

namespace eptest::mpi_shim {

using Comm = MPI_Comm;
using Request = MPI_Request;
using Message = MPI_Message;
using Status = MPI_Status;

// Not constexpr: Open MPI's null handles are addresses of library globals.
inline Comm const COMM_NULL = MPI_COMM_NULL;
inline Request const REQUEST_NULL = MPI_REQUEST_NULL;
inline Message const MESSAGE_NULL = MPI_MESSAGE_NULL;
inline Message const MESSAGE_NO_PROC = MPI_MESSAGE_NO_PROC;
inline Status* const STATUS_IGNORE = MPI_STATUS_IGNORE;
inline Status* const STATUSES_IGNORE = MPI_STATUSES_IGNORE;

// Communicator queries and error handling.
inline int Comm_rank(Comm c, int* r) { return MPI_Comm_rank(c, r); }
inline int Comm_size(Comm c, int* s) { return MPI_Comm_size(c, s); }
inline int Comm_dup(Comm c, Comm* out) { return MPI_Comm_dup(c, out); }
inline int Comm_free(Comm* c) { return MPI_Comm_free(c); }
inline int Comm_set_errhandler(Comm c, MPI_Errhandler h) { return MPI_Comm_set_errhandler(c, h); }
inline int Comm_get_errhandler(Comm c, MPI_Errhandler* h) { return MPI_Comm_get_errhandler(c, h); }
inline int Comm_get_attr(Comm c, int key, void* value, int* flag) {
  return MPI_Comm_get_attr(c, key, value, flag);
}

// Blocking sends.
inline int Send(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c) {
  return MPI_Send(b, n, t, dest, tag, c);
}
inline int Ssend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c) {
  return MPI_Ssend(b, n, t, dest, tag, c);
}
inline int Rsend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c) {
  return MPI_Rsend(b, n, t, dest, tag, c);
}

// Non-blocking sends.
inline int Isend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Isend(b, n, t, dest, tag, c, r);
}
inline int Issend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Issend(b, n, t, dest, tag, c, r);
}
inline int Irsend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Irsend(b, n, t, dest, tag, c, r);
}

// Receives.
inline int Recv(void* b, int n, MPI_Datatype t, int src, int tag, Comm c, Status* s) {
  return MPI_Recv(b, n, t, src, tag, c, s);
}
inline int Irecv(void* b, int n, MPI_Datatype t, int src, int tag, Comm c, Request* r) {
  return MPI_Irecv(b, n, t, src, tag, c, r);
}
inline int Sendrecv(const void* sb, int sn, MPI_Datatype st, int dest, int stag, void* rb, int rn,
                    MPI_Datatype rt, int src, int rtag, Comm c, Status* s) {
  return MPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, c, s);
}
inline int Sendrecv_replace(void* b, int n, MPI_Datatype t, int dest, int stag, int src, int rtag,
                            Comm c, Status* s) {
  return MPI_Sendrecv_replace(b, n, t, dest, stag, src, rtag, c, s);
}

// Probes and matched probes.
inline int Probe(int src, int tag, Comm c, Status* s) { return MPI_Probe(src, tag, c, s); }
inline int Iprobe(int src, int tag, Comm c, int* flag, Status* s) {
  return MPI_Iprobe(src, tag, c, flag, s);
}
inline int Mprobe(int src, int tag, Comm c, Message* m, Status* s) {
  return MPI_Mprobe(src, tag, c, m, s);
}
inline int Improbe(int src, int tag, Comm c, int* flag, Message* m, Status* s) {
  return MPI_Improbe(src, tag, c, flag, m, s);
}
inline int Mrecv(void* b, int n, MPI_Datatype t, Message* m, Status* s) {
  return MPI_Mrecv(b, n, t, m, s);
}
inline int Imrecv(void* b, int n, MPI_Datatype t, Message* m, Request* r) {
  return MPI_Imrecv(b, n, t, m, r);
}

// Completion.
inline int Wait(Request* r, Status* s) { return MPI_Wait(r, s); }
inline int Waitall(int n, Request r[], Status s[]) { return MPI_Waitall(n, r, s); }
inline int Waitany(int n, Request r[], int* index, Status* s) {
  return MPI_Waitany(n, r, index, s);
}
inline int Waitsome(int n, Request r[], int* outcount, int indices[], Status s[]) {
  return MPI_Waitsome(n, r, outcount, indices, s);
}
inline int Test(Request* r, int* flag, Status* s) { return MPI_Test(r, flag, s); }
inline int Testall(int n, Request r[], int* flag, Status s[]) { return MPI_Testall(n, r, flag, s); }
inline int Testany(int n, Request r[], int* index, int* flag, Status* s) {
  return MPI_Testany(n, r, index, flag, s);
}
inline int Testsome(int n, Request r[], int* outcount, int indices[], Status s[]) {
  return MPI_Testsome(n, r, outcount, indices, s);
}
inline int Request_free(Request* r) { return MPI_Request_free(r); }
inline int Cancel(Request* r) { return MPI_Cancel(r); }
inline int Test_cancelled(const Status* s, int* flag) { return MPI_Test_cancelled(s, flag); }
inline int Get_count(const Status* s, MPI_Datatype t, int* n) { return MPI_Get_count(s, t, n); }
inline int Get_elements(const Status* s, MPI_Datatype t, int* n) {
  return MPI_Get_elements(s, t, n);
}
inline int Get_elements_x(const Status* s, MPI_Datatype t, MPI_Count* n) {
  return MPI_Get_elements_x(s, t, n);
}

// Persistent requests.
inline int Send_init(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Send_init(b, n, t, dest, tag, c, r);
}
inline int Ssend_init(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Ssend_init(b, n, t, dest, tag, c, r);
}
inline int Rsend_init(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Rsend_init(b, n, t, dest, tag, c, r);
}
inline int Recv_init(void* b, int n, MPI_Datatype t, int src, int tag, Comm c, Request* r) {
  return MPI_Recv_init(b, n, t, src, tag, c, r);
}
inline int Start(Request* r) { return MPI_Start(r); }
inline int Startall(int n, Request r[]) { return MPI_Startall(n, r); }

// Buffered sends: the MPI process's buffer is the endpoint's (ep/p2p.hpp),
// so the communicator only names whose buffer it is.
inline int Bsend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c) {
  return MPI_Bsend(b, n, t, dest, tag, c);
}
inline int Ibsend(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Ibsend(b, n, t, dest, tag, c, r);
}
inline int Bsend_init(const void* b, int n, MPI_Datatype t, int dest, int tag, Comm c, Request* r) {
  return MPI_Bsend_init(b, n, t, dest, tag, c, r);
}
inline int Buffer_attach(Comm, void* b, int size) { return MPI_Buffer_attach(b, size); }
inline int Buffer_detach(Comm, void* b, int* size) { return MPI_Buffer_detach(b, size); }
inline int Request_get_status(Request r, int* flag, Status* s) {
  return MPI_Request_get_status(r, flag, s);
}
inline int Pack(const void* in, int n, MPI_Datatype t, void* out, int outsize, int* position,
                Comm c) {
  return MPI_Pack(in, n, t, out, outsize, position, c);
}
inline int Unpack(const void* in, int insize, int* position, void* out, int n, MPI_Datatype t,
                  Comm c) {
  return MPI_Unpack(in, insize, position, out, n, t, c);
}
inline int Pack_size(int n, MPI_Datatype t, Comm c, int* size) {
  return MPI_Pack_size(n, t, c, size);
}
inline int Abort(Comm c, int code) { return MPI_Abort(c, code); }

// One-sided communication (ep/rma.hpp).
using Win = MPI_Win;
inline Win const WIN_NULL = MPI_WIN_NULL;

inline int Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, Comm c, Win* w) {
  return MPI_Win_create(base, size, disp_unit, info, c, w);
}
inline int Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, Comm c, void* baseptr,
                        Win* w) {
  return MPI_Win_allocate(size, disp_unit, info, c, baseptr, w);
}
inline int Win_free(Win* w) { return MPI_Win_free(w); }
inline int Win_get_attr(Win w, int key, void* value, int* flag) {
  return MPI_Win_get_attr(w, key, value, flag);
}
inline int Win_set_errhandler(Win w, MPI_Errhandler h) { return MPI_Win_set_errhandler(w, h); }
inline int Win_get_errhandler(Win w, MPI_Errhandler* h) { return MPI_Win_get_errhandler(w, h); }

inline int Put(const void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
               MPI_Datatype tt, Win w) {
  return MPI_Put(o, on, ot, target, disp, tn, tt, w);
}
inline int Get(void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn, MPI_Datatype tt,
               Win w) {
  return MPI_Get(o, on, ot, target, disp, tn, tt, w);
}
inline int Accumulate(const void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
                      MPI_Datatype tt, MPI_Op op, Win w) {
  return MPI_Accumulate(o, on, ot, target, disp, tn, tt, op, w);
}
inline int Get_accumulate(const void* o, int on, MPI_Datatype ot, void* r, int rn, MPI_Datatype rt,
                          int target, MPI_Aint disp, int tn, MPI_Datatype tt, MPI_Op op, Win w) {
  return MPI_Get_accumulate(o, on, ot, r, rn, rt, target, disp, tn, tt, op, w);
}
inline int Fetch_and_op(const void* o, void* r, MPI_Datatype t, int target, MPI_Aint disp,
                        MPI_Op op, Win w) {
  return MPI_Fetch_and_op(o, r, t, target, disp, op, w);
}
inline int Compare_and_swap(const void* o, const void* cmp, void* r, MPI_Datatype t, int target,
                            MPI_Aint disp, Win w) {
  return MPI_Compare_and_swap(o, cmp, r, t, target, disp, w);
}
inline int Rput(const void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
                MPI_Datatype tt, Win w, Request* req) {
  return MPI_Rput(o, on, ot, target, disp, tn, tt, w, req);
}
inline int Rget(void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
                MPI_Datatype tt, Win w, Request* req) {
  return MPI_Rget(o, on, ot, target, disp, tn, tt, w, req);
}
inline int Raccumulate(const void* o, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
                       MPI_Datatype tt, MPI_Op op, Win w, Request* req) {
  return MPI_Raccumulate(o, on, ot, target, disp, tn, tt, op, w, req);
}
inline int Rget_accumulate(const void* o, int on, MPI_Datatype ot, void* r, int rn, MPI_Datatype rt,
                           int target, MPI_Aint disp, int tn, MPI_Datatype tt, MPI_Op op, Win w,
                           Request* req) {
  return MPI_Rget_accumulate(o, on, ot, r, rn, rt, target, disp, tn, tt, op, w, req);
}

inline int Win_fence(int assert, Win w) { return MPI_Win_fence(assert, w); }
inline int Win_lock(int type, int rank, int assert, Win w) {
  return MPI_Win_lock(type, rank, assert, w);
}
inline int Win_unlock(int rank, Win w) { return MPI_Win_unlock(rank, w); }
inline int Win_lock_all(int assert, Win w) { return MPI_Win_lock_all(assert, w); }
inline int Win_unlock_all(Win w) { return MPI_Win_unlock_all(w); }
inline int Win_flush(int rank, Win w) { return MPI_Win_flush(rank, w); }
inline int Win_flush_all(Win w) { return MPI_Win_flush_all(w); }
inline int Win_flush_local(int rank, Win w) { return MPI_Win_flush_local(rank, w); }
inline int Win_flush_local_all(Win w) { return MPI_Win_flush_local_all(w); }
inline int Win_sync(Win w) { return MPI_Win_sync(w); }

}  // namespace eptest::mpi_shim
