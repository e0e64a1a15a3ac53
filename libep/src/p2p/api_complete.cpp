// Public completion functions: the wait and test families, cancel, free,
// and status queries.
#include <array>
#include <limits>
#include <memory>
#include <vector>

#include "base/backoff.hpp"
#include "ep/p2p.hpp"
#include "p2p/api_common.hpp"
#include "p2p/engine.hpp"
#include "p2p/internal.hpp"

namespace ep {

using detail::RequestImpl;

namespace {

// The request of a handle that check_handles (or Test, Wait) accepted.
RequestImpl* impl(Request r) { return detail::request_of(r); }

// A request that the completion functions skip: null or inactive persistent.
bool is_idle(Request r) { return r == REQUEST_NULL || !impl(r)->is_active(); }

// Moves on the other operations of `endpoint` (engine.hpp says why), unless
// it is *last, the endpoint moved on just before in the same pass.
void progress_owner(detail::Endpoint* endpoint, detail::Endpoint** last) {
  if (!endpoint || endpoint == *last) return;
  detail::progress(endpoint);
  *last = endpoint;
}

// Whether any of the active requests is a non-blocking collective's
// (detail::RequestBackoff).
bool any_collective(int count, const Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (!is_idle(requests[i]) && impl(requests[i])->kind == detail::RequestImpl::Kind::coll)
      return true;
  }
  return false;
}

// Moves on the other operations of the endpoints of `requests`, each once
// in a row.
void progress_owners(int count, const Request requests[]) {
  detail::Endpoint* last = nullptr;
  for (int i = 0; i < count; ++i) {
    if (!is_idle(requests[i])) progress_owner(impl(requests[i])->endpoint, &last);
  }
}

// The active requests of a Waitall not yet seen complete, decoded once.
// Up to kInline of them live on the stack.
class Pending {
 public:
  explicit Pending(int count) {
    if (count > kInline) heap_ = std::make_unique<RequestImpl*[]>(static_cast<std::size_t>(count));
    items_ = heap_ ? heap_.get() : inline_.data();
  }
  void add(RequestImpl* r) {
    items_[size_++] = r;
    sends_ = sends_ || r->kind == RequestImpl::Kind::send;
    collective_ = collective_ || r->kind == RequestImpl::Kind::coll;
  }
  bool empty() const { return size_ == 0; }
  // Whether any of them is a non-blocking collective's (RequestBackoff).
  bool collective() const { return collective_; }

  // Moves on the other operations of their endpoints, each once in a row.
  void progress_owners() const {
    detail::Endpoint* last = nullptr;
    for (int i = 0; i < size_; ++i) progress_owner(items_[i]->endpoint, &last);
  }

  // Tests each (the sends MPI carries together, detail::test_requests),
  // keeping those still under way in their order. Returns whether none is
  // left.
  bool drop_complete() {
    size_ = detail::test_requests(items_, size_, &sends_);
    return size_ == 0;
  }

 private:
  static constexpr int kInline = 128;
  std::array<RequestImpl*, kInline> inline_;
  std::unique_ptr<RequestImpl*[]> heap_;
  RequestImpl** items_ = nullptr;
  int size_ = 0;
  bool sends_ = false;  // whether any of them may be a send
  bool collective_ = false;
};

int check_handles(int count, Request requests[], const char* function) {
  if (count < 0) return detail::raise(nullptr, MPI_ERR_COUNT, function, "negative count {}", count);
  if (count > 0 && !requests) {
    return detail::raise(nullptr, MPI_ERR_REQUEST, function, "the request array is a null pointer");
  }
  for (int i = 0; i < count; ++i) {
    if (requests[i] != REQUEST_NULL && !detail::valid_request(requests[i])) {
      return detail::raise(nullptr, MPI_ERR_REQUEST, function,
                           "requests[{}] is not a valid request handle", i);
    }
  }
  return MPI_SUCCESS;
}

Status* status_at(Status statuses[], int i) { return statuses ? &statuses[i] : STATUS_IGNORE; }

void set_empty(Status* status) { detail::give_status(status, detail::empty_status()); }

// Whether the complete request `r` failed (before it is finished).
bool failed(Request r) { return impl(r)->status.MPI_ERROR != MPI_SUCCESS; }

// Raises MPI_ERR_IN_STATUS on the endpoint of the first failed request.
int raise_in_status(detail::Endpoint* endpoint, int failed, const char* function) {
  return detail::raise(endpoint, MPI_ERR_IN_STATUS, function,
                       "{} request(s) failed: see the MPI_ERROR field of each status", failed);
}

// Ends every request once all have completed (Testall, Waitall). The
// statuses' MPI_ERROR fields are written only if one failed, and then all of
// them, as MPI_ERR_IN_STATUS asks.
int finish_all(int count, Request requests[], Status statuses[], const char* function) {
  int failures = 0;
  detail::Endpoint* first_failed = nullptr;
  for (int i = 0; i < count; ++i) {
    if (!is_idle(requests[i]) && failed(requests[i]) && failures++ == 0) {
      first_failed = impl(requests[i])->endpoint;
    }
  }
  // Raised before the requests are freed, which may release their endpoint
  // (detail::free_request).
  const int rc = failures ? raise_in_status(first_failed, failures, function) : MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    Status* out = status_at(statuses, i);
    int error = MPI_SUCCESS;
    if (is_idle(requests[i])) {
      set_empty(out);
    } else {
      error = detail::finish_request(&requests[i], out, function, false);
    }
    if (out && failures) out->MPI_ERROR = error;
  }
  return rc;
}

