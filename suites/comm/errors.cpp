// Bad communicator arguments under MPI_ERRORS_RETURN: the right error class,
// on every rank alike (so nobody is left waiting), nothing half-built, and a
// good inter-communicator right after. Not differential: Open MPI reports an
// invalid local leader as MPI_ERR_ARG where libep says MPI_ERR_RANK, and a
// bad remote leader is found only by Open MPI's leader, whose group would
// then wait forever; those cases run on endpoints only.
//
// Then bad arguments of the collectives of an inter-communicator (Barrier,
// Bcast, Allreduce, Allgather): each is checked as on an intra-communicator,
// before the call meets the other group, so every rank fails alike with the
// class MPI gives; after them the four collectives must still give the right
// answers. Where the reference MPI names another class first (both are
// right) the reference may give either; where it cannot answer at all, the
// case runs on endpoints only (see kReference below).
#include <algorithm>
#include <functional>
#include <initializer_list>

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

// Where the reference MPI cannot answer a bad argument of an
// inter-communicator collective. Measured with two groups of two processes
// under MPI_ERRORS_RETURN:
//  - MPICH 4.0.2 checks neither the count of MPI_Allreduce nor MPI_IN_PLACE
//    as the buffer of MPI_Bcast or the sendbuf of MPI_Allgather on an
//    inter-communicator: the call crashes (a yaksa assertion, a segfault);
//  - Open MPI 4.1.4 raises MPI_IN_PLACE in MPI_Allreduce on an
//    inter-communicator (MPI_ERR_BUFFER) on MPI_COMM_WORLD, whose handler
//    aborts the job, instead of on the communicator.
struct Reference {
  bool allreduce_count = !reference::kMpich;
  bool allreduce_in_place = reference::kMpich;
  bool bcast_in_place = !reference::kMpich;
  bool allgather_send_in_place = !reference::kMpich;
};
constexpr Reference kReference;

// The four inter-communicator collectives with good arguments: rank 0 of
// group 0 broadcasts, and every rank checks what the other group sent.
void inter_collectives_work(Context& t, api::Comm inter, int group, int rank, int remote,
                            const std::string& after) {
  const auto id = [](int g, int r) { return 1000 * (g + 1) + r; };
  t.check_rc(api::Barrier(inter), "Barrier after " + after);

  int data[3] = {group == 0 && rank == 0 ? 7 : -1, 8, 9};
  const int root = group == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  t.check_rc(api::Bcast(data, 3, MPI_INT, root, inter), "Bcast after " + after);
  if (group == 1) t.expect_eq(data[0], 7, "Bcast to the other group after " + after);

  const int mine = id(group, rank);
  int sum = 0;
  t.check_rc(api::Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter), "Allreduce after " + after);
  int want = 0;
  for (int r = 0; r < remote; ++r) want += id(1 - group, r);
  t.expect_eq(sum, want, "Allreduce of the other group after " + after);

  std::vector<int> all(static_cast<std::size_t>(remote), -1);
  t.check_rc(api::Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, inter),
             "Allgather after " + after);
  for (int r = 0; r < remote; ++r)
    t.expect_eq(all[static_cast<std::size_t>(r)], id(1 - group, r), "Allgather after " + after);
  t.out("inter-communicator collectives after {}: right", after);
}

// One bad call made alike on every rank of both groups: `expected` on
// endpoints; on the reference `expected` or one of `also`, where it answers.
void bad(Context& t, const std::string& what, bool reference_answers, int expected,
         std::initializer_list<int> also, const std::function<int()>& call) {
  if (!kEndpoints && !reference_answers) return;
  const int rc = call();
  const int c = rc == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(rc);
  if (kEndpoints || c == expected) {
    t.expect_class(rc, expected, what);
  } else {
    t.check(std::find(also.begin(), also.end(), c) != also.end(),
            fmt::format("{}: {}", what, error_class_name(c)));
  }
  t.out("{}: {}", what, error_class_name(expected));
}

