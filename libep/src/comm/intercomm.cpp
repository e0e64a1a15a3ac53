// Inter-communicators: Intercomm_create, Intercomm_merge and the queries.
//
// Intercomm_create runs in four steps (inter_map.hpp has the rank layout):
//  1. each group describes itself: the leaders of its processes gather, over
//     the group's MPI communicator, which world rank hosts each rank and
//     each endpoint's identity;
//  2. the two group leaders swap descriptions over the peer communicator,
//     with libep's own messages on the user's tag (p2p/internal.hpp);
//  3. each group's processes receive the remote description (MPI_Bcast from
//     the process of the group leader);
//  4. the processes hosting either group make the carrier with
//     MPI_Comm_create_group over MPI_COMM_WORLD and build the communicator.
// A process may host endpoints of both groups: its two teams then meet in a
// process-wide registry so that only one of them makes the carrier (an MPI
// process must take part once), and both pick their endpoints from it.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/backoff.hpp"
#include "coll/mpi_step.hpp"
#include "comm/build.hpp"
#include "comm/turn.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"
#include "p2p/internal.hpp"
#include "team/meet.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::LocalTeam;

namespace {

// A group as the other side needs to know it: by rank, the world rank of the
// hosting process and the endpoint's identity.
// With them, each of its processes' world rank and pool offer
// (comm/build.hpp), so that all processes of both groups can agree on a
// pooled set for the carrier without another exchange.
struct GroupInfo {
  int rc = MPI_SUCCESS;  // nonzero: the group failed before it could describe itself
  std::vector<std::int64_t> hosts;
  std::vector<std::int64_t> identities;
  std::vector<std::int64_t> processes;  // world ranks, in the group's MPI order
  std::vector<std::int64_t> offers;     // one PoolOffer per process, in that order

