// Groups: Comm_group, Comm_remote_group and the Group_ functions.
//
// A group is a list of endpoint identities (object/group.hpp); the set
// arithmetic is in ranks/group_set.hpp. Everything here is local.
#include "ep/group.hpp"

#include <fmt/format.h>

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "object/group.hpp"
#include "ranks/group_set.hpp"

namespace ep {

namespace detail {
GroupImpl group_empty{GroupImpl::kMagic, -1, {}, true};
}  // namespace detail

using detail::Endpoint;
using detail::GroupImpl;
using detail::Members;
using detail::RanksError;

namespace {

GroupImpl* valid_group(Group group) { return group && group->is_valid() ? group : nullptr; }

// "the group of 3 endpoints of endpoint (world rank 1, number 2)": where a
// group error happened, for the message.
std::string describe_group(const GroupImpl* g) {
  if (!g) return "no valid group";
  if (g->owner < 0) return fmt::format("a group of {} endpoints", g->members.size());
  return fmt::format("a group of {} endpoints of the endpoint with world rank {}, number {}",
                     g->members.size(), g->owner >> 32,
                     static_cast<std::int32_t>(g->owner & 0xffffffff));
}

// A group belongs to no communicator: its errors go through the handler of
// MPI_COMM_WORLD, as MPI's group functions' do.
int group_error(int error_class, const char* function, const GroupImpl* g,
                const std::string& reason) {
  MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
  bool returns = false;
  if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler) == MPI_SUCCESS) {
    returns = handler == MPI_ERRORS_RETURN;
    // Releases the reference MPI_Comm_get_errhandler made (error.cpp does
    // the same); this path is already reporting an error.
    static_cast<void>(MPI_Errhandler_free(&handler));
  }
  return detail::raise_with(returns ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL, error_class,
                            function, describe_group(g), reason);
}

int bad_group(const char* function, const char* which) {
  return group_error(MPI_ERR_GROUP, function, nullptr,
                     fmt::format("{} is not a valid group (GROUP_NULL or freed)", which));
}

// A new group of `owner` holding `members`; GROUP_EMPTY when there are none,
// as both MPIs return MPI_GROUP_EMPTY for an empty result.
Group make_group(std::int64_t owner, Members members) {
  if (members.empty()) return GROUP_EMPTY;
  auto* g = new GroupImpl;
  g->owner = owner;
  g->members = std::move(members);
  return g;
}

// The endpoint a group made from two belongs to: the first one's, unless
// that is GROUP_EMPTY (nobody's).
std::int64_t owner_of(const GroupImpl* a, const GroupImpl* b) {
  return a->owner >= 0 ? a->owner : b->owner;
}

int ranks_error(RanksError error, const char* function, const GroupImpl* g,
                const std::string& why) {
  return group_error(error == RanksError::rank ? MPI_ERR_RANK : MPI_ERR_ARG, function, g, why);
}

// The checks every function that takes a count and an array shares.
int check_array(const char* function, const GroupImpl* g, int n, const void* array,
                const char* name) {
  if (n < 0) return group_error(MPI_ERR_ARG, function, g, fmt::format("n = {} is negative", n));
  if (n > 0 && !array) {
    return group_error(MPI_ERR_ARG, function, g, fmt::format("{} is a null pointer", name));
  }
  return MPI_SUCCESS;
}

template <class Operation>
int combine(Group group1, Group group2, Group* newgroup, const char* function,
            Operation&& operation) {
  GroupImpl* a = valid_group(group1);
  GroupImpl* b = valid_group(group2);
  if (!a) return bad_group(function, "group1");
  if (!b) return bad_group(function, "group2");
  if (!newgroup) return group_error(MPI_ERR_ARG, function, a, "newgroup is a null pointer");
  *newgroup = make_group(owner_of(a, b), operation(a->members, b->members));
  return MPI_SUCCESS;
}

int from_ranks(Group group, int n, const int ranks[], Group* newgroup, const char* function,
               bool include) {
  GroupImpl* g = valid_group(group);
  if (!g) return bad_group(function, "group");
  if (const int rc = check_array(function, g, n, ranks, "ranks"); rc != MPI_SUCCESS) return rc;
  if (!newgroup) return group_error(MPI_ERR_ARG, function, g, "newgroup is a null pointer");
  const std::span<const int> chosen(ranks, static_cast<std::size_t>(n));
  std::string why;
  const RanksError error = detail::check_ranks(static_cast<int>(g->members.size()), chosen, &why);
  if (error != RanksError::none) return ranks_error(error, function, g, why);
  *newgroup = make_group(g->owner, include ? detail::group_incl(g->members, chosen)
                                           : detail::group_excl(g->members, chosen));
  return MPI_SUCCESS;
}

int from_ranges(Group group, int n, int ranges[][3], Group* newgroup, const char* function,
                bool include) {
  GroupImpl* g = valid_group(group);
  if (!g) return bad_group(function, "group");
  if (const int rc = check_array(function, g, n, ranges, "ranges"); rc != MPI_SUCCESS) return rc;
  if (!newgroup) return group_error(MPI_ERR_ARG, function, g, "newgroup is a null pointer");
  std::vector<std::array<int, 3>> triplets(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < triplets.size(); ++i)
    triplets[i] = {ranges[i][0], ranges[i][1], ranges[i][2]};
  std::vector<int> chosen;
  std::string why;
  const RanksError error =
      detail::expand_ranges(static_cast<int>(g->members.size()), triplets, &chosen, &why);
  if (error != RanksError::none) return ranks_error(error, function, g, why);
  *newgroup = make_group(g->owner, include ? detail::group_incl(g->members, chosen)
                                           : detail::group_excl(g->members, chosen));
  return MPI_SUCCESS;
}

}  // namespace

