#include "p2p/internal.hpp"

#include "base/backoff.hpp"
#include "p2p/api_common.hpp"
#include "p2p/engine.hpp"

namespace ep::detail {

int internal_isend(Endpoint* endpoint, const void* buf, int count, MPI_Datatype type, int dest,
                   int tag, RequestImpl* request) {
  MessageArgs args{endpoint, {}};
  const int rc = query_layout(type, &args.layout);
  if (rc != MPI_SUCCESS) return rc;
  fill_request(request, RequestImpl::Kind::send, SendMode::standard, args, buf, count, type, dest,
               tag);
  return start_send(request, /*blocking=*/false);
}

int internal_probe(Endpoint* endpoint, int source, int tag, Status* status) {
  Backoff backoff;
  for (;;) {
    Incoming* found = nullptr;
    const int rc = probe(endpoint, source, tag, /*take=*/false, &found);
    if (rc != MPI_SUCCESS) return rc;
    if (found) {
      *status = status_of(*found);
      return MPI_SUCCESS;
    }
    backoff.pause();
  }
}

int internal_recv(Endpoint* endpoint, void* buf, int count, MPI_Datatype type, int source,
                  int tag) {
  MessageArgs args{endpoint, {}};
  int rc = query_layout(type, &args.layout);
  if (rc != MPI_SUCCESS) return rc;
  RequestImpl r;
  fill_request(&r, RequestImpl::Kind::recv, SendMode::standard, args, buf, count, type, source,
               tag);
  rc = start_recv(&r, /*blocking=*/true);
  if (rc != MPI_SUCCESS) return rc;
  wait_request(&r);
  return r.status.MPI_ERROR;
}

int internal_wait(RequestImpl* request) {
  wait_request(request);
  return request->status.MPI_ERROR;
}

void internal_release(RequestImpl* request) {
  using State = RequestImpl::State;
  auto state = request->state.load(std::memory_order_acquire);
  if (state != State::inactive && state != State::complete) {
    // Its data must reach the buffer when it completes, with nobody to test
    // it: no sender may leave it in the request from now on; one that
    // already does completes it in a moment.
    auto expected = RequestImpl::Inline::accepted;
    if (!request->inline_data_state.compare_exchange_strong(expected, RequestImpl::Inline::refused,
                                                            std::memory_order_relaxed) &&
        expected == RequestImpl::Inline::held) {
      Backoff backoff;
      while ((state = request->state.load(std::memory_order_acquire)) != State::complete) {
        backoff.pause();
      }
    }
  }
  if (state == State::inactive || state == State::complete) {
    take_inline(request);
    free_request(request);
    return;
  }
  // Still running: it completes on its own (MPI semantics); the endpoint
  // reclaims it then.
  RequestPool::retire(request);
  request->freed_by_user = true;
  request->persistent = false;
  request->endpoint->orphans.push_back(request);
}

}  // namespace ep::detail
