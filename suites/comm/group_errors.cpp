// Bad arguments of the group functions, Comm_create and Comm_create_group
// under MPI_ERRORS_RETURN: the class libep promises (ep/group.hpp) on every
// rank alike, COMM_NULL where a communicator was asked for, and a working
// communicator from a good call right after. Endpoints only: Open MPI 4.1.4
// and MPICH 4.0.2 disagree on several classes (a bad range is MPI_ERR_RANK
// in one and MPI_ERR_ARG in the other; neither detects a rank given twice
// to MPI_Group_incl, and Open MPI none out of range in
// MPI_Group_translate_ranks), so plain MPI cannot be the reference.
//
// With --fatal=1 a bad Group_incl runs under MPI_COMM_WORLD's default
// handler, whose message must name the function, the group and the reason
// (comm.group_errors_fatal).
#include <numeric>
#include <vector>

#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

void group_functions(Context& t, api::Group world) {
  const int n = t.size();
  int value = 0;
  api::Group out = api::GROUP_NULL;
  t.expect_class(api::Group_size(api::GROUP_NULL, &value), MPI_ERR_GROUP, "Group_size(NULL)");
  t.expect_class(api::Group_rank(api::GROUP_NULL, &value), MPI_ERR_GROUP, "Group_rank(NULL)");
  t.expect_class(api::Group_compare(world, api::GROUP_NULL, &value), MPI_ERR_GROUP,
                 "Group_compare(world, NULL)");
  t.expect_class(api::Group_union(api::GROUP_NULL, world, &out), MPI_ERR_GROUP,
                 "Group_union(NULL, world)");
  const int out_of_range[2] = {0, n};
  t.expect_class(api::Group_incl(world, 2, out_of_range, &out), MPI_ERR_RANK,
                 "Group_incl of rank size");
  t.expect_class(api::Group_excl(world, 2, out_of_range, &out), MPI_ERR_RANK,
                 "Group_excl of rank size");
  const int twice[2] = {0, 0};
  t.expect_class(api::Group_incl(world, 2, twice, &out), MPI_ERR_RANK, "Group_incl of 0 twice");
  t.expect_class(api::Group_excl(world, 2, twice, &out), MPI_ERR_RANK, "Group_excl of 0 twice");
  t.expect_class(api::Group_incl(world, -1, twice, &out), MPI_ERR_ARG, "Group_incl n = -1");
  // Stride 0, walking away from last (one rank has no such walk), an end
  // past the group, an end before it.
  int bad_ranges[][1][3] = {{{0, 0, 0}}, {{n - 1, 0, 1}}, {{0, n, 1}}, {{-1, 0, 1}}};
  for (auto& range : bad_ranges) {
    if (range[0][0] == range[0][1] && range[0][2] != 0) continue;  // one rank: (0, 0, 1) is good
    const std::string what = fmt::format("({}, {}, {})", range[0][0], range[0][1], range[0][2]);
    t.expect_class(api::Group_range_incl(world, 1, range, &out), MPI_ERR_ARG,
                   "Group_range_incl " + what);
    t.expect_class(api::Group_range_excl(world, 1, range, &out), MPI_ERR_ARG,
                   "Group_range_excl " + what);
  }
  int overlapping[2][3] = {{0, 0, 1}, {0, 0, 1}};
  t.expect_class(api::Group_range_incl(world, 2, overlapping, &out), MPI_ERR_ARG,
                 "Group_range_incl naming rank 0 twice");
  const int bad_rank[1] = {n};
  int translated[1] = {-7};
  t.expect_class(api::Group_translate_ranks(world, 1, bad_rank, world, translated), MPI_ERR_RANK,
                 "Group_translate_ranks of rank size");
  api::Group null = api::GROUP_NULL;
  t.expect_class(api::Group_free(&null), MPI_ERR_GROUP, "Group_free(NULL)");
  t.check(out == api::GROUP_NULL, "no group was made by a failed call");
  // A freed handle is GROUP_NULL; GROUP_EMPTY may be freed.
  api::Group copy = api::GROUP_NULL;
  t.check_rc(api::Group_incl(world, 1, out_of_range, &copy), "Group_incl");
  t.check_rc(api::Group_free(&copy), "Group_free");
  t.check(copy == api::GROUP_NULL, "Group_free sets GROUP_NULL");
  api::Group empty = api::GROUP_EMPTY;
  t.check_rc(api::Group_free(&empty), "Group_free(GROUP_EMPTY)");
  t.expect_class(api::Comm_remote_group(t.comm(), &out), MPI_ERR_COMM,
                 "Comm_remote_group of an intra-communicator");
}

void creations(Context& t, api::Group world) {
  api::Comm c = api::COMM_NULL;
  // Every endpoint passes GROUP_NULL: all fail alike, nobody waits.
  t.expect_class(api::Comm_create(t.comm(), api::GROUP_NULL, &c), MPI_ERR_GROUP,
                 "Comm_create(GROUP_NULL)");
  t.check(c == api::COMM_NULL, "Comm_create(GROUP_NULL) gives COMM_NULL");
  t.expect_class(api::Comm_create_group(t.comm(), api::GROUP_NULL, 1, &c), MPI_ERR_GROUP,
                 "Comm_create_group(GROUP_NULL)");
  t.expect_class(api::Comm_create_group(t.comm(), world, -1, &c), MPI_ERR_TAG,
                 "Comm_create_group with tag -1");
  t.check(c == api::COMM_NULL, "Comm_create_group with a bad tag gives COMM_NULL");
  if (t.size() >= 2) {
    // The world's group on the even ranks' split holds endpoints the split
    // lacks.
    api::Comm half = api::COMM_NULL;
    t.check_rc(api::Comm_split(t.comm(), t.rank() % 2, 0, &half), "Comm_split");
    t.check_rc(api::Comm_set_errhandler(half, MPI_ERRORS_RETURN), "Comm_set_errhandler");
    t.expect_class(api::Comm_create(half, world, &c), MPI_ERR_GROUP,
                   "Comm_create with endpoints not in the communicator");
    t.check(c == api::COMM_NULL, "Comm_create with a bad group gives COMM_NULL");
    t.expect_class(api::Comm_create_group(half, world, 3, &c), MPI_ERR_GROUP,
                   "Comm_create_group with endpoints not in the communicator");
    t.check_rc(api::Comm_free(&half), "Comm_free");
  }
  // Right after: both calls work.
  std::vector<int> all(static_cast<std::size_t>(t.size()));
  std::iota(all.begin(), all.end(), 0);
  t.check_rc(api::Comm_create(t.comm(), world, &c), "Comm_create after the errors");
  ring_check(t, c, t.rank(), 41, "Comm_create after the errors");
  t.check_rc(api::Comm_free(&c), "Comm_free");
  t.check_rc(api::Comm_create_group(t.comm(), world, 2, &c), "Comm_create_group after errors");
  ring_check(t, c, t.rank(), 42, "Comm_create_group after the errors");
  t.check_rc(api::Comm_free(&c), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  api::Group world = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  if (t.params().get_int("fatal", 0) != 0) {
    const int bad[1] = {t.size() + 5};
    api::Group out = api::GROUP_NULL;
    api::Group_incl(world, 1, bad, &out);
    t.fail("a bad Group_incl returned under MPI_ERRORS_ARE_FATAL");
    return;
  }
  // The group functions' errors go through MPI_COMM_WORLD's handler.
  t.check_rc(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  group_functions(t, world);
  creations(t, world);
  t.check_rc(api::Group_free(&world), "Group_free");
}
