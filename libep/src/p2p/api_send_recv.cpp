// Public sends and receives: check the arguments, then hand the operation
// to the engine. Blocking calls use a request on the stack.
#include <limits>
#include <memory>

#include "ep/p2p.hpp"
#include "p2p/api_common.hpp"
#include "p2p/engine.hpp"

namespace ep {

using detail::MessageArgs;
using detail::RequestImpl;
using detail::SendMode;

namespace {

int blocking_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, Comm comm,
                  SendMode mode, const char* function) {
  MessageArgs args;
  int rc = detail::check_send(comm, buf, count, type, dest, tag, function, &args);
  if (rc != MPI_SUCCESS) return rc;
  RequestImpl r;
  detail::fill_request(&r, RequestImpl::Kind::send, mode, args, buf, count, type, dest, tag);
  rc = detail::start_request(&r, /*blocking=*/true, function);
  if (rc != MPI_SUCCESS) return rc;
  detail::wait_request(&r);
  return detail::conclude(r, STATUS_IGNORE, function);
}

int nonblocking_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, Comm comm,
                     Request* request, SendMode mode, bool persistent, const char* function) {
  MessageArgs args;
  int rc = detail::check_send(comm, buf, count, type, dest, tag, function, &args);
  if (rc != MPI_SUCCESS) return rc;
  if (!request)
    return detail::raise(args.endpoint, MPI_ERR_REQUEST, function, "request is a null pointer");
  auto* r = detail::new_request(args.endpoint);
  detail::fill_request(r, RequestImpl::Kind::send, mode, args, buf, count, type, dest, tag);
  r->persistent = persistent;
  rc = detail::hold_type(r);
  if (rc != MPI_SUCCESS) {
    detail::free_request(r);
    return detail::check_mpi(rc, args.endpoint, function, "MPI_Type_dup");
  }
  if (!persistent) {
    rc = detail::start_request(r, /*blocking=*/false, function);
    if (rc != MPI_SUCCESS) {
      detail::free_request(r);
      return rc;
    }
  }
  *request = detail::handle_of(r);
  return MPI_SUCCESS;
}

int nonblocking_recv(void* buf, int count, MPI_Datatype type, int source, int tag, Comm comm,
                     Request* request, bool persistent, const char* function) {
  MessageArgs args;
  int rc = detail::check_recv(comm, buf, count, type, source, tag, function, &args);
  if (rc != MPI_SUCCESS) return rc;
  if (!request)
    return detail::raise(args.endpoint, MPI_ERR_REQUEST, function, "request is a null pointer");
  auto* r = detail::new_request(args.endpoint);
  detail::fill_request(r, RequestImpl::Kind::recv, SendMode::standard, args, buf, count, type,
                       source, tag);
  r->persistent = persistent;
  rc = detail::hold_type(r);
  if (rc != MPI_SUCCESS) {
    detail::free_request(r);
    return detail::check_mpi(rc, args.endpoint, function, "MPI_Type_dup");
  }
  if (!persistent) {
    rc = detail::start_request(r, /*blocking=*/false, function);
    if (rc != MPI_SUCCESS) {
      detail::free_request(r);
      return rc;
    }
  }
  *request = detail::handle_of(r);
  return MPI_SUCCESS;
}

// The layout of MPI_BYTE.
constexpr detail::TypeLayout kByteLayout{1, 1, 0, 1};

// One side of Sendrecv, checked.
struct Side {
  MessageArgs args;
  const void* buf;
  int count;
  MPI_Datatype type;
  int peer;
  int tag;
};

int sendrecv(const Side& out, const Side& in, Status* status, const char* function) {
  // Post the receive first so that two endpoints exchanging with each other
  // match each other's sends directly.
  RequestImpl r;
  detail::fill_request(&r, RequestImpl::Kind::recv, SendMode::standard, in.args, in.buf, in.count,
                       in.type, in.peer, in.tag);
  int rc = detail::start_request(&r, /*blocking=*/false, function);
  if (rc != MPI_SUCCESS) return rc;
  RequestImpl s;
  detail::fill_request(&s, RequestImpl::Kind::send, SendMode::standard, out.args, out.buf,
                       out.count, out.type, out.peer, out.tag);
  rc = detail::start_request(&s, /*blocking=*/false, function);
  if (rc != MPI_SUCCESS) {
    // The receive is posted and its buffer is the caller's: it must finish
    // before this call returns, whatever happened to the send.
    detail::wait_request(&r);
    return rc;
  }
  detail::wait_request(&s);
  detail::wait_request(&r);
  rc = detail::conclude(s, STATUS_IGNORE, function);
  const int recv_rc = detail::conclude(r, status, function);
  return rc != MPI_SUCCESS ? rc : recv_rc;
}