  std::vector<std::int64_t> flatten() const {
    std::vector<std::int64_t> flat{rc, static_cast<std::int64_t>(hosts.size()),
                                   static_cast<std::int64_t>(processes.size())};
    flat.insert(flat.end(), hosts.begin(), hosts.end());
    flat.insert(flat.end(), identities.begin(), identities.end());
    flat.insert(flat.end(), processes.begin(), processes.end());
    flat.insert(flat.end(), offers.begin(), offers.end());
    return flat;
  }
  static GroupInfo unflatten(const std::vector<std::int64_t>& flat) {
    GroupInfo g;
    g.rc = static_cast<int>(flat[0]);
    const auto n = static_cast<std::ptrdiff_t>(flat[1]);
    const auto p = static_cast<std::ptrdiff_t>(flat[2]);
    const auto o = static_cast<std::ptrdiff_t>(std::tuple_size_v<detail::PoolOffer>);
    if (static_cast<std::ptrdiff_t>(flat.size()) < 3 + 2 * n + p + p * o) {
      g.rc = MPI_ERR_COUNT;
      return g;
    }
    auto at = flat.begin() + 3;
    g.hosts.assign(at, at + n);
    g.identities.assign(at + n, at + 2 * n);
    g.processes.assign(at + 2 * n, at + 2 * n + p);
    g.offers.assign(at + 2 * n + p, at + 2 * n + p + p * o);
    return g;
  }
};

// Step 1, run by the leader of each process of the group: the group's
// processes by MPI_COMM_WORLD rank (build.cpp found them when the
// communicator was made), its endpoints' identities, and what each process
// offers of its pool (gathered over the group, completed with back-off).
int describe_group(const CommShared& shared, const detail::PoolOffer& offer, GroupInfo* info) {
  info->hosts.clear();
  for (int r = 0; r < shared.map.size(); ++r) {
    const auto process = static_cast<std::size_t>(shared.map.at(r).mpi_rank);
    info->hosts.push_back(shared.world_ranks[process]);
  }
  info->identities = shared.identities;
  info->processes.assign(shared.world_ranks.begin(), shared.world_ranks.end());
  info->offers.assign(offer.size() * static_cast<std::size_t>(shared.mpi_size), -1);
  MPI_Request request = MPI_REQUEST_NULL;
  return detail::complete(
      MPI_Iallgather(offer.data(), static_cast<int>(offer.size()), MPI_INT64_T, info->offers.data(),
                     static_cast<int>(offer.size()), MPI_INT64_T, shared.mpi_comm, &request),
      &request);
}

// Step 2, run by the local leader endpoint on its endpoint of peer_comm.
// libep's own messages, not the user's: they go through the engine without
// the public checks and error handler (p2p/internal.hpp), and a failure
// comes back as a code for Intercomm_create to report.
int swap_with_remote_leader(const GroupInfo& mine, Endpoint* peer, int remote_leader, int tag,
                            GroupInfo* theirs) {
  const std::vector<std::int64_t> out = mine.flatten();
  detail::RequestImpl sent;
  int rc = detail::internal_isend(peer, out.data(), static_cast<int>(out.size()), MPI_INT64_T,
                                  remote_leader, tag, &sent);
  if (rc != MPI_SUCCESS) return rc;
  Status status;
  rc = detail::internal_probe(peer, remote_leader, tag, &status);
  constexpr auto kWord = static_cast<std::int64_t>(sizeof(std::int64_t));
  // A description holds at least its error code and its size.
  if (rc == MPI_SUCCESS && (status.count_bytes % kWord != 0 || status.count_bytes < 2 * kWord)) {
    rc = MPI_ERR_COUNT;
  }
  std::vector<std::int64_t> in;
  if (rc == MPI_SUCCESS) {
    in.resize(static_cast<std::size_t>(status.count_bytes / kWord));
    rc = detail::internal_recv(peer, in.data(), static_cast<int>(in.size()), MPI_INT64_T,
                               remote_leader, tag);
  }
  const int wait_rc = detail::internal_wait(&sent);
  if (rc == MPI_SUCCESS) rc = wait_rc;
  if (rc == MPI_SUCCESS) *theirs = GroupInfo::unflatten(in);
  return rc;
}

// Why step 2 failed, as every process of the group reports it.
std::string exchange_failure(int rc) {
  switch (rc) {
    case MPI_ERR_RANK:
      return "the remote_leader is not a valid rank of peer_comm other than the local leader";
    case MPI_ERR_TAG:
      return "the tag is not a valid tag of peer_comm (0 to its MPI_TAG_UB)";
    default:
      return fmt::format("the group leaders could not exchange their groups over peer_comm: {}",
                         detail::mpi_error_string(rc));
  }
}

// Step 3: the remote description reaches every process of the group.
int broadcast_group(const CommShared& shared, int root_process, GroupInfo* info) {
  std::vector<std::int64_t> flat = info->flatten();
  std::int64_t length = static_cast<std::int64_t>(flat.size());
  // Completed with back-off (coll/mpi_step.hpp): a blocking MPI_Bcast spins
  // inside MPI and keeps the core from the process's other endpoints.
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = detail::complete(
      MPI_Ibcast(&length, 1, MPI_INT64_T, root_process, shared.mpi_comm, &request), &request);
  flat.resize(static_cast<std::size_t>(length));
  if (rc == MPI_SUCCESS) {
    rc = detail::complete(MPI_Ibcast(flat.data(), static_cast<int>(length), MPI_INT64_T,
                                     root_process, shared.mpi_comm, &request),
                          &request);
  }
  if (rc == MPI_SUCCESS) *info = GroupInfo::unflatten(flat);
  return rc;
}

// Step 4's meeting point for the teams of one process.
struct Pending {
  int rc = MPI_SUCCESS;
  std::string why;
  CommShared* shared = nullptr;
  bool done = false;
  int teams_expected = 0;
  int teams_taken = 0;
};
// (first leader, second leader, tag, occurrence): the same two groups may be
// joined again with the same tag, and one team of a process may start the
// next creation before the other team has picked up the last one.
using PendingKey = std::tuple<std::int64_t, std::int64_t, int, int>;
std::mutex registry_mutex;
std::condition_variable registry_changed;
std::map<PendingKey, Pending> registry;

// MPI_Comm_create_group needs a tag that concurrent creations sharing
// processes do not share; the leaders' identities and the user tag make
// one, folded into the 15 bits every MPI allows. (Not the occurrence: the
// two groups' processes count it on different communicators.)
int carrier_tag(const PendingKey& key) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(std::get<0>(key)), static_cast<std::uint64_t>(std::get<1>(key)),
        static_cast<std::uint64_t>(std::get<2>(key))}) {
    h = (h ^ v) * 1099511628211ull;
  }
  return static_cast<int>(h & 0x7fff);
}

