// Freed and garbage handles under MPI_ERRORS_RETURN: a communicator handle
// used after Comm_free gets MPI_ERR_COMM, a request handle used after it was
// freed gets MPI_ERR_REQUEST, and neither reaches the objects made since
// (which may sit where the freed ones were). Values that were never handles
// get the same classes.
//
// Endpoints only (MODE ep): using a freed handle is erroneous in MPI, so the
// reference MPI defines no answer to diff against (Open MPI and MPICH read the
// freed object, or whatever took its place, and may crash).
#include <cstdint>

#include "helpers.hpp"

namespace {

using namespace eptest;

// Values that were never handles: misaligned, far past any object, and the
// address of something else.
template <class Handle>
Handle garbage(int which, const void* elsewhere) {
  switch (which) {
    case 0:
      return reinterpret_cast<Handle>(std::uintptr_t{0x1234567});
    case 1:
      return reinterpret_cast<Handle>(~std::uintptr_t{0} - 63);
    default:
      return reinterpret_cast<Handle>(const_cast<void*>(elsewhere));
  }
}

constexpr int kFresh = 4;

// A communicator handle after Comm_free, next to new communicators made
// right after the free (one of which may take the freed one's place).
void freed_communicator(Context& t) {
  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
  api::Comm stale = dup;
  t.check_rc(api::Comm_free(&dup), "Comm_free");
  api::Comm made[kFresh] = {};
  for (api::Comm& comm : made) {
    t.check_rc(api::Comm_dup(t.comm(), &comm), "Comm_dup after the free");
    t.check_rc(api::Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  }
  api::Comm fresh = made[0];

  int value = -1;
  int buf = 7;
  api::Request request = api::REQUEST_NULL;
  int flag = -1;
  t.expect_class(api::Comm_rank(stale, &value), MPI_ERR_COMM, "Comm_rank on a freed communicator");
  t.check(value == -1, "Comm_rank on a freed communicator wrote the rank");
  t.expect_class(api::Comm_size(stale, &value), MPI_ERR_COMM, "Comm_size on a freed communicator");
  t.expect_class(api::Send(&buf, 1, MPI_INT, t.rank(), 3, stale), MPI_ERR_COMM,
                 "Send on a freed communicator");
  t.expect_class(api::Irecv(&buf, 1, MPI_INT, t.rank(), 3, stale, &request), MPI_ERR_COMM,
                 "Irecv on a freed communicator");
  t.check(request == api::REQUEST_NULL, "Irecv on a freed communicator made a request");
  t.expect_class(api::Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, stale, &flag, api::STATUS_IGNORE),
                 MPI_ERR_COMM, "Iprobe on a freed communicator");
  // Every endpoint makes the same mistake, so nobody is left waiting.
  t.expect_class(api::Barrier(stale), MPI_ERR_COMM, "Barrier on a freed communicator");
  t.expect_class(api::Bcast(&buf, 1, MPI_INT, 0, stale), MPI_ERR_COMM,
                 "Bcast on a freed communicator");
  t.expect_class(api::Comm_set_errhandler(stale, MPI_ERRORS_ARE_FATAL), MPI_ERR_COMM,
                 "Comm_set_errhandler on a freed communicator");
  api::Comm again = stale;
  t.expect_class(api::Comm_free(&again), MPI_ERR_COMM, "Comm_free of a freed communicator");

  // The new communicators are untouched: their handlers, ranks and traffic.
  for (api::Comm comm : made) {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    t.check_rc(api::Comm_get_errhandler(comm, &handler), "Comm_get_errhandler");
    t.check(handler == MPI_ERRORS_RETURN, "a new communicator's handler changed");
    value = -1;
    t.check_rc(api::Comm_rank(comm, &value), "Comm_rank");
    t.expect_eq(value, t.rank(), "rank in a new communicator");
  }
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  int out = 1000 + t.rank();
  int in = -1;
  t.check_rc(api::Sendrecv(&out, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, fresh,
                           api::STATUS_IGNORE),
             "Sendrecv on the new communicator");
  t.expect_eq(in, 1000 + left, "payload on the new communicator");
  t.check_rc(api::Barrier(fresh), "Barrier on the new communicator");
  for (api::Comm& comm : made) t.check_rc(api::Comm_free(&comm), "Comm_free");
  t.out("freed communicator: MPI_ERR_COMM; the next ones unaffected");

  for (int which = 0; which < 3; ++which) {
    const api::Comm bad = garbage<api::Comm>(which, &value);
    t.expect_class(api::Comm_rank(bad, &value), MPI_ERR_COMM, "Comm_rank on a garbage handle");
    t.expect_class(api::Send(&buf, 1, MPI_INT, 0, 3, bad), MPI_ERR_COMM,
                   "Send on a garbage handle");
    t.expect_class(api::Barrier(bad), MPI_ERR_COMM, "Barrier on a garbage handle");
  }
  t.out("garbage communicator handles: MPI_ERR_COMM");
}

// The calls that take a request handle, on one that must be refused.
void expect_refused(Context& t, api::Request stale, const char* what) {
  api::Request handle = stale;
  int flag = -1;
  int index = -1;
  t.expect_class(api::Test(&handle, &flag, api::STATUS_IGNORE), MPI_ERR_REQUEST,
                 fmt::format("Test on {}", what));
  t.check(flag == -1 && handle == stale, fmt::format("Test on {} changed its arguments", what));
  t.expect_class(api::Wait(&handle, api::STATUS_IGNORE), MPI_ERR_REQUEST,
                 fmt::format("Wait on {}", what));
  api::Request pair[2] = {api::REQUEST_NULL, stale};
  t.expect_class(api::Waitall(2, pair, api::STATUSES_IGNORE), MPI_ERR_REQUEST,
                 fmt::format("Waitall with {}", what));
  t.expect_class(api::Waitany(2, pair, &index, api::STATUS_IGNORE), MPI_ERR_REQUEST,
                 fmt::format("Waitany with {}", what));
  t.expect_class(api::Start(&handle), MPI_ERR_REQUEST, fmt::format("Start on {}", what));
  t.expect_class(api::Cancel(&handle), MPI_ERR_REQUEST, fmt::format("Cancel on {}", what));
  t.expect_class(api::Request_free(&handle), MPI_ERR_REQUEST,
                 fmt::format("Request_free on {}", what));
  t.check(handle == stale, fmt::format("Request_free on {} changed the handle", what));
}

void freed_requests(Context& t) {
  int buf = -1;
  int out = 42;
  // Completed and freed by Wait.
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&buf, 1, MPI_INT, t.rank(), 8, t.comm(), &request), "Irecv");
  api::Request stale = request;
  t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 8, t.comm()), "Send");
  t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
  t.expect_eq(buf, 42, "payload");
  expect_refused(t, stale, "a request completed by Wait");

  // Freed while active: it still completes, but the handle is dead at once.
  buf = -1;
  t.check_rc(api::Irecv(&buf, 1, MPI_INT, t.rank(), 9, t.comm(), &request), "Irecv");
  stale = request;
  t.check_rc(api::Request_free(&request), "Request_free of an active receive");
  expect_refused(t, stale, "an active request after Request_free");
  t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 9, t.comm()), "Send");

  // A persistent request, freed while inactive.
  t.check_rc(api::Send_init(&out, 1, MPI_INT, t.rank(), 10, t.comm(), &request), "Send_init");
  stale = request;
  t.check_rc(api::Request_free(&request), "Request_free of an inactive persistent request");
  expect_refused(t, stale, "a freed persistent request");
  t.out("freed requests: MPI_ERR_REQUEST");

  for (int which = 0; which < 3; ++which) {
    expect_refused(t, garbage<api::Request>(which, &buf), "a garbage request handle");
  }
  t.out("garbage request handles: MPI_ERR_REQUEST");
  // The receive freed while active ended by now at the latest (the endpoint
  // reaps it): a barrier keeps every rank's messages to itself in its round.
  t.barrier();
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  // A handle that names no live object has no endpoint whose handler could
  // apply: MPI_COMM_WORLD's does, as for a null handle.
  t.check_rc(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  freed_communicator(t);
  freed_requests(t);
}
