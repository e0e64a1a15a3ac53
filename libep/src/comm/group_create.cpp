// Comm_create and Comm_create_group: communicators from groups.
//
// Comm_create is collective over the old communicator, so it is a split
// (comm/split.hpp): each endpoint's color names its group (the old rank of
// the group's rank 0, distinct for disjoint groups) and its key is its rank
// in the group. Comm_create_group is collective over the group only: the
// group's endpoints of a process meet in a process-wide registry, since the
// process's other endpoints are not in the call, and the last to arrive
// makes the MPI communicator over the group's processes alone, with
// MPI_Comm_create_group over MPI_COMM_WORLD, as Intercomm_create makes its
// carrier (make_channels in build.cpp says why always on one parent).
#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm/build.hpp"
#include "comm/split.hpp"
#include "comm/turn.hpp"
#include "ep/group.hpp"
#include "object/endpoint.hpp"
#include "object/error.hpp"
#include "object/group.hpp"
#include "ranks/group_set.hpp"
#include "ranks/split_map.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::GroupImpl;
using detail::Members;

namespace {

GroupImpl* valid_group(Group group) { return group && group->is_valid() ? group : nullptr; }

// The rank in `shared` of each member of `members`; on a member that is not
// an endpoint of the communicator, the reason, and false.
bool ranks_in_comm(const CommShared& shared, const Members& members, std::vector<int>* ranks,
                   std::string* why) {
  std::unordered_map<std::int64_t, int> rank_of;
  for (std::size_t r = 0; r < shared.identities.size(); ++r)
    rank_of.emplace(shared.identities[r], static_cast<int>(r));
  ranks->clear();
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto it = rank_of.find(members[i]);
    if (it == rank_of.end()) {
      *why = fmt::format("rank {} of the group is not an endpoint of the communicator", i);
      return false;
    }
    ranks->push_back(it->second);
  }
  return true;
}

// Comm_create_group's meeting of one process's members of one creation.
struct Pending {
  const CommShared* comm = nullptr;
  Members members;
  int tag = 0;
  int expected = 0;  // the group's endpoints on this process
  int arrived = 0;
  int taken = 0;
  bool done = false;
  int rc = MPI_SUCCESS;
  std::string why;
  CommShared* made = nullptr;
};
std::mutex registry_mutex;
std::condition_variable registry_changed;
// Few creations are under way at once: a list, searched in order.
std::list<Pending> registry;

// MPI_Comm_create_group needs a tag that concurrent creations sharing
// processes do not share: the members and the user tag make one, folded
// into the 15 bits every MPI allows. (Two creations at once over shared
// processes whose tags collide would mismatch; the chance is 2^-15 a pair.)
int creation_tag(const Members& members, int tag) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (std::int64_t m : members) mix(static_cast<std::uint64_t>(m));
  mix(static_cast<std::uint64_t>(tag));
  return static_cast<int>(h & 0x7fff);
}

// Makes the communicator of `group` (one split group: its processes and
// map) over the processes that host it, and nothing on the others.
int make_over_processes(const CommShared& shared, const detail::SplitGroup& group,
                        const Members& identities, int tag, CommShared** made, std::string* why) {
  std::vector<int> worlds;
  for (int p : group.processes) worlds.push_back(shared.world_ranks[static_cast<std::size_t>(p)]);
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Group members = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rc == MPI_SUCCESS)
    rc = MPI_Group_incl(world, static_cast<int>(worlds.size()), worlds.data(), &members);
  MPI_Comm mpi = MPI_COMM_NULL;
  const int mpi_tag = creation_tag(identities, tag);
  const detail::CreationTurn turn;  // for the communicator and its channels (comm/turn.hpp)
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(MPI_COMM_WORLD, members, mpi_tag, &mpi);
  if (rc != MPI_SUCCESS) {
    *why = "MPI_Comm_create_group over the group's processes failed";
  } else {
    rc = detail::build_comm(mpi, {MPI_COMM_WORLD, members, mpi_tag}, group.map, identities, made,
                            why);
  }
  for (MPI_Group* g : {&members, &world}) {
    if (*g == MPI_GROUP_NULL) continue;
    const int free_rc = MPI_Group_free(g);
    if (rc == MPI_SUCCESS && free_rc != MPI_SUCCESS) {
      rc = free_rc;
      *why = "MPI_Group_free failed";
    }
  }
  return rc;
}

