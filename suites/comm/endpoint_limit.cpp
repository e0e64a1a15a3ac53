// The most endpoints one process may have (ep/comm.hpp,
// Comm_create_endpoints): one more than the limit is refused with
// MPI_ERR_OTHER through the parent's error handler (with --fatal=1 the
// default one, whose message names the limit), before any MPI communicator
// is made; the limit itself works,
// with every endpoint reachable. Open MPI 4.1 (MPI_TAG_UB 2^31-1) allows
// 4096 endpoints per process, MPICH 4.0 (2^28-1) 1024. Until stop 28 an
// Open MPI process asking for 32769 to 65544 failed inside MPI_Comm_dup
// with a bare MPI_ERR_INTERN (out of communicators while making its
// channels), and 4097 to 32768 were accepted at up to 32769 MPI
// communicators per endpoint communicator.
//
// Endpoints only (MODE ep), on one endpoint of one process (layout 1): it
// makes endpoint communicators over MPI_COMM_SELF itself; plain MPI has no
// counterpart.
#include <climits>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

// The limit for the MPI's tag bound, where this test knows it.
int known_limit(int mpi_tag_ub) {
  if (mpi_tag_ub == INT_MAX) return 4096;
  if (mpi_tag_ub == (1 << 28) - 1) return 1024;
  return 0;
}

}  // namespace

void eptest::run(Context& t) {
  int* tag_ub = nullptr;
  int flag = 0;
  t.check_rc(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag), "MPI_TAG_UB");
  const int limit = flag ? known_limit(*tag_ub) : 0;
  if (!t.check(limit > 0, "this MPI's MPI_TAG_UB is not one the test knows")) return;
  std::vector<api::Comm> comms(static_cast<std::size_t>(limit) + 1, api::COMM_NULL);
  if (t.params().get_int("fatal", 0) != 0) {
    // MPI_COMM_SELF's handler is MPI_ERRORS_ARE_FATAL: the job ends with
    // libep's message (EXPECT_FATAL in CMakeLists.txt names the limit).
    api::Comm_create_endpoints(MPI_COMM_SELF, limit + 1, MPI_INFO_NULL, comms.data());
    t.check(false, "Comm_create_endpoints of one endpoint too many returned");
    return;
  }
  t.check_rc(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");

  // One too many: refused, nothing written.
  int rc = api::Comm_create_endpoints(MPI_COMM_SELF, limit + 1, MPI_INFO_NULL, comms.data());
  t.expect_class(rc, MPI_ERR_OTHER, fmt::format("Comm_create_endpoints of {}", limit + 1));
  t.check(comms.front() == api::COMM_NULL && comms.back() == api::COMM_NULL,
          "a refused Comm_create_endpoints wrote handles");
  t.out("{} endpoints in one process: refused", limit + 1);

  // The limit itself: made, and its last endpoint answers to its rank.
  comms.assign(static_cast<std::size_t>(limit), api::COMM_NULL);
  rc = api::Comm_create_endpoints(MPI_COMM_SELF, limit, MPI_INFO_NULL, comms.data());
  if (!t.check_rc(rc, fmt::format("Comm_create_endpoints of {}", limit))) return;
  int rank = -1;
  int size = -1;
  t.check_rc(api::Comm_rank(comms.back(), &rank), "Comm_rank");
  t.check_rc(api::Comm_size(comms.back(), &size), "Comm_size");
  t.expect_eq(rank, limit - 1, "rank of the last endpoint");
  t.expect_eq(size, limit, "size");
  for (api::Comm& c : comms) t.check_rc(api::Comm_free(&c), "Comm_free");
  t.out("{} endpoints in one process: made and freed", limit);
}