int Comm_group(Comm comm, Group* group) {
  constexpr const char* fn = "Comm_group";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!group) return detail::raise(e, MPI_ERR_ARG, fn, "group is a null pointer");
  const detail::CommShared& shared = *e->shared;
  Members members;
  if (shared.inter) {
    for (int u : shared.members(e->group))
      members.push_back(shared.identities[static_cast<std::size_t>(u)]);
  } else {
    members = shared.identities;
  }
  *group = make_group(e->identity, std::move(members));
  return MPI_SUCCESS;
}

int Comm_remote_group(Comm comm, Group* group) {
  constexpr const char* fn = "Comm_remote_group";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  const detail::CommShared& shared = *e->shared;
  if (!shared.inter) return detail::raise(e, MPI_ERR_COMM, fn, "not an inter-communicator");
  if (!group) return detail::raise(e, MPI_ERR_ARG, fn, "group is a null pointer");
  Members members;
  for (int u : shared.members(1 - e->group))
    members.push_back(shared.identities[static_cast<std::size_t>(u)]);
  *group = make_group(e->identity, std::move(members));
  return MPI_SUCCESS;
}

int Group_size(Group group, int* size) {
  constexpr const char* fn = "Group_size";
  GroupImpl* g = valid_group(group);
  if (!g) return bad_group(fn, "group");
  if (!size) return group_error(MPI_ERR_ARG, fn, g, "size is a null pointer");
  *size = static_cast<int>(g->members.size());
  return MPI_SUCCESS;
}

int Group_rank(Group group, int* rank) {
  constexpr const char* fn = "Group_rank";
  GroupImpl* g = valid_group(group);
  if (!g) return bad_group(fn, "group");
  if (!rank) return group_error(MPI_ERR_ARG, fn, g, "rank is a null pointer");
  const int r = g->owner < 0 ? -1 : detail::rank_in(g->members, g->owner);
  *rank = r < 0 ? MPI_UNDEFINED : r;
  return MPI_SUCCESS;
}

int Group_translate_ranks(Group group1, int n, const int ranks1[], Group group2, int ranks2[]) {
  constexpr const char* fn = "Group_translate_ranks";
  GroupImpl* a = valid_group(group1);
  GroupImpl* b = valid_group(group2);
  if (!a) return bad_group(fn, "group1");
  if (!b) return bad_group(fn, "group2");
  if (const int rc = check_array(fn, a, n, ranks1, "ranks1"); rc != MPI_SUCCESS) return rc;
  if (const int rc = check_array(fn, a, n, ranks2, "ranks2"); rc != MPI_SUCCESS) return rc;
  std::vector<int> out;
  std::string why;
  const RanksError error =
      detail::translate_ranks(a->members, std::span<const int>(ranks1, static_cast<std::size_t>(n)),
                              b->members, MPI_UNDEFINED, MPI_PROC_NULL, &out, &why);
  if (error != RanksError::none) return ranks_error(error, fn, a, why);
  for (std::size_t i = 0; i < out.size(); ++i) ranks2[i] = out[i];
  return MPI_SUCCESS;
}

int Group_compare(Group group1, Group group2, int* result) {
  constexpr const char* fn = "Group_compare";
  GroupImpl* a = valid_group(group1);
  GroupImpl* b = valid_group(group2);
  if (!a) return bad_group(fn, "group1");
  if (!b) return bad_group(fn, "group2");
  if (!result) return group_error(MPI_ERR_ARG, fn, a, "result is a null pointer");
  switch (detail::compare_groups(a->members, b->members)) {
    case detail::GroupRelation::ident:
      *result = MPI_IDENT;
      break;
    case detail::GroupRelation::similar:
      *result = MPI_SIMILAR;
      break;
    case detail::GroupRelation::unequal:
      *result = MPI_UNEQUAL;
      break;
  }
  return MPI_SUCCESS;
}

int Group_union(Group group1, Group group2, Group* newgroup) {
  return combine(group1, group2, newgroup, "Group_union", detail::group_union);
}

int Group_intersection(Group group1, Group group2, Group* newgroup) {
  return combine(group1, group2, newgroup, "Group_intersection", detail::group_intersection);
}

int Group_difference(Group group1, Group group2, Group* newgroup) {
  return combine(group1, group2, newgroup, "Group_difference", detail::group_difference);
}

int Group_incl(Group group, int n, const int ranks[], Group* newgroup) {
  return from_ranks(group, n, ranks, newgroup, "Group_incl", true);
}

int Group_excl(Group group, int n, const int ranks[], Group* newgroup) {
  return from_ranks(group, n, ranks, newgroup, "Group_excl", false);
}

int Group_range_incl(Group group, int n, int ranges[][3], Group* newgroup) {
  return from_ranges(group, n, ranges, newgroup, "Group_range_incl", true);
}

int Group_range_excl(Group group, int n, int ranges[][3], Group* newgroup) {
  return from_ranges(group, n, ranges, newgroup, "Group_range_excl", false);
}

int Group_free(Group* group) {
  constexpr const char* fn = "Group_free";
  if (!group) return group_error(MPI_ERR_ARG, fn, nullptr, "group is a null pointer");
  GroupImpl* g = valid_group(*group);
  if (!g) return bad_group(fn, "*group");
  if (!g->predefined) {
    g->magic = 0;  // until the memory is reused, a stale copy of the handle is refused
    delete g;
  }
  *group = GROUP_NULL;
  return MPI_SUCCESS;
}

}  // namespace ep