// The processes of both groups as a group of MPI_COMM_WORLD, in the
// carrier's order.
int carrier_group(const detail::InterLayout& layout, MPI_Group* members) {
  MPI_Group world = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Group_incl(world, static_cast<int>(layout.processes.size()), layout.processes.data(),
                        members);
  }
  if (world != MPI_GROUP_NULL) detail::keep_first_error(&rc, MPI_Group_free(&world));
  return rc;
}

// The carrier and its channels, all made by MPI_Comm_create_group over
// MPI_COMM_WORLD with one tag (make_channels in build.cpp says why).
// Or takes over the pooled set `agreed` holds.
int make_intercomm(const detail::InterLayout& layout, int tag,
                   const std::vector<std::int64_t>& identities, detail::Agreed& agreed,
                   CommShared** made, std::string* why) {
  MPI_Group members = MPI_GROUP_NULL;
  MPI_Comm carrier = MPI_COMM_NULL;
  int rc = carrier_group(layout, &members);
  // For the carrier and its channels (comm/turn.hpp); a pooled set makes
  // nothing.
  std::optional<detail::CreationTurn> turn;
  if (!agreed.pooled) turn.emplace();
  if (rc == MPI_SUCCESS && !agreed.pooled) {
    rc = MPI_Comm_create_group(MPI_COMM_WORLD, members, tag, &carrier);
  }
  if (rc != MPI_SUCCESS) {
    *why = "MPI_Comm_create_group failed";
  } else {
    rc = detail::build_inter(carrier, {MPI_COMM_WORLD, members, tag}, layout, identities, made, why,
                             &agreed);
  }
  if (members != MPI_GROUP_NULL) {
    const int free_rc = MPI_Group_free(&members);
    if (rc == MPI_SUCCESS) {
      rc = free_rc;
      if (rc != MPI_SUCCESS) *why = "MPI_Group_free failed";
    }
  }
  return rc;
}

// Step 4: the first team of this process to get here makes the carrier and
// the communicator; a second team (the process hosts both groups) waits for
// it. Returns the communicator or the error.
CommShared* obtain_intercomm(const PendingKey& key, const detail::InterLayout& layout,
                             const std::vector<std::int64_t>& identities, std::int64_t pooled,
                             int my_world_rank, detail::Outcome& outcome) {
  std::unique_lock lock(registry_mutex);
  auto [it, first] = registry.try_emplace(key);
  Pending& pending = it->second;
  if (first) {
    // How many teams of this process will come: one per group it hosts.
    for (int g = 0; g < 2; ++g) {
      for (int u : layout.members[g]) {
        const int host = layout.processes[static_cast<std::size_t>(layout.map.at(u).mpi_rank)];
        if (host == my_world_rank) {
          ++pending.teams_expected;
          break;
        }
      }
    }
    lock.unlock();
    CommShared* made = nullptr;
    std::string why;
    // The carrier's name is agreed on over it (no process-wide id exchanged).
    detail::Agreed agreed{detail::draw_comm_ids(), -1, std::nullopt, {}};
    int rc = MPI_SUCCESS;
    if (pooled >= 0) {
      std::vector<int> worlds(layout.processes.begin(), layout.processes.end());
      agreed.pooled = detail::take_pooled(pooled, worlds, layout.map.max_per_process());
      if (!agreed.pooled) {
        rc = MPI_ERR_INTERN;
        why = "the pooled MPI communicators the processes agreed on are not there";
      }
    }
    if (rc == MPI_SUCCESS) {
      rc = make_intercomm(layout, carrier_tag(key), identities, agreed, &made, &why);
    }
    lock.lock();
    pending.rc = rc;
    pending.why = why;
    pending.shared = made;
    pending.done = true;
    registry_changed.notify_all();
  } else {
    registry_changed.wait(lock, [&] { return pending.done; });
  }
  outcome.rc = pending.rc;
  outcome.why = pending.why;
  CommShared* shared = pending.shared;
  if (++pending.teams_taken == pending.teams_expected) registry.erase(it);
  return shared;
}