// One pass of Testany and Waitany over checked arguments.
int test_any(int count, Request requests[], int* index, int* flag, Status* status,
             const char* function) {
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (is_idle(requests[i])) continue;
    any_active = true;
    if (detail::test_request(impl(requests[i]), /*progressed=*/true)) {
      *index = i;
      *flag = 1;
      return detail::finish_request(&requests[i], status, function);
    }
  }
  *index = MPI_UNDEFINED;
  *flag = any_active ? 0 : 1;
  if (!any_active) set_empty(status);
  return MPI_SUCCESS;
}

int check_some(int incount, Request requests[], const int* outcount, const int indices[],
               const char* function) {
  const int rc = check_handles(incount, requests, function);
  if (rc != MPI_SUCCESS) return rc;
  if (!outcount || (incount > 0 && !indices)) {
    return detail::raise(nullptr, MPI_ERR_ARG, function, "a result pointer is null");
  }
  return MPI_SUCCESS;
}

// One pass of Testsome and Waitsome over checked arguments: which requests
// completed (into indices), then whether one failed (which decides whether
// the MPI_ERROR fields are written), then finishing them.
int test_some(int incount, Request requests[], int* outcount, int indices[], Status statuses[],
              const char* function) {
  bool any_active = false;
  int done = 0;
  for (int i = 0; i < incount; ++i) {
    if (is_idle(requests[i])) continue;
    any_active = true;
    if (detail::test_request(impl(requests[i]), /*progressed=*/true)) indices[done++] = i;
  }
  int failures = 0;
  detail::Endpoint* first_failed = nullptr;
  for (int n = 0; n < done; ++n) {
    const Request r = requests[indices[n]];
    if (failed(r) && failures++ == 0) first_failed = impl(r)->endpoint;
  }
  const int rc = failures ? raise_in_status(first_failed, failures, function) : MPI_SUCCESS;
  for (int n = 0; n < done; ++n) {
    // The statuses of Testsome are packed: the n-th completed request's
    // status goes to statuses[n].
    Status* out = status_at(statuses, n);
    const int error = detail::finish_request(&requests[indices[n]], out, function, false);
    if (out && failures) out->MPI_ERROR = error;
  }
  *outcount = any_active ? done : MPI_UNDEFINED;
  return rc;
}

}  // namespace

int Test(Request* request, int* flag, Status* status) {
  constexpr const char* fn = "Test";
  if (!request || !flag)
    return detail::raise(nullptr, MPI_ERR_ARG, fn, "a pointer argument is null");
  if (*request != REQUEST_NULL && !detail::valid_request(*request)) {
    return detail::raise(nullptr, MPI_ERR_REQUEST, fn, "invalid request handle");
  }
  if (is_idle(*request)) {
    *flag = 1;
    set_empty(status);
    return MPI_SUCCESS;
  }
  progress_owners(1, request);
  *flag = detail::test_request(impl(*request), /*progressed=*/true);
  detail::note_poll(*flag != 0);
  if (!*flag) return MPI_SUCCESS;
  return detail::finish_request(request, status, fn);
}

int Wait(Request* request, Status* status) {
  constexpr const char* fn = "Wait";
  if (!request) return detail::raise(nullptr, MPI_ERR_ARG, fn, "request is a null pointer");
  if (*request != REQUEST_NULL && !detail::valid_request(*request)) {
    return detail::raise(nullptr, MPI_ERR_REQUEST, fn, "invalid request handle");
  }
  if (is_idle(*request)) {
    set_empty(status);
    return MPI_SUCCESS;
  }
  detail::wait_request(impl(*request));
  return detail::finish_request(request, status, fn);
}

