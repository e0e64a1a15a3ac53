#include "p2p/api_common.hpp"

#include <new>

#include "object/error.hpp"
#include "p2p/buffered.hpp"
#include "p2p/engine.hpp"

namespace ep::detail {

int hold_type(RequestImpl* r) {
  if (r->held_type.holding() || r->layout.predefined) return MPI_SUCCESS;
  return r->held_type.hold(&r->type);
}

int start_request(RequestImpl* r, bool blocking, const char* function) {
  // Kind and mode are read apart: fill_request has just stored them byte by
  // byte, and one 2-byte load of both (what the compiler made of `kind ==
  // send && mode == buffered`) cannot be served from those stores: it
  // stalled until they reached the cache, 5% of a receiver's time at the
  // 8-byte message rate.
  if (r->kind != RequestImpl::Kind::send) {
    const int rc = start_recv(r, blocking);
    if (rc == MPI_SUCCESS) return rc;
    return check_mpi(rc, r->endpoint, function, "MPI_Improbe");
  }
  if (r->mode == SendMode::buffered) return start_buffered(r, function);
  const int rc = start_send(r, blocking);
  if (rc == MPI_SUCCESS) return rc;
  return check_mpi(rc, r->endpoint, function, "the MPI send below");
}

RequestImpl* new_request(Endpoint* endpoint) {
  std::vector<RequestImpl*>& spares = endpoint->spare_requests;
  RequestImpl* r = nullptr;
  if (spares.empty()) {
    r = new RequestImpl;
  } else {
    r = ::new (spares.back()) RequestImpl;
    spares.pop_back();
    RequestPool::revive(r);  // the freed request's handle stays stale
  }
  r->endpoint = endpoint;
  r->held = true;
  ++endpoint->requests_held;
  return r;
}

void free_request(RequestImpl* r) {
  // Enough for a window of messages in flight; beyond, back to the pool.
  constexpr std::size_t kSpares = 64;
  Endpoint* endpoint = r->endpoint;
  const bool held = r->held;
  if (!endpoint || endpoint->spare_requests.size() >= kSpares) {
    delete r;
  } else {
    r->~RequestImpl();
    RequestPool::retire(r);
    endpoint->spare_requests.push_back(r);
  }
  // Last: it may release the endpoint.
  if (held) drop_held_request(endpoint);
}

namespace {

// The end of a completed request `r` that finish_request and conclude share:
// its status out, its error raised unless `raise_error` is false.
int report(RequestImpl* r, Status* status, const char* function, bool raise_error) {
  give_status(status, r->status);
  const int error = r->status.MPI_ERROR;
  int rc = error;
  // Raised before the request is freed: freeing the last request of an
  // endpoint whose communicator was freed releases the endpoint.
  if (error != MPI_SUCCESS && raise_error) {
    if (error == MPI_ERR_TRUNCATE) {
      rc = raise(r->endpoint, error, function,
                 "message truncated: {} bytes arrived for a receive buffer of {} bytes",
                 r->status.count_bytes, std::int64_t{r->count} * r->layout.size);
    } else if (r->deferred) {
      rc = raise(r->endpoint, error, function, "{}", r->deferred->reason());
    } else {
      rc = raise(r->endpoint, error, function, "the operation failed");
    }
  }
  return rc;
}

}  // namespace

int finish_request(Request* handle, Status* status, const char* function, bool raise_error) {
  RequestImpl* r = request_of(*handle);
  const int rc = report(r, status, function, raise_error);
  if (r->persistent) {
    r->state.store(RequestImpl::State::inactive, std::memory_order_relaxed);
  } else {
    free_request(r);
    *handle = REQUEST_NULL;
  }
  return rc;
}

int conclude(RequestImpl& r, Status* status, const char* function) {
  return report(&r, status, function, true);
}

}  // namespace ep::detail
