// Endpoints of one process calling different constructors on the same
// communicator (here even ranks one, odd ranks another; every layout of this
// test puts at least two consecutive ranks on each process, so every process
// sees both). Erroneous in MPI, where it hangs or mismatches; libep's
// endpoints meet before any MPI call, so they notice and fail alike with
// MPI_ERR_OTHER (as EP_CHECK_COLLECTIVES reports mismatched collectives)
// and no new communicator. Before, each read the other constructor's
// arguments as its own, and the calls "succeeded". Endpoints only: plain
// MPI has no such meeting.
//
// With --fatal=1 the first case runs under the default handler, whose message
// must name both constructors (comm.mismatch_fatal).
#include <functional>
#include <utility>

#include "comm_test.hpp"

namespace {

using namespace eptest;
using Constructor = std::pair<const char*, std::function<int(api::Comm, api::Comm*)>>;

Constructor split() {
  return {"Comm_split", [](api::Comm c, api::Comm* out) { return api::Comm_split(c, 0, 0, out); }};
}
Constructor dup() {
  return {"Comm_dup", [](api::Comm c, api::Comm* out) { return api::Comm_dup(c, out); }};
}
Constructor split_type() {
  return {"Comm_split_type", [](api::Comm c, api::Comm* out) {
            return api::Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out);
          }};
}

// A good constructor afterwards, and a message over its result.
void still_works(Context& t) {
  api::Comm copy = api::COMM_NULL;
  if (!t.check_rc(api::Comm_dup(t.comm(), &copy), "Comm_dup after the mismatch")) return;
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int out = t.rank();
  int in = -1;
  t.check_rc(
      api::Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, copy, api::STATUS_IGNORE),
      "Sendrecv on the new communicator");
  t.expect_eq(in, left, "Sendrecv: the left neighbour's rank");
  t.check_rc(api::Comm_free(&copy), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  const bool fatal = t.params().get_int("fatal", 0) != 0;
  if (!fatal) {
    t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  }
  const std::pair<Constructor, Constructor> cases[] = {
      {split(), dup()}, {split_type(), dup()}, {split(), split_type()}, {dup(), split()}};
  for (const auto& [even, odd] : cases) {
    const Constructor& mine = t.rank() % 2 == 0 ? even : odd;
    api::Comm made = api::COMM_NULL;
    const int rc = mine.second(t.comm(), &made);
    if (fatal) t.fail("a mismatched constructor returned under the default handler");
    t.expect_class(rc, MPI_ERR_OTHER,
                   fmt::format("{} while other endpoints called {}", mine.first,
                               t.rank() % 2 == 0 ? odd.first : even.first));
    t.check(made == api::COMM_NULL, fmt::format("{}: no new communicator", mine.first));
    if (made != api::COMM_NULL) api::Comm_free(&made);
    still_works(t);
    t.out("{} / {}: {}", even.first, odd.first, t.failures() == 0 ? "ok" : "FAILED");
  }
}