int Testall(int count, Request requests[], int* flag, Status statuses[]) {
  constexpr const char* fn = "Testall";
  int rc = check_handles(count, requests, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!flag) return detail::raise(nullptr, MPI_ERR_ARG, fn, "flag is a null pointer");
  progress_owners(count, requests);
  // MPI completes none of them unless all have completed.
  for (int i = 0; i < count; ++i) {
    if (!is_idle(requests[i]) && !detail::test_request(impl(requests[i]), /*progressed=*/true)) {
      *flag = 0;
      detail::note_poll(false);
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  detail::note_poll(true);
  return finish_all(count, requests, statuses, fn);
}

int Waitall(int count, Request requests[], Status statuses[]) {
  constexpr const char* fn = "Waitall";
  int rc = check_handles(count, requests, fn);
  if (rc != MPI_SUCCESS) return rc;
  // Each round moves the owners on and tests only the requests still
  // pending, decoded once: a window of 64 receives completes a few per round,
  // and testing every handle again each round cost as much as MPI's own work
  // on a small message.
  Pending pending(count);
  for (int i = 0; i < count; ++i) {
    if (!is_idle(requests[i])) pending.add(impl(requests[i]));
  }
  detail::RequestBackoff backoff(pending.collective());
  while (!pending.empty()) {
    pending.progress_owners();
    if (pending.drop_complete()) break;
    backoff.pause();
  }
  detail::note_poll(true);
  return finish_all(count, requests, statuses, fn);
}

int Testany(int count, Request requests[], int* index, int* flag, Status* status) {
  constexpr const char* fn = "Testany";
  int rc = check_handles(count, requests, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!index || !flag) return detail::raise(nullptr, MPI_ERR_ARG, fn, "a result pointer is null");
  progress_owners(count, requests);
  rc = test_any(count, requests, index, flag, status, fn);
  detail::note_poll(*flag != 0);
  return rc;
}

int Waitany(int count, Request requests[], int* index, Status* status) {
  constexpr const char* fn = "Waitany";
  int rc = check_handles(count, requests, fn);
  if (rc != MPI_SUCCESS) return rc;
  if (!index) return detail::raise(nullptr, MPI_ERR_ARG, fn, "index is a null pointer");
  detail::RequestBackoff backoff(any_collective(count, requests));
  for (;;) {
    progress_owners(count, requests);
    int flag = 0;
    rc = test_any(count, requests, index, &flag, status, fn);
    if (rc != MPI_SUCCESS || flag) {
      detail::note_poll(true);
      return rc;
    }
    backoff.pause();
  }
}

int Testsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]) {
  constexpr const char* fn = "Testsome";
  const int rc = check_some(incount, requests, outcount, indices, fn);
  if (rc != MPI_SUCCESS) return rc;
  progress_owners(incount, requests);
  const int some_rc = test_some(incount, requests, outcount, indices, statuses, fn);
  detail::note_poll(*outcount != 0);
  return some_rc;
}

int Waitsome(int incount, Request requests[], int* outcount, int indices[], Status statuses[]) {
  constexpr const char* fn = "Waitsome";
  int rc = check_some(incount, requests, outcount, indices, fn);
  if (rc != MPI_SUCCESS) return rc;
  detail::RequestBackoff backoff(any_collective(incount, requests));
  for (;;) {
    progress_owners(incount, requests);
    rc = test_some(incount, requests, outcount, indices, statuses, fn);
    if (rc != MPI_SUCCESS || *outcount != 0) {
      detail::note_poll(true);
      return rc;
    }
    backoff.pause();
  }
}

int Request_get_status(Request request, int* flag, Status* status) {
  constexpr const char* fn = "Request_get_status";
  if (!flag) return detail::raise(nullptr, MPI_ERR_ARG, fn, "flag is a null pointer");
  if (request != REQUEST_NULL && !detail::valid_request(request)) {
    return detail::raise(nullptr, MPI_ERR_REQUEST, fn, "invalid request handle");
  }
  if (is_idle(request)) {
    *flag = 1;
    set_empty(status);
    return MPI_SUCCESS;
  }
  progress_owners(1, &request);
  RequestImpl* r = impl(request);
  *flag = detail::test_request(r, /*progressed=*/true);
  detail::note_poll(*flag != 0);
  if (!*flag) return MPI_SUCCESS;
  // The request stays as it is (MPI): only its status is reported.
  if (r->kind != RequestImpl::Kind::send) detail::give_status(status, r->status);
  const int error = r->status.MPI_ERROR;
  if (error == MPI_SUCCESS) return MPI_SUCCESS;
  if (error == MPI_ERR_TRUNCATE) {
    return detail::raise(r->endpoint, error, fn,
                         "message truncated: {} bytes arrived for a receive buffer of {} bytes",
                         r->status.count_bytes, std::int64_t{r->count} * r->layout.size);
  }
  if (r->deferred) return detail::raise(r->endpoint, error, fn, "{}", r->deferred->reason());
  return detail::raise(r->endpoint, error, fn, "the operation failed");
}

