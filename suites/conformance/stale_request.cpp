// A request handle kept after its request was freed must not alias the
// requests made after it: a library that recycles request storage (libep
// does, for speed) hands the freed one's place to the next request, and a
// handle that is only an address would then name that new request. Each
// round frees a request in one of the ways MPI frees them, makes new pending
// receives (the first of which takes the freed one's place), and checks that
// Test, Wait and Request_free on the old handle get MPI_ERR_REQUEST while the
// new receives are untouched: still pending, then completed with their own
// messages.
//
// Endpoints only (MODE ep): using a freed handle is erroneous in MPI, so the
// reference MPI defines no answer to diff against.
#include <array>
#include <string>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr int kNew = 8;

// A request freed in the way `how` names, and its handle as it was.
api::Request freed_request(Context& t, int how, std::string* name) {
  int buf = -1;
  const int out = 1;
  api::Request request = api::REQUEST_NULL;
  api::Request stale = api::REQUEST_NULL;
  int flag = 0;
  switch (how) {
    case 0:
      *name = "completed by Wait";
      t.check_rc(api::Isend(&out, 1, MPI_INT, t.rank(), 100, t.comm(), &request), "Isend");
      stale = request;
      t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
      t.check_rc(api::Recv(&buf, 1, MPI_INT, t.rank(), 100, t.comm(), api::STATUS_IGNORE), "Recv");
      break;
    case 1:
      *name = "completed by Test";
      t.check_rc(api::Irecv(&buf, 1, MPI_INT, t.rank(), 101, t.comm(), &request), "Irecv");
      stale = request;
      t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 101, t.comm()), "Send");
      while (!flag && t.check_rc(api::Test(&request, &flag, api::STATUS_IGNORE), "Test")) relax();
      break;
    case 2:
      *name = "persistent, freed by Request_free";
      t.check_rc(api::Recv_init(&buf, 1, MPI_INT, t.rank(), 102, t.comm(), &request), "Recv_init");
      stale = request;
      t.check_rc(api::Request_free(&request), "Request_free");
      break;
    default:
      *name = "completed, then freed by Request_free";
      t.check_rc(api::Isend(&out, 1, MPI_INT, t.rank(), 103, t.comm(), &request), "Isend");
      stale = request;
      t.check_rc(api::Recv(&buf, 1, MPI_INT, t.rank(), 103, t.comm(), api::STATUS_IGNORE), "Recv");
      t.check_rc(api::Request_free(&request), "Request_free");
      break;
  }
  t.check(request == api::REQUEST_NULL, fmt::format("{}: the handle is not REQUEST_NULL", *name));
  return stale;
}

// One round. The new receives are pending while the stale handle is tried,
// so a Test that reaches one of them cannot complete it.
void round(Context& t, int how) {
  std::string name;
  const api::Request stale = freed_request(t, how, &name);

  std::array<int, kNew> in{};
  std::array<api::Request, kNew> fresh{};
  for (int k = 0; k < kNew; ++k) {
    in[static_cast<std::size_t>(k)] = -1;
    t.check_rc(api::Irecv(&in[static_cast<std::size_t>(k)], 1, MPI_INT, t.rank(), 200 + k, t.comm(),
                          &fresh[static_cast<std::size_t>(k)]),
               "Irecv");
  }

  api::Request handle = stale;
  int flag = -1;
  const bool refused = t.expect_class(api::Test(&handle, &flag, api::STATUS_IGNORE),
                                      MPI_ERR_REQUEST, fmt::format("Test on a request {}", name));
  if (refused) {
    t.expect_class(api::Wait(&handle, api::STATUS_IGNORE), MPI_ERR_REQUEST,
                   fmt::format("Wait on a request {}", name));
    t.expect_class(api::Request_free(&handle), MPI_ERR_REQUEST,
                   fmt::format("Request_free on a request {}", name));
    t.check(handle == stale, fmt::format("a refused call on a request {} changed it", name));
  } else {
    // It reached a live request: Wait would block on it (no message is sent
    // yet) and Request_free would free it under its owner.
    t.fail(fmt::format("Test on a request {} reached a live request (flag {})", name, flag));
  }

  // The new receives: none completed by the calls above, then each gets its
  // own message.
  int done = -1;
  t.check_rc(api::Testall(kNew, fresh.data(), &done, api::STATUSES_IGNORE), "Testall");
  t.check(done == 0,
          fmt::format("after the stale handle of a request {}: new receives done", name));
  for (int k = kNew - 1; k >= 0; --k) {
    const int out = 1000 * how + k;
    t.check_rc(api::Send(&out, 1, MPI_INT, t.rank(), 200 + k, t.comm()), "Send");
  }
  std::array<api::Status, kNew> statuses{};
  t.check_rc(api::Waitall(kNew, fresh.data(), statuses.data()), "Waitall");
  bool ok = true;
  for (int k = 0; k < kNew; ++k) {
    const auto i = static_cast<std::size_t>(k);
    ok &= t.expect_eq(in[i], 1000 * how + k, "payload of a new receive");
    ok &= t.expect_eq(statuses[i].MPI_TAG, 200 + k, "tag of a new receive");
    ok &= t.check(fresh[i] == api::REQUEST_NULL, "a new receive's handle after Waitall");
  }
  t.out("request {}: stale handle refused, new receives {}", name, ok ? "ok" : "BAD");
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  // A freed request has no endpoint whose handler could apply: MPI_COMM_WORLD's does.
  t.check_rc(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  for (int how = 0; how < 4; ++how) round(t, how);
}