// The pooled set every process of both groups offered for the carrier, or
// -1. A process that hosts both groups offered twice, once per team, each
// from its own reservation: either will do, since both teams wait in
// obtain_intercomm until the team that makes the carrier has taken the set,
// and only then return their reservations. Every process computes the same.
std::int64_t choose_carrier_set(const GroupInfo& first, const GroupInfo& second,
                                const detail::InterLayout& layout) {
  constexpr std::size_t o = std::tuple_size_v<detail::PoolOffer>;
  std::map<std::int64_t, std::vector<std::int64_t>> by_world;  // (name, key) pairs
  for (const GroupInfo* g : {&first, &second}) {
    for (std::size_t p = 0; p < g->processes.size(); ++p) {
      auto& offer = by_world[g->processes[p]];
      offer.insert(offer.end(), g->offers.begin() + static_cast<std::ptrdiff_t>(p * o),
                   g->offers.begin() + static_cast<std::ptrdiff_t>((p + 1) * o));
    }
  }
  std::vector<const std::int64_t*> offers;
  std::vector<std::size_t> lengths;
  for (int w : layout.processes) {
    auto it = by_world.find(w);
    if (it == by_world.end()) return -1;
    offers.push_back(it->second.data());
    lengths.push_back(it->second.size() / 2);
  }
  const std::vector<int> worlds(layout.processes.begin(), layout.processes.end());
  return detail::choose_pooled(offers, lengths,
                               detail::pool_key(worlds, layout.map.max_per_process()), {});
}

struct CreateArrival {
  const GroupInfo* remote = nullptr;  // set by the local leader endpoint
};

}  // namespace