int start_persistent(Request* request, const char* function) {
  RequestImpl* r = request ? detail::valid_request(*request) : nullptr;
  if (!r) return detail::raise(nullptr, MPI_ERR_REQUEST, function, "invalid request handle");
  if (!r->persistent) {
    return detail::raise(r->endpoint, MPI_ERR_REQUEST, function,
                         "the request is not persistent (made by Send_init/Recv_init)");
  }
  if (r->is_active()) {
    return detail::raise(r->endpoint, MPI_ERR_REQUEST, function,
                         "the persistent request is still active: complete it before Start");
  }
  r->mpi = MPI_REQUEST_NULL;
  return detail::start_request(r, /*blocking=*/false, function);
}

}  // namespace

int Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm) {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::standard, "Send");
}
int Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm) {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::synchronous, "Ssend");
}
int Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm) {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::ready, "Rsend");
}

int Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
          Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::standard, false,
                          "Isend");
}
int Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::synchronous,
                          false, "Issend");
}
int Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::ready, false,
                          "Irsend");
}

int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
              Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::standard, true,
                          "Send_init");
}
int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::synchronous,
                          true, "Ssend_init");
}
int Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::ready, true,
                          "Rsend_init");
}

int Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm) {
  return blocking_send(buf, count, datatype, dest, tag, comm, SendMode::buffered, "Bsend");
}
int Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
           Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::buffered, false,
                          "Ibsend");
}
int Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, Comm comm,
               Request* request) {
  return nonblocking_send(buf, count, datatype, dest, tag, comm, request, SendMode::buffered, true,
                          "Bsend_init");
}

int Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
         Status* status) {
  constexpr const char* fn = "Recv";
  MessageArgs args;
  int rc = detail::check_recv(comm, buf, count, datatype, source, tag, fn, &args);
  if (rc != MPI_SUCCESS) return rc;
  RequestImpl r;
  detail::fill_request(&r, RequestImpl::Kind::recv, SendMode::standard, args, buf, count, datatype,
                       source, tag);
  rc = detail::start_request(&r, /*blocking=*/true, fn);
  if (rc != MPI_SUCCESS) return rc;
  detail::wait_request(&r);
  return detail::conclude(r, status, fn);
}

int Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
          Request* request) {
  return nonblocking_recv(buf, count, datatype, source, tag, comm, request, false, "Irecv");
}

int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, Comm comm,
              Request* request) {
  return nonblocking_recv(buf, count, datatype, source, tag, comm, request, true, "Recv_init");
}

int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             Comm comm, Status* status) {
  constexpr const char* fn = "Sendrecv";
  MessageArgs send_args;
  MessageArgs recv_args;
  int rc = detail::check_send(comm, sendbuf, sendcount, sendtype, dest, sendtag, fn, &send_args);
  if (rc == MPI_SUCCESS) {
    rc = detail::check_recv(comm, recvbuf, recvcount, recvtype, source, recvtag, fn, &recv_args);
  }
  if (rc != MPI_SUCCESS) return rc;
  return sendrecv({send_args, sendbuf, sendcount, sendtype, dest, sendtag},
                  {recv_args, recvbuf, recvcount, recvtype, source, recvtag}, status, fn);
}

int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                     int recvtag, Comm comm, Status* status) {
  constexpr const char* fn = "Sendrecv_replace";
  MessageArgs args;
  int rc = detail::check_send(comm, buf, count, datatype, dest, sendtag, fn, &args);
  if (rc == MPI_SUCCESS)
    rc = detail::check_recv(comm, buf, count, datatype, source, recvtag, fn, &args);
  if (rc != MPI_SUCCESS) return rc;
  // The outgoing message is packed aside so the buffer can take the incoming one.
  const std::int64_t bytes = std::int64_t{count} * args.layout.size;
  if (bytes > std::numeric_limits<int>::max()) {
    return detail::raise(args.endpoint, MPI_ERR_COUNT, fn,
                         "{} bytes are more than one message of MPI_BYTE can carry", bytes);
  }
  auto staging = std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(bytes));
  detail::pack({buf, count, datatype, args.layout}, staging.get());
  const MessageArgs staged{args.endpoint, kByteLayout};
  return sendrecv({staged, staging.get(), static_cast<int>(bytes), MPI_BYTE, dest, sendtag},
                  {args, buf, count, datatype, source, recvtag}, status, fn);
}

int Start(Request* request) { return start_persistent(request, "Start"); }

int Startall(int count, Request requests[]) {
  constexpr const char* fn = "Startall";
  if (count < 0) return detail::raise(nullptr, MPI_ERR_COUNT, fn, "negative count {}", count);
  for (int i = 0; i < count; ++i) {
    const int rc = start_persistent(&requests[i], fn);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ep