int Request_free(Request* request) {
  constexpr const char* fn = "Request_free";
  RequestImpl* r = request ? detail::valid_request(*request) : nullptr;
  if (!r) return detail::raise(nullptr, MPI_ERR_REQUEST, fn, "invalid request handle");
  *request = REQUEST_NULL;
  detail::internal_release(r);
  return MPI_SUCCESS;
}

int Cancel(Request* request) {
  constexpr const char* fn = "Cancel";
  RequestImpl* r = request ? detail::valid_request(*request) : nullptr;
  if (!r) return detail::raise(nullptr, MPI_ERR_REQUEST, fn, "invalid request handle");
  // MPI makes cancelling a non-blocking collective erroneous.
  if (r->kind == RequestImpl::Kind::coll) {
    return detail::raise(r->endpoint, MPI_ERR_REQUEST, fn,
                         "a non-blocking collective cannot be cancelled");
  }
  // Only a receive that no message has matched yet can be cancelled; any
  // other cancel "fails" in the MPI sense: the operation completes normally
  // and Test_cancelled reports false.
  if (r->kind != RequestImpl::Kind::recv || !r->endpoint) return MPI_SUCCESS;
  detail::cancel_recv(r);
  return MPI_SUCCESS;
}

int Test_cancelled(const Status* status, int* flag) {
  if (!status || !flag) {
    return detail::raise(nullptr, MPI_ERR_ARG, "Test_cancelled", "a pointer argument is null");
  }
  *flag = status->cancelled;
  return MPI_SUCCESS;
}

int Get_count(const Status* status, MPI_Datatype datatype, int* count) {
  constexpr const char* fn = "Get_count";
  if (!status || !count)
    return detail::raise(nullptr, MPI_ERR_ARG, fn, "a pointer argument is null");
  if (datatype == MPI_DATATYPE_NULL) {
    return detail::raise(nullptr, MPI_ERR_TYPE, fn, "the datatype is MPI_DATATYPE_NULL");
  }
  int size = 0;
  const int rc = MPI_Type_size(datatype, &size);
  if (rc != MPI_SUCCESS) {
    return detail::raise(nullptr, MPI_ERR_TYPE, fn, "invalid datatype: {}",
                         detail::mpi_error_string(rc));
  }
  if (size == 0) {
    *count = 0;
  } else if (status->count_bytes % size != 0) {
    *count = MPI_UNDEFINED;
  } else {
    *count = static_cast<int>(status->count_bytes / size);
  }
  return MPI_SUCCESS;
}

namespace {

// The basic elements of `datatype` in the status's message, as the MPI counts
// them: an MPI status that says the same number of bytes, asked by
// MPI_Get_elements_x, so that partial elements and MPI_UNDEFINED follow the
// MPI's own rules (its type map is the one that knows the basic elements).
int elements_of(const Status* status, MPI_Datatype datatype, MPI_Count* count, const char* fn) {
  if (!status || !count)
    return detail::raise(nullptr, MPI_ERR_ARG, fn, "a pointer argument is null");
  if (datatype == MPI_DATATYPE_NULL) {
    return detail::raise(nullptr, MPI_ERR_TYPE, fn, "the datatype is MPI_DATATYPE_NULL");
  }
  int size = 0;
  int rc = MPI_Type_size(datatype, &size);
  if (rc != MPI_SUCCESS) {
    return detail::raise(nullptr, MPI_ERR_TYPE, fn, "invalid datatype: {}",
                         detail::mpi_error_string(rc));
  }
  MPI_Status mpi{};
  rc = MPI_Status_set_elements_x(&mpi, MPI_BYTE, static_cast<MPI_Count>(status->count_bytes));
  if (rc == MPI_SUCCESS) rc = MPI_Get_elements_x(&mpi, datatype, count);
  if (rc != MPI_SUCCESS) {
    return detail::raise(nullptr, MPI_ERR_INTERN, fn, "MPI_Get_elements_x failed: {}",
                         detail::mpi_error_string(rc));
  }
  return MPI_SUCCESS;
}

}  // namespace

int Get_elements(const Status* status, MPI_Datatype datatype, int* count) {
  constexpr const char* fn = "Get_elements";
  if (!count) return detail::raise(nullptr, MPI_ERR_ARG, fn, "a pointer argument is null");
  MPI_Count elements = 0;
  const int rc = elements_of(status, datatype, &elements, fn);
  if (rc != MPI_SUCCESS) return rc;
  // As MPI_Get_elements: a count an int cannot hold is undefined.
  *count = elements > std::numeric_limits<int>::max() ? MPI_UNDEFINED : static_cast<int>(elements);
  return MPI_SUCCESS;
}

int Get_elements_x(const Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements_of(status, datatype, count, "Get_elements_x");
}

}  // namespace ep