int Intercomm_create(Comm local_comm, int local_leader, Comm peer_comm, int remote_leader, int tag,
                     Comm* newintercomm) {
  constexpr const char* fn = "Intercomm_create";
  Endpoint* e = detail::valid_endpoint(local_comm);
  if (!e) return detail::invalid_comm(local_comm, fn);
  CommShared& shared = *e->shared;
  // Checks every endpoint of the group makes alike, so all fail together.
  if (shared.inter)
    return detail::raise(e, MPI_ERR_COMM, fn, "local_comm is an inter-communicator");
  if (!newintercomm) return detail::raise(e, MPI_ERR_ARG, fn, "newintercomm is a null pointer");
  if (local_leader < 0 || local_leader >= shared.map.size()) {
    return detail::raise(e, MPI_ERR_RANK, fn,
                         "invalid local_leader {}: local_comm has {} endpoints", local_leader,
                         shared.map.size());
  }
  LocalTeam& team = *shared.team;
  const bool leading = e->rank == local_leader;

  // Step 1.
  GroupInfo mine;
  detail::PoolOffer offer;
  detail::Posted posted{fn, nullptr};
  const std::string mismatch = detail::enter_constructor(team, e->local, posted);
  if (!mismatch.empty()) return detail::leave_mismatched(e, newintercomm, fn, mismatch);
  if (e->local == 0) {
    offer = detail::reserve_offer();
    mine.rc = describe_group(shared, offer, &mine);
    posted.result = &mine;
  }
  team.sync();
  const GroupInfo& described = detail::result_of<GroupInfo>(team);

  // Step 2, on the leader endpoint while the others wait in the team.
  GroupInfo remote;
  CreateArrival arrival;
  if (leading) {
    GroupInfo sent = described;
    Endpoint* peer = detail::valid_endpoint(peer_comm);
    if (!peer) {
      sent.rc = MPI_ERR_COMM;
    } else if (remote_leader < 0 || remote_leader >= peer->shared->peer_count(*peer) ||
               remote_leader == peer->rank) {
      sent.rc = MPI_ERR_RANK;
    } else if (tag < 0 || tag > peer->shared->user_tag_ub) {
      sent.rc = MPI_ERR_TAG;
    }
    if (sent.rc == MPI_SUCCESS) {
      const int rc = swap_with_remote_leader(sent, peer, remote_leader, tag, &remote);
      if (rc != MPI_SUCCESS) remote.rc = rc;
    } else {
      remote.rc = sent.rc;
    }
    arrival.remote = &remote;
  }
  team.sync();  // everyone has read `described`; leaders may reuse slots
  team.slot(e->local) = &arrival;
  team.sync();

  // Steps 3 and 4, by the leader of each process of the group.
  detail::Outcome outcome;
  if (e->local == 0) {
    outcome.by_local.assign(static_cast<std::size_t>(team.size()), nullptr);
    const detail::Location at = shared.map.at(local_leader);
    GroupInfo theirs;
    if (at.mpi_rank == shared.mpi_rank) theirs = *team.peer<CreateArrival>(at.local_rank).remote;
    outcome.rc = broadcast_group(shared, at.mpi_rank, &theirs);
    if (outcome.rc == MPI_SUCCESS) outcome.rc = theirs.rc;
    if (outcome.rc == MPI_SUCCESS) {
      std::set<std::int64_t> ours(described.identities.begin(), described.identities.end());
      for (std::int64_t id : theirs.identities) {
        if (ours.count(id)) {
          outcome.rc = MPI_ERR_COMM;
          outcome.why = "the local and remote groups overlap: an endpoint belongs to both";
        }
      }
    } else if (outcome.why.empty()) {
      outcome.why = exchange_failure(outcome.rc);
    }
    if (outcome.rc == MPI_SUCCESS) {
      // Both sides must agree which group is first: the one whose rank 0 has
      // the smaller identity (the groups are disjoint, so they differ).
      const bool ours_first = described.identities.front() < theirs.identities.front();
      const GroupInfo& first = ours_first ? described : theirs;
      const GroupInfo& second = ours_first ? theirs : described;
      std::vector<int> first_hosts(first.hosts.begin(), first.hosts.end());
      std::vector<int> second_hosts(second.hosts.begin(), second.hosts.end());
      const detail::InterLayout layout = detail::inter_layout(first_hosts, second_hosts);
      std::vector<std::int64_t> identities(first.identities);
      identities.insert(identities.end(), second.identities.begin(), second.identities.end());
      const int world_rank = shared.world_ranks[static_cast<std::size_t>(shared.mpi_rank)];
      const int occurrence =
          shared.intercomms_made[{first.identities.front(), second.identities.front(), tag}]++;
      const PendingKey key{first.identities.front(), second.identities.front(), tag, occurrence};
      CommShared* made = obtain_intercomm(
          key, layout, identities, choose_carrier_set(first, second, layout), world_rank, outcome);
      if (outcome.rc == MPI_SUCCESS) {
        const int my_group = ours_first ? 0 : 1;
        for (int l = 0; l < team.size(); ++l) {
          const int old_rank = shared.map.rank_of(shared.mpi_rank, l);
          const int u = layout.members[my_group][static_cast<std::size_t>(old_rank)];
          outcome.by_local[static_cast<std::size_t>(l)] =
              made->endpoints[static_cast<std::size_t>(layout.map.at(u).local_rank)].get();
        }
      }
    }
    detail::release_offer(offer);
    team.slot(0) = &outcome;
  }
  team.sync();
  const detail::Outcome& result = team.peer<detail::Outcome>(0);
  const int rc = result.rc;
  const std::string why = result.why;
  Endpoint* made =
      rc == MPI_SUCCESS ? result.by_local[static_cast<std::size_t>(e->local)] : nullptr;
  team.sync();
  if (made) made->errhandler = e->errhandler;
  *newintercomm = made ? detail::handle_of(made) : COMM_NULL;
  if (rc != MPI_SUCCESS) return detail::raise(e, detail::error_class_of(rc), fn, why);
  return MPI_SUCCESS;
}

