// Public probes and matched probes.
#include "base/backoff.hpp"
#include "ep/p2p.hpp"
#include "p2p/api_common.hpp"
#include "p2p/engine.hpp"

namespace ep {

using detail::Endpoint;
using detail::Incoming;
using detail::MessageImpl;
using detail::RequestImpl;

namespace {

// One look for a matching message; with `take` the message is matched
// (Mprobe semantics): a synchronous sender learns of it now.
int probe_once(Endpoint* e, int source, int tag, bool take, int* flag, Message* message,
               Status* status, const char* function) {
  Incoming* found = nullptr;
  const int rc = detail::probe(e, source, tag, take, &found);
  *flag = found != nullptr;
  if (!found) return detail::check_mpi(rc, e, function, "MPI_Improbe");
  detail::give_status(status, detail::status_of(*found));
  if (take) {
    *message = detail::handle_of(new MessageImpl{e, found});
    ++e->requests_held;  // a matched message keeps its endpoint, as a request does
  }
  return detail::check_mpi(rc, e, function, "MPI_Isend (synchronous-send acknowledgement)");
}

int probe_common(int source, int tag, Comm comm, bool blocking, bool take, int* flag,
                 Message* message, Status* status, const char* function) {
  Endpoint* e = nullptr;
  int rc = detail::check_probe(comm, source, tag, function, &e);
  if (rc != MPI_SUCCESS) return rc;
  if ((!blocking && !flag) || (take && !message)) {
    return detail::raise(e, MPI_ERR_ARG, function, "a result pointer is null");
  }
  int found = 0;
  if (source == MPI_PROC_NULL) {
    found = 1;
    detail::give_status(status, detail::proc_null_status());
    if (take) *message = MESSAGE_NO_PROC;
  } else {
    detail::Backoff backoff;
    for (;;) {
      rc = probe_once(e, source, tag, take, &found, message, status, function);
      if (rc != MPI_SUCCESS || found || !blocking) break;
      backoff.pause();
    }
  }
  if (flag) *flag = found;
  if (take && !found) *message = MESSAGE_NULL;
  return rc;
}

// Checks a message handle of Mrecv/Imrecv and the receive buffer.
int check_matched(void* buf, int count, MPI_Datatype type, Message* message,
                  detail::MessageArgs* args, const char* function) {
  MessageImpl* m = message ? detail::valid_message(*message) : nullptr;
  if (!m && (!message || *message != MESSAGE_NO_PROC)) {
    return detail::raise(nullptr, MPI_ERR_ARG, function,
                         "invalid message handle (not from Mprobe/Improbe, or already received)");
  }
  args->endpoint = m ? m->endpoint : nullptr;
  if (!args->endpoint) {
    // MPI_MESSAGE_NO_PROC has no endpoint; only the datatype can be checked.
    if (count < 0)
      return detail::raise(nullptr, MPI_ERR_COUNT, function, "negative count {}", count);
    return MPI_SUCCESS;
  }
  return detail::check_buffer(args->endpoint, buf, count, type, function, &args->layout);
}

// Starts the receive of a matched message into `r`.
// The handle was checked (check_matched): the message is live.
void receive_matched(Message* message, RequestImpl* r, bool blocking) {
  MessageImpl* m = detail::message_of(*message);
  *message = MESSAGE_NULL;
  Incoming* incoming = m->incoming;
  delete m;  // retires the handle
  detail::deliver(incoming, r, blocking);
}

}  // namespace

int Probe(int source, int tag, Comm comm, Status* status) {
  return probe_common(source, tag, comm, true, false, nullptr, nullptr, status, "Probe");
}
int Iprobe(int source, int tag, Comm comm, int* flag, Status* status) {
  return probe_common(source, tag, comm, false, false, flag, nullptr, status, "Iprobe");
}
int Mprobe(int source, int tag, Comm comm, Message* message, Status* status) {
  return probe_common(source, tag, comm, true, true, nullptr, message, status, "Mprobe");
}
int Improbe(int source, int tag, Comm comm, int* flag, Message* message, Status* status) {
  return probe_common(source, tag, comm, false, true, flag, message, status, "Improbe");
}

int Mrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Status* status) {
  constexpr const char* fn = "Mrecv";
  detail::MessageArgs args;
  int rc = check_matched(buf, count, datatype, message, &args, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (*message == MESSAGE_NO_PROC) {
    *message = MESSAGE_NULL;
    detail::give_status(status, detail::proc_null_status());
    return MPI_SUCCESS;
  }
  RequestImpl r;
  detail::fill_request(&r, RequestImpl::Kind::recv, detail::SendMode::standard, args, buf, count,
                       datatype, MPI_ANY_SOURCE, MPI_ANY_TAG);
  receive_matched(message, &r, /*blocking=*/true);
  detail::wait_request(&r);
  rc = detail::conclude(r, status, fn);
  detail::drop_held_request(args.endpoint);  // the message's: last, it may release the endpoint
  return rc;
}

int Imrecv(void* buf, int count, MPI_Datatype datatype, Message* message, Request* request) {
  constexpr const char* fn = "Imrecv";
  detail::MessageArgs args;
  int rc = check_matched(buf, count, datatype, message, &args, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!request)
    return detail::raise(args.endpoint, MPI_ERR_REQUEST, fn, "request is a null pointer");
  if (*message == MESSAGE_NO_PROC) {
    // A receive from MPI_PROC_NULL: complete at once, with no endpoint to
    // progress. It is owned by no endpoint, so errors on it use MPI_COMM_WORLD's handler.
    auto* r = new RequestImpl;
    r->kind = RequestImpl::Kind::recv;
    r->status = detail::proc_null_status();
    r->state.store(RequestImpl::State::complete);
    *message = MESSAGE_NULL;
    *request = detail::handle_of(r);
    return MPI_SUCCESS;
  }
  auto* r = detail::new_request(args.endpoint);
  detail::fill_request(r, RequestImpl::Kind::recv, detail::SendMode::standard, args, buf, count,
                       datatype, MPI_ANY_SOURCE, MPI_ANY_TAG);
  rc = detail::hold_type(r);
  if (rc != MPI_SUCCESS) {
    detail::free_request(r);
    return detail::check_mpi(rc, args.endpoint, fn, "MPI_Type_dup");
  }
  receive_matched(message, r, /*blocking=*/false);
  detail::drop_held_request(args.endpoint);  // the message's; the request holds the endpoint now
  *request = detail::handle_of(r);
  return MPI_SUCCESS;
}

}  // namespace ep
