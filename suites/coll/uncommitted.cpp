// Collectives with a derived datatype used before MPI_Type_commit fail with
// MPI_ERR_TYPE on every rank under MPI_ERRORS_RETURN, as on MPI processes
// (within a process libep used to abort in MPI_Pack), and the communicator
// still works once the type is committed.
#include <vector>

#include "coll_test.hpp"

void eptest::run(Context& t) {
  t.check_rc(capi::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_contiguous(2, MPI_INT, &pair), "MPI_Type_contiguous");
  std::vector<int> mine{t.rank(), 2 * t.rank()};
  std::vector<int> all(2 * static_cast<std::size_t>(t.size()), -1);
  t.expect_class(capi::Bcast(mine.data(), 1, pair, 0, t.comm()), MPI_ERR_TYPE, "Bcast");
  t.expect_class(capi::Allgather(mine.data(), 1, pair, all.data(), 1, pair, t.comm()), MPI_ERR_TYPE,
                 "Allgather");
  t.out("uncommitted type: Bcast, Allgather fail with MPI_ERR_TYPE: {}",
        t.failures() == 0 ? "yes" : "no");
  t.check_rc(MPI_Type_commit(&pair), "MPI_Type_commit");
  t.check_rc(capi::Allgather(mine.data(), 1, pair, all.data(), 1, pair, t.comm()), "Allgather");
  std::string gathered;
  for (const int v : all) gathered += fmt::format(" {}", v);
  t.out("committed: Allgather gave{}", gathered);
  t.check_rc(MPI_Type_free(&pair), "MPI_Type_free");
}