void inter_collective_errors(Context& t, api::Comm inter, int group) {
  t.check_rc(api::Comm_set_errhandler(inter, MPI_ERRORS_RETURN), "Comm_set_errhandler");
  int rank = 0;
  int remote = 0;
  t.check_rc(api::Comm_rank(inter, &rank), "Comm_rank");
  t.check_rc(api::Comm_remote_size(inter, &remote), "Comm_remote_size");
  const int root = group == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int buf[4] = {1, 2, 3, 4};
  std::vector<int> out(static_cast<std::size_t>(4 * remote), 0);
  int* o = out.data();

  for (const int r : {-5, remote}) {
    bad(t, fmt::format("inter Bcast root {}", r == remote ? "remote size" : "-5"), true,
        MPI_ERR_ROOT, {}, [&] { return api::Bcast(buf, 4, MPI_INT, r, inter); });
  }
  bad(t, "inter Bcast count -1", true, MPI_ERR_COUNT, {},
      [&] { return api::Bcast(buf, -1, MPI_INT, root, inter); });
  bad(t, "inter Bcast MPI_DATATYPE_NULL", true, MPI_ERR_TYPE, {},
      [&] { return api::Bcast(buf, 4, MPI_DATATYPE_NULL, root, inter); });
  bad(t, "inter Bcast MPI_IN_PLACE", kReference.bcast_in_place, MPI_ERR_BUFFER, {MPI_ERR_ARG},
      [&] { return api::Bcast(MPI_IN_PLACE, 4, MPI_INT, root, inter); });
  bad(t, "inter Allreduce count -2", kReference.allreduce_count, MPI_ERR_COUNT, {},
      [&] { return api::Allreduce(buf, o, -2, MPI_INT, MPI_SUM, inter); });
  // MPI does not say which of two bad arguments is named: libep checks the
  // datatype before the op, Open MPI and MPICH the op (for this datatype).
  bad(t, "inter Allreduce MPI_DATATYPE_NULL", true, MPI_ERR_TYPE, {MPI_ERR_OP},
      [&] { return api::Allreduce(buf, o, 4, MPI_DATATYPE_NULL, MPI_SUM, inter); });
  bad(t, "inter Allreduce MPI_OP_NULL", true, MPI_ERR_OP, {},
      [&] { return api::Allreduce(buf, o, 4, MPI_INT, MPI_OP_NULL, inter); });
  bad(t, "inter Allreduce sendbuf MPI_IN_PLACE", kReference.allreduce_in_place, MPI_ERR_BUFFER, {},
      [&] { return api::Allreduce(MPI_IN_PLACE, o, 4, MPI_INT, MPI_SUM, inter); });
  bad(t, "inter Allreduce recvbuf MPI_IN_PLACE", kReference.allreduce_in_place, MPI_ERR_BUFFER, {},
      [&] { return api::Allreduce(buf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, inter); });
  bad(t, "inter Allgather sendcount -1", true, MPI_ERR_COUNT, {},
      [&] { return api::Allgather(buf, -1, MPI_INT, o, 1, MPI_INT, inter); });
  bad(t, "inter Allgather recvcount -1", true, MPI_ERR_COUNT, {},
      [&] { return api::Allgather(buf, 1, MPI_INT, o, -1, MPI_INT, inter); });
  bad(t, "inter Allgather recvtype MPI_DATATYPE_NULL", true, MPI_ERR_TYPE, {},
      [&] { return api::Allgather(buf, 1, MPI_INT, o, 1, MPI_DATATYPE_NULL, inter); });
  bad(t, "inter Allgather sendbuf MPI_IN_PLACE", kReference.allgather_send_in_place, MPI_ERR_BUFFER,
      {MPI_ERR_ARG},
      [&] { return api::Allgather(MPI_IN_PLACE, 1, MPI_INT, o, 1, MPI_INT, inter); });
  bad(t, "inter Allgather recvbuf MPI_IN_PLACE", true, MPI_ERR_BUFFER, {MPI_ERR_ARG},
      [&] { return api::Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, inter); });
  inter_collectives_work(t, inter, group, rank, remote, "errors of every rank");

  if (kEndpoints) {
    // Scan has no inter-communicator form (MPI 4.0, 6.2.2), and libep says so.
    bad(t, "inter Scan", false, MPI_ERR_COMM, {},
        [&] { return api::Scan(buf, o, 4, MPI_INT, MPI_SUM, inter); });
    // An error of one endpoint's own buffers: it reports, the others finish
    // (with an undefined result, as after any MPI error). A plain MPI job
    // would leave the others waiting.
    const bool first = group == 0 && rank == 0;
    int rc = api::Allreduce(buf, first ? MPI_IN_PLACE : o, 4, MPI_INT, MPI_SUM, inter);
    t.expect_class(rc, first ? MPI_ERR_BUFFER : MPI_SUCCESS, "inter Allreduce, one MPI_IN_PLACE");
    rc = api::Allgather(buf, first ? -1 : 1, MPI_INT, o, 1, MPI_INT, inter);
    t.expect_class(rc, first ? MPI_ERR_COUNT : MPI_SUCCESS, "inter Allgather, one bad sendcount");
    inter_collectives_work(t, inter, group, rank, remote, "errors of one endpoint");
  }
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

  // Comm_idup of COMM_NULL; then with a null newcomm on rank 0 only, which
  // still takes part (endpoints only, as Comm_dup above).
  {
    api::Comm dup = api::COMM_NULL;
    api::Request request = api::REQUEST_NULL;
    t.expect_class(api::Comm_idup(api::COMM_NULL, &dup, &request), MPI_ERR_COMM,
                   "Comm_idup of COMM_NULL");
    t.out("Comm_idup of COMM_NULL: MPI_ERR_COMM");
  }
  if (kEndpoints) {
    api::Comm dup = api::COMM_NULL;
    api::Request request = api::REQUEST_NULL;
    const int rc = api::Comm_idup(t.comm(), t.rank() == 0 ? nullptr : &dup, &request);
    if (t.rank() == 0) {
      t.expect_class(rc, MPI_ERR_ARG, "Comm_idup with a null newcomm");
      t.check(request == api::REQUEST_NULL, "Comm_idup with a null newcomm: no request");
    } else if (t.check_rc(rc, "Comm_idup beside a null newcomm") &&
               t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait for that idup")) {
      int rank = -1;
      t.check_rc(api::Comm_rank(dup, &rank), "Comm_rank of that idup");
      t.expect_eq(rank, t.rank(), "rank in the idup beside a null newcomm");
      t.check_rc(api::Comm_free(&dup), "Comm_free of that idup");
    }
    // In libep, whose waits move the duplicate on where rank 0 is its
    // process's only endpoint (the harness's barrier waits in MPI).
    t.check_rc(api::Barrier(t.comm()), "Barrier");
    t.out("Comm_idup with a null newcomm on rank 0: MPI_ERR_ARG there, the others go on");
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

  api::Comm inter = api::COMM_NULL;
  if (t.check_rc(api::Intercomm_create(local, 0, t.comm(), 1 - group, 78, &inter),
                 "Intercomm_create")) {
    inter_collective_errors(t, inter, group);
    t.check_rc(api::Comm_free(&inter), "Comm_free");
  }
  t.check_rc(api::Comm_free(&local), "Comm_free");
}