// The meeting: the last of this process's members to arrive makes the
// communicator, the others wait for it; every member then takes its
// endpoint. Returns the communicator, or null and the error in rc and why.
CommShared* obtain(const CommShared& shared, const detail::SplitGroup& group,
                   const Members& identities, int tag, int* rc, std::string* why) {
  const auto here =
      static_cast<int>(std::count_if(group.members.begin(), group.members.end(), [&](int old) {
        return shared.map.at(old).mpi_rank == shared.mpi_rank;
      }));
  std::unique_lock lock(registry_mutex);
  // The first entry of this creation that still waits for members: a member
  // that took its endpoint from the last one may already be in the next.
  auto it = std::find_if(registry.begin(), registry.end(), [&](const Pending& p) {
    return p.comm == &shared && p.tag == tag && p.arrived < p.expected && p.members == identities;
  });
  if (it == registry.end()) {
    it = registry.emplace(registry.end());
    it->comm = &shared;
    it->members = identities;
    it->tag = tag;
    it->expected = here;
  }
  Pending& pending = *it;
  if (++pending.arrived == pending.expected) {
    lock.unlock();
    CommShared* made = nullptr;
    std::string failure;
    const int made_rc = make_over_processes(shared, group, identities, tag, &made, &failure);
    lock.lock();
    pending.rc = made_rc;
    pending.why = std::move(failure);
    pending.made = made;
    pending.done = true;
    registry_changed.notify_all();
  } else {
    registry_changed.wait(lock, [&] { return pending.done; });
  }
  *rc = pending.rc;
  *why = pending.why;
  CommShared* made = pending.made;
  if (++pending.taken == pending.expected) registry.erase(it);
  return made;
}

}  // namespace

int Comm_create(Comm comm, Group group, Comm* newcomm) {
  constexpr const char* fn = "Comm_create";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  const CommShared& shared = *e->shared;
  // A bad group is this endpoint's own error, but the others are already on
  // their way into the split: take part with MPI_UNDEFINED, then report it.
  const GroupImpl* g = valid_group(group);
  std::string problem = g ? "" : "group is not a valid group (GROUP_NULL or freed)";
  int color = MPI_UNDEFINED;
  int key = 0;
  std::vector<int> ranks;
  if (g && ranks_in_comm(shared, g->members, &ranks, &problem)) {
    // On an inter-communicator each group names a part of itself, and the
    // parts make one inter-communicator (MPI 4.0 7.4.2): the split of the
    // inter-communicator by one color, which gives COMM_NULL everywhere
    // when either part is empty.
    if (shared.inter) {
      const auto& local = shared.members(e->group);
      for (std::size_t i = 0; i < ranks.size() && problem.empty(); ++i) {
        if (std::find(local.begin(), local.end(), ranks[i]) == local.end()) {
          problem = fmt::format(
              "rank {} of the group is not in this endpoint's group of the "
              "inter-communicator",
              i);
        }
      }
    }
    const int mine = detail::rank_in(g->members, e->identity);
    if (problem.empty() && mine >= 0) {
      color = shared.inter ? 0 : ranks.front();
      key = mine;
    }
  }
  const int rc = detail::split(e, color, key, newcomm, fn);
  if (rc != MPI_SUCCESS || problem.empty()) return rc;
  return detail::raise(e, MPI_ERR_GROUP, fn, problem);
}

int Comm_create_group(Comm comm, Group group, int tag, Comm* newcomm) {
  constexpr const char* fn = "Comm_create_group";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  const CommShared& shared = *e->shared;
  if (shared.inter) {
    return detail::raise(e, MPI_ERR_COMM, fn,
                         "Comm_create_group needs an intra-communicator (MPI-3.1 6.4.2)");
  }
  if (!newcomm) return detail::raise(e, MPI_ERR_ARG, fn, "newcomm is a null pointer");
  *newcomm = COMM_NULL;
  const GroupImpl* g = valid_group(group);
  if (!g) return detail::raise(e, MPI_ERR_GROUP, fn, "group is not a valid group");
  if (tag < 0 || tag > shared.user_tag_ub) {
    return detail::raise(e, MPI_ERR_TAG, fn, "tag {} is not in 0 to MPI_TAG_UB ({})", tag,
                         shared.user_tag_ub);
  }
  std::vector<int> ranks;
  std::string why;
  if (!ranks_in_comm(shared, g->members, &ranks, &why))
    return detail::raise(e, MPI_ERR_GROUP, fn, why);
  const int mine = detail::rank_in(g->members, e->identity);
  if (mine < 0) return MPI_SUCCESS;  // not a member: a local call (MPI-3.1 6.4.2)
  // The new communicator's layout is that of a split in which the members
  // have one color and their group ranks as keys.
  std::vector<detail::SplitArgs> args(shared.identities.size(), {MPI_UNDEFINED, 0});
  for (std::size_t i = 0; i < ranks.size(); ++i)
    args[static_cast<std::size_t>(ranks[i])] = {0, static_cast<int>(i)};
  const std::vector<detail::SplitGroup> groups =
      detail::split_groups(shared.map, args, MPI_UNDEFINED);
  int rc = MPI_SUCCESS;
  CommShared* made = obtain(shared, groups.front(), g->members, tag, &rc, &why);
  if (rc != MPI_SUCCESS) return detail::raise(e, detail::error_class_of(rc), fn, why);
  Endpoint* mine_endpoint =
      made->endpoints[static_cast<std::size_t>(groups.front().map.at(mine).local_rank)].get();
  mine_endpoint->errhandler = e->errhandler;  // MPI: a new communicator inherits it
  *newcomm = detail::handle_of(mine_endpoint);
  return MPI_SUCCESS;
}

}  // namespace ep
