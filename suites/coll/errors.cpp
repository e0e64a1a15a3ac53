// Argument errors of the collectives, under MPI_ERRORS_RETURN: the MPI error
// class for every kind of bad argument, and no hang when only one endpoint's
// arguments are bad (it takes part with a stand-in and reports; see
// libep/src/coll/checks.hpp). After each error a correct collective must
// still give the right answer on every rank. Endpoints only: Open MPI checks
// arguments differently (and a plain MPI job may hang on one-rank errors).
#include <algorithm>
#include <numeric>
#include <vector>

#include "coll_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::coll;

// A correct Allreduce after an error: the communicator still works.
void still_works(Context& t, const std::string& after) {
  const int mine = t.rank() + 1;
  int sum = 0;
  t.check_rc(capi::Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, t.comm()),
             "Allreduce after " + after);
  t.expect_eq(sum, t.size() * (t.size() + 1) / 2, "sum after " + after);
}

// Errors in arguments that every endpoint passes alike.
void agreed(Context& t) {
  int buf[4] = {1, 2, 3, 4};
  int out[4] = {};
  t.expect_class(capi::Bcast(buf, 4, MPI_INT, t.size(), t.comm()), MPI_ERR_ROOT, "Bcast root=size");
  t.expect_class(capi::Reduce(buf, out, 4, MPI_INT, MPI_SUM, -1, t.comm()), MPI_ERR_ROOT,
                 "Reduce root=-1");
  t.expect_class(capi::Bcast(buf, -1, MPI_INT, 0, t.comm()), MPI_ERR_COUNT, "Bcast count=-1");
  t.expect_class(capi::Allreduce(buf, out, -2, MPI_INT, MPI_SUM, t.comm()), MPI_ERR_COUNT,
                 "Allreduce count=-2");
  t.expect_class(capi::Allreduce(buf, out, 4, MPI_DATATYPE_NULL, MPI_SUM, t.comm()), MPI_ERR_TYPE,
                 "Allreduce MPI_DATATYPE_NULL");
  t.expect_class(capi::Scan(buf, out, 4, MPI_INT, MPI_OP_NULL, t.comm()), MPI_ERR_OP,
                 "Scan MPI_OP_NULL");
  t.expect_class(capi::Allreduce(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, t.comm()), MPI_ERR_BUFFER,
                 "Allreduce recvbuf=MPI_IN_PLACE");
  t.expect_class(capi::Bcast(MPI_IN_PLACE, 4, MPI_INT, 0, t.comm()), MPI_ERR_BUFFER,
                 "Bcast MPI_IN_PLACE");
  still_works(t, "agreed errors");
}

// Errors of one endpoint alone: it reports, the others finish.
void one_endpoint(Context& t) {
  const int last = t.size() - 1;
  // Room for one block per rank: the root scatters from buf.
  std::vector<int> send(static_cast<std::size_t>(std::max(t.size(), 4)), 1);
  std::vector<int> recv(send.size(), 0);
  int* buf = send.data();
  int* out = recv.data();
  const bool bad = t.rank() == last && last > 0;  // a non-root rank
  int rc = capi::Reduce(bad ? MPI_IN_PLACE : buf, out, 4, MPI_INT, MPI_SUM, 0, t.comm());
  t.expect_class(rc, bad ? MPI_ERR_BUFFER : MPI_SUCCESS, "Reduce, MPI_IN_PLACE at a non-root");
  still_works(t, "Reduce");

  rc = capi::Gather(bad ? MPI_IN_PLACE : buf, 1, MPI_INT, out, 1, MPI_INT, 0, t.comm());
  t.expect_class(rc, bad ? MPI_ERR_BUFFER : MPI_SUCCESS, "Gather, MPI_IN_PLACE at a non-root");
  still_works(t, "Gather");

  rc = capi::Scatter(buf, 1, MPI_INT, bad ? MPI_IN_PLACE : out, 1, MPI_INT, 0, t.comm());
  t.expect_class(rc, bad ? MPI_ERR_BUFFER : MPI_SUCCESS, "Scatter, MPI_IN_PLACE at a non-root");
  still_works(t, "Scatter");

  const bool first = t.rank() == 0;
  rc = capi::Allgather(buf, 1, MPI_INT, first ? MPI_IN_PLACE : out, 1, MPI_INT, t.comm());
  t.expect_class(rc, first ? MPI_ERR_BUFFER : MPI_SUCCESS, "Allgather, recvbuf MPI_IN_PLACE");
  still_works(t, "Allgather");

  std::vector<int> counts(static_cast<std::size_t>(t.size()), 1);
  std::vector<int> displs(counts.size());
  std::iota(displs.begin(), displs.end(), 0);
  if (first) counts[0] = -1;
  rc = capi::Alltoallv(buf, counts.data(), displs.data(), MPI_INT, out, counts.data(),
                       displs.data(), MPI_INT, t.comm());
  // Rank 0 reports its own counts; what the others receive is then undefined
  // and the leader of rank 0's process may see a mismatch too.
  if (first) t.expect_class(rc, MPI_ERR_COUNT, "Alltoallv, negative count");
  still_works(t, "Alltoallv");
}

// An invalid handle has no endpoint; MPI_COMM_WORLD's handler applies. The
// handler is per process, so every rank sets it (to the same value), between
// barriers so that none is still using the fatal one.
void null_comm(Context& t) {
  t.barrier();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  t.barrier();
  t.expect_class(capi::Barrier(ep::COMM_NULL), MPI_ERR_COMM, "Barrier(COMM_NULL)");
  t.barrier();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  t.barrier();
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(capi::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  agreed(t);
  one_endpoint(t);
  null_comm(t);
}