int Intercomm_merge(Comm intercomm, int high, Comm* newintracomm) {
  constexpr const char* fn = "Intercomm_merge";
  Endpoint* e = detail::valid_endpoint(intercomm);
  if (!e) return detail::invalid_comm(intercomm, fn);
  if (!e->shared->inter) {
    return detail::raise(e, MPI_ERR_COMM, fn, "the communicator is not an inter-communicator");
  }
  if (!newintracomm) return detail::raise(e, MPI_ERR_ARG, fn, "newintracomm is a null pointer");
  struct Arrival {
    int group;
    int high;
  };
  const Arrival arrival{e->group, high ? 1 : 0};
  return detail::meet(e, arrival, newintracomm, fn, [&](detail::Outcome& outcome) {
    const CommShared& shared = *e->shared;
    const LocalTeam& team = *shared.team;
    // Each group's `high` (MPI: the same within a group), as far as this
    // process knows it; -1 where it hosts no endpoint of the group.
    int highs[2] = {-1, -1};
    for (int l = 0; l < team.size(); ++l) {
      const Arrival& a = detail::arrival_of<Arrival>(team, l);
      highs[a.group] = a.high;
    }
    // The merged communicator has the carrier's processes in its order (only
    // the ranks move): the exchange also agrees on a pooled set for it.
    std::vector<std::int64_t> all;
    detail::Agreed agreed;
    outcome.rc =
        detail::agree_over(shared.mpi_comm, shared.world_ranks, shared.map.max_per_process(),
                           {highs[0], highs[1]}, &all, &agreed);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Allgather of the groups' high flags failed";
      return;
    }
    for (std::size_t p = 0; p < all.size(); p += 2) {
      for (int g = 0; g < 2; ++g) {
        if (all[p + static_cast<std::size_t>(g)] >= 0)
          highs[g] = static_cast<int>(all[p + static_cast<std::size_t>(g)]);
      }
    }
    // Low group first; with equal flags MPI leaves the order to us: the
    // carrier's first group.
    const int low = highs[0] <= highs[1] ? 0 : 1;
    std::vector<int> new_rank_of;
    detail::RankMap map = detail::merge_map(shared.layout, low, &new_rank_of);
    std::vector<std::int64_t> identities(shared.identities.size());
    for (std::size_t u = 0; u < new_rank_of.size(); ++u) {
      identities[static_cast<std::size_t>(new_rank_of[u])] = shared.identities[u];
    }
    MPI_Comm mpi = MPI_COMM_NULL;
    if (!agreed.pooled) outcome.rc = detail::dup_polled(shared.mpi_comm, &mpi);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Comm_idup failed";
      return;
    }
    CommShared* made = nullptr;
    outcome.rc = detail::build_comm(mpi, {shared.mpi_comm}, map, std::move(identities), &made,
                                    &outcome.why, &agreed);
    if (outcome.rc != MPI_SUCCESS) return;
    for (int l = 0; l < team.size(); ++l) {
      const int u = shared.map.rank_of(shared.mpi_rank, l);
      const int n = new_rank_of[static_cast<std::size_t>(u)];
      outcome.by_local[static_cast<std::size_t>(l)] =
          made->endpoints[static_cast<std::size_t>(made->map.at(n).local_rank)].get();
    }
  });
}

int Comm_test_inter(Comm comm, int* flag) {
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, "Comm_test_inter");
  if (!flag) return detail::raise(e, MPI_ERR_ARG, "Comm_test_inter", "flag is a null pointer");
  *flag = e->shared->inter ? 1 : 0;
  return MPI_SUCCESS;
}

int Comm_remote_size(Comm comm, int* size) {
  constexpr const char* fn = "Comm_remote_size";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  if (!e->shared->inter) {
    return detail::raise(e, MPI_ERR_COMM, fn, "the communicator is not an inter-communicator");
  }
  if (!size) return detail::raise(e, MPI_ERR_ARG, fn, "size is a null pointer");
  *size = e->shared->group_size(1 - e->group);
  return MPI_SUCCESS;
}

}  // namespace ep
