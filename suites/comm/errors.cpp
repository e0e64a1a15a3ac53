// Bad communicator arguments under MPI_ERRORS_RETURN: the right error class,
// on every rank alike (so nobody is left waiting), nothing half-built, and a
// good inter-communicator right after. Not differential: Open MPI reports an
// invalid local leader as MPI_ERR_ARG where libep says MPI_ERR_RANK, and a
// bad remote leader is found only by Open MPI's leader, whose group would
// then wait forever; those cases run on endpoints only.
#include "comm_test.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

// An inter-communicator between even and odd ranks that works: the errors
// before it must not have left anything in the way.
void good_intercomm(Context& t, api::Comm local, int group, const std::string& after) {
  api::Comm inter = api::COMM_NULL;
  const int remote_leader = 1 - group;  // ranks 0 and 1 lead the even and odd groups
  if (!t.check_rc(api::Intercomm_create(local, 0, t.comm(), remote_leader, 77, &inter),
                  "Intercomm_create after " + after))
    return;
  int remote = 0;
  t.check_rc(api::Comm_remote_size(inter, &remote), "Comm_remote_size");
  t.expect_eq(remote, group == 0 ? t.size() / 2 : (t.size() + 1) / 2, "remote size");
  const std::vector<int> ids = exchange_ids(t, inter, t.rank(), 5);
  for (int r = 0; r < remote; ++r)
    t.expect_eq(ids[static_cast<std::size_t>(r)], 2 * r + (1 - group), "remote group member");
  t.check_rc(api::Comm_free(&inter), "Comm_free");
  t.out("good Intercomm_create after {}: remote size {}", after, remote);
}

void expect_null(Context& t, api::Comm c, const std::string& what) {
  t.check(c == api::COMM_NULL, what + ": the result handle is not COMM_NULL after an error");
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  // Errors on a null handle go to MPI_COMM_WORLD's handler, as in MPI.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  // Merging an intra-communicator (not on a reference MPI that aborts on it,
  // see reference_mpi.hpp).
  if (kEndpoints || !reference::kMergeOfIntracommAborts) {
    api::Comm merged = api::COMM_NULL;
    t.expect_class(api::Intercomm_merge(t.comm(), 0, &merged), MPI_ERR_COMM,
                   "Intercomm_merge of an intra-communicator");
    expect_null(t, merged, "Intercomm_merge");
    t.out("Intercomm_merge of an intra-communicator: MPI_ERR_COMM");
  }

  // Freeing COMM_NULL.
  api::Comm null = api::COMM_NULL;
  t.expect_class(api::Comm_free(&null), MPI_ERR_COMM, "Comm_free(COMM_NULL)");
  t.out("Comm_free of COMM_NULL: MPI_ERR_COMM");

  // Comm_dup with a null result pointer on rank 0 only: an error there, and
  // the other ranks, already in the dup, must not be left waiting. (Not
  // differential: an MPI process returns at once and its peers would wait.)
  if (kEndpoints) {
    api::Comm dup = api::COMM_NULL;
    const int rc = api::Comm_dup(t.comm(), t.rank() == 0 ? nullptr : &dup);
    if (t.rank() == 0) {
      t.expect_class(rc, MPI_ERR_ARG, "Comm_dup with a null newcomm");
    } else if (t.check_rc(rc, "Comm_dup beside a null newcomm")) {
      t.check_rc(api::Comm_free(&dup), "Comm_free of that dup");
    }
    t.barrier();
    t.out("Comm_dup with a null newcomm on rank 0: MPI_ERR_ARG there, the others go on");
  }

  if (t.size() < 2) {
    t.out("one rank: no inter-communicator to make");
    return;
  }
  const int group = t.rank() % 2;
  api::Comm local = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), group, t.rank(), &local), "Comm_split");
  t.check_rc(api::Comm_set_errhandler(local, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  int local_size = 0;
  t.check_rc(api::Comm_size(local, &local_size), "Comm_size");

  // Invalid local leaders, named alike by every member of both groups.
  for (const int leader : {-1, local_size}) {
    api::Comm inter = api::COMM_NULL;
    const int rc = api::Intercomm_create(local, leader, t.comm(), 1 - group, 70, &inter);
    if (kEndpoints) {
      t.expect_class(rc, MPI_ERR_RANK, fmt::format("Intercomm_create local_leader {}", leader));
    } else {
      const int c = rc == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(rc);
      t.check(c == MPI_ERR_RANK || c == MPI_ERR_ARG,
              fmt::format("Intercomm_create local_leader {}: {}", leader, error_class_name(c)));
    }
    expect_null(t, inter, "Intercomm_create");
  }
  t.out("Intercomm_create with invalid local leaders: an error");
  good_intercomm(t, local, group, "invalid local leaders");

  if (kEndpoints) {
    // Invalid remote leaders, found by each group's leader: out of range,
    // and the leader itself.
    for (const int remote : {t.size(), -3, group}) {
      api::Comm inter = api::COMM_NULL;
      t.expect_class(api::Intercomm_create(local, 0, t.comm(), remote, 71, &inter), MPI_ERR_RANK,
                     fmt::format("Intercomm_create remote_leader {}", remote));
      expect_null(t, inter, "Intercomm_create");
    }
    t.out("Intercomm_create with invalid remote leaders: MPI_ERR_RANK");
    good_intercomm(t, local, group, "invalid remote leaders");
  }
  t.check_rc(api::Comm_free(&local), "Comm_free");
}
