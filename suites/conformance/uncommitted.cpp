// A derived datatype used before MPI_Type_commit is an error MPI reports as
// MPI_ERR_TYPE under MPI_ERRORS_RETURN. Between endpoints of one process
// libep used to abort the job instead (MPI_Pack under MPI_COMM_SELF's
// handler), while across processes it returned the class. Every rank sends
// to its right neighbour and receives from its left one with the uncommitted
// type (count 1: MPICH accepts any type in a zero-count call), then commits
// it and exchanges for real.
#include <array>

#include "helpers.hpp"

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  const int left = (t.rank() - 1 + t.size()) % t.size();
  const int right = (t.rank() + 1) % t.size();
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_contiguous(2, MPI_INT, &pair), "MPI_Type_contiguous");
  std::array<int, 2> out{t.rank(), -t.rank()};
  std::array<int, 2> in{-1, -1};
  t.expect_class(api::Send(out.data(), 1, pair, right, 0, t.comm()), MPI_ERR_TYPE, "Send");
  t.expect_class(api::Recv(in.data(), 1, pair, left, 0, t.comm(), api::STATUS_IGNORE), MPI_ERR_TYPE,
                 "Recv");
  api::Request request = api::REQUEST_NULL;
  t.expect_class(api::Isend(out.data(), 1, pair, right, 0, t.comm(), &request), MPI_ERR_TYPE,
                 "Isend");
  t.expect_class(api::Irecv(in.data(), 1, pair, left, 0, t.comm(), &request), MPI_ERR_TYPE,
                 "Irecv");
  t.out("uncommitted type: Send, Recv, Isend, Irecv fail with MPI_ERR_TYPE: {}",
        t.failures() == 0 ? "yes" : "no");
  t.check_rc(MPI_Type_commit(&pair), "MPI_Type_commit");
  t.check_rc(api::Sendrecv(out.data(), 1, pair, right, 1, in.data(), 1, pair, left, 1, t.comm(),
                           api::STATUS_IGNORE),
             "Sendrecv");
  t.out("committed: received {} {} from the left neighbour", in[0], in[1]);
  t.check_rc(MPI_Type_free(&pair), "MPI_Type_free");
}
