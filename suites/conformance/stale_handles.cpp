// Freed and garbage handles under MPI_ERRORS_RETURN: a communicator handle
// used after Comm_free gets MPI_ERR_COMM, a request handle used after it was
// freed gets MPI_ERR_REQUEST, a message handle after its message was
// received MPI_ERR_ARG (libep's class for a bad message handle), a window
// handle after Win_free MPI_ERR_WIN, and none reaches the objects made since
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

// A message handle after Mrecv or Imrecv received its message, next to a
// message matched since (whose object may sit where the old one was).
void received_messages(Context& t) {
  int out = 50;
  int buf = -1;
  api::Message message = api::MESSAGE_NULL;
  t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 12, t.comm()), "Send");
  t.check_rc(api::Mprobe(t.rank(), 12, t.comm(), &message, api::STATUS_IGNORE), "Mprobe");
  const api::Message by_mrecv = message;
  t.check_rc(api::Mrecv(&buf, 1, MPI_INT, &message, api::STATUS_IGNORE), "Mrecv");
  t.expect_eq(buf, 50, "payload of Mrecv");
  t.check(message == api::MESSAGE_NULL, "Mrecv left the message handle");

  ++out;
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 12, t.comm()), "Send");
  t.check_rc(api::Mprobe(t.rank(), 12, t.comm(), &message, api::STATUS_IGNORE), "Mprobe");
  const api::Message by_imrecv = message;
  t.check_rc(api::Imrecv(&buf, 1, MPI_INT, &message, &request), "Imrecv");
  t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
  t.expect_eq(buf, 51, "payload of Imrecv");

  // A message matched after both, waiting to be received.
  ++out;
  api::Message fresh = api::MESSAGE_NULL;
  t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 12, t.comm()), "Send");
  t.check_rc(api::Mprobe(t.rank(), 12, t.comm(), &fresh, api::STATUS_IGNORE), "Mprobe");

  int value = -1;
  for (int which = 0; which < 5; ++which) {
    const api::Message stale = which == 0   ? by_mrecv
                               : which == 1 ? by_imrecv
                                            : garbage<api::Message>(which - 2, &value);
    const char* what = which == 0   ? "a message received by Mrecv"
                       : which == 1 ? "a message received by Imrecv"
                                    : "a garbage message handle";
    api::Message handle = stale;
    buf = -1;
    t.expect_class(api::Mrecv(&buf, 1, MPI_INT, &handle, api::STATUS_IGNORE), MPI_ERR_ARG,
                   fmt::format("Mrecv of {}", what));
    t.check(handle == stale && buf == -1, fmt::format("Mrecv of {} changed its arguments", what));
    request = api::REQUEST_NULL;
    t.expect_class(api::Imrecv(&buf, 1, MPI_INT, &handle, &request), MPI_ERR_ARG,
                   fmt::format("Imrecv of {}", what));
    t.check(handle == stale && request == api::REQUEST_NULL,
            fmt::format("Imrecv of {} changed its arguments", what));
  }
  // The message matched since is still there, with its payload.
  t.check_rc(api::Mrecv(&buf, 1, MPI_INT, &fresh, api::STATUS_IGNORE), "Mrecv of the new message");
  t.expect_eq(buf, 52, "payload of the new message");
  t.out("received and garbage messages: MPI_ERR_ARG; the next one unaffected");
}

// A window handle after Win_free, next to windows made right after the free.
void freed_window(Context& t) {
  int* base = nullptr;
  api::Win win = api::WIN_NULL;
  t.check_rc(api::Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, t.comm(), &base, &win),
             "Win_allocate");
  const api::Win stale = win;
  t.check_rc(api::Win_free(&win), "Win_free");
  t.check(win == api::WIN_NULL, "Win_free left the handle");
  api::Win made[kFresh] = {};
  int* bases[kFresh] = {};
  for (int i = 0; i < kFresh; ++i) {
    t.check_rc(
        api::Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, t.comm(), &bases[i], &made[i]),
        "Win_allocate after the free");
    t.check_rc(api::Win_set_errhandler(made[i], MPI_ERRORS_RETURN), "Win_set_errhandler");
    *bases[i] = -1;
  }

  int value = -1;
  int out = 60 + t.rank();
  for (int which = 0; which < 4; ++which) {
    const api::Win bad = which == 0 ? stale : garbage<api::Win>(which - 1, &value);
    const char* what = which == 0 ? "a freed window" : "a garbage window handle";
    void* attribute = nullptr;
    int flag = -1;
    t.expect_class(api::Win_get_attr(bad, MPI_WIN_BASE, &attribute, &flag), MPI_ERR_WIN,
                   fmt::format("Win_get_attr on {}", what));
    t.check(flag == -1, fmt::format("Win_get_attr on {} set the flag", what));
    t.expect_class(api::Win_set_errhandler(bad, MPI_ERRORS_ARE_FATAL), MPI_ERR_WIN,
                   fmt::format("Win_set_errhandler on {}", what));
    // Every endpoint makes the same mistake, so nobody is left waiting.
    t.expect_class(api::Win_fence(0, bad), MPI_ERR_WIN, fmt::format("Win_fence on {}", what));
    t.expect_class(api::Put(&out, 1, MPI_INT, t.rank(), 0, 1, MPI_INT, bad), MPI_ERR_WIN,
                   fmt::format("Put on {}", what));
    api::Win again = bad;
    t.expect_class(api::Win_free(&again), MPI_ERR_WIN, fmt::format("Win_free of {}", what));
    t.check(again == bad, fmt::format("Win_free of {} changed the handle", what));
  }

  // The new windows are untouched: their handlers, and traffic on each.
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  for (int i = 0; i < kFresh; ++i) {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    t.check_rc(api::Win_get_errhandler(made[i], &handler), "Win_get_errhandler");
    t.check(handler == MPI_ERRORS_RETURN, "a new window's handler changed");
    if (handler != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&handler);
    t.check_rc(api::Win_fence(0, made[i]), "Win_fence");
    t.check_rc(api::Put(&out, 1, MPI_INT, right, 0, 1, MPI_INT, made[i]), "Put");
    t.check_rc(api::Win_fence(0, made[i]), "Win_fence");
    t.expect_eq(*bases[i], 60 + left, "payload in a new window");
  }
  for (api::Win& w : made) t.check_rc(api::Win_free(&w), "Win_free");
  t.out("freed and garbage windows: MPI_ERR_WIN; the next ones unaffected");
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  // A handle that names no live object has no endpoint whose handler could
  // apply: MPI_COMM_WORLD's does, as for a null handle.
  t.check_rc(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  freed_communicator(t);
  freed_requests(t);
  received_messages(t);
  freed_window(t);
}
