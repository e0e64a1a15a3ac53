// Comm_dup and Comm_split, also of an inter-communicator (Comm_split_type,
// which ends in a split: comm/split_type.cpp).
//
// Both run the same way: the endpoints of a process meet in their
// LocalTeam, the leader (local endpoint 0) does the MPI work for the whole
// process and builds the new communicators, and every endpoint picks up its
// own handle. MPI constructors on different processes match because every
// leader makes the same calls in the same order.
#include "comm/split.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "coll/mpi_step.hpp"
#include "comm/attributes.hpp"
#include "comm/build.hpp"
#include "comm/turn.hpp"
#include "ep/comm.hpp"
#include "object/error.hpp"
#include "ranks/inter_map.hpp"
#include "ranks/split_map.hpp"
#include "team/meet.hpp"

namespace ep {

using detail::CommShared;
using detail::Endpoint;
using detail::LocalTeam;

using detail::meet;
using detail::Outcome;

namespace {

struct SplitArrival {
  detail::SplitArgs args;
};

// What each process tells the others: the first of the ids it drew for the
// communicators it may build (one per local endpoint at most), its pool
// offer (comm/build.hpp), the lowest-keyed other split it has under way
// (comm/turn.hpp: key and number), then each of its endpoints' (color,
// key).
constexpr std::size_t kOffer = 1;
constexpr std::size_t kMark = kOffer + std::tuple_size_v<detail::PoolOffer>;
constexpr std::size_t kHeader = kMark + 2;

struct Gathered {
  std::vector<detail::SplitArgs> by_rank;   // indexed by old rank
  std::vector<int> first_id;                // by process
  std::vector<const std::int64_t*> offers;  // by process, into `flat`
  std::vector<detail::IntentMark> marks;    // by process
  std::vector<std::int64_t> flat;
};

int gather_split_args(const CommShared& shared, const std::vector<detail::SplitArgs>& local,
                      const detail::PoolOffer& offer, const detail::IntentMark& mark, int first_id,
                      Gathered* out) {
  const detail::RankMap& map = shared.map;
  std::vector<int> counts(static_cast<std::size_t>(shared.mpi_size));
  std::vector<int> displs(counts.size());
  int total = 0;
  for (int p = 0; p < shared.mpi_size; ++p) {
    counts[static_cast<std::size_t>(p)] = static_cast<int>(kHeader) + 2 * map.count_on(p);
    displs[static_cast<std::size_t>(p)] = total;
    total += counts[static_cast<std::size_t>(p)];
  }
  std::vector<std::int64_t> mine{first_id};
  mine.insert(mine.end(), offer.begin(), offer.end());
  mine.push_back(mark.key);
  mine.push_back(mark.number);
  for (const detail::SplitArgs& a : local) {
    mine.push_back(a.color);
    mine.push_back(a.key);
  }
  out->flat.assign(static_cast<std::size_t>(total), 0);
  // Completed with back-off (coll/mpi_step.hpp): a blocking collective spins
  // inside MPI and keeps the core from the process's other endpoints.
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = detail::complete(
      MPI_Iallgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, out->flat.data(),
                      counts.data(), displs.data(), MPI_INT64_T, shared.mpi_comm, &request),
      &request);
  if (rc != MPI_SUCCESS) return rc;
  out->by_rank.assign(static_cast<std::size_t>(map.size()), {});
  for (int p = 0; p < shared.mpi_size; ++p) {
    const auto at = static_cast<std::size_t>(displs[static_cast<std::size_t>(p)]);
    out->first_id.push_back(static_cast<int>(out->flat[at]));
    out->offers.push_back(out->flat.data() + at + kOffer);
    out->marks.push_back({out->flat[at + kMark], out->flat[at + kMark + 1]});
    const auto ranks = map.ranks_on(p);
    for (std::size_t l = 0; l < ranks.size(); ++l) {
      (*out).by_rank[static_cast<std::size_t>(ranks[l])] = {
          static_cast<int>(out->flat[at + kHeader + 2 * l]),
          static_cast<int>(out->flat[at + kHeader + 2 * l + 1])};
    }
  }
  return MPI_SUCCESS;
}

// For every group of the split, in ascending color order, what its
// processes agree on without a further exchange: the name and ids of its
// communicator and the pooled set it takes, if all of them offered one.
// Every process computes the same for the groups it hosts.
struct GroupPlan {
  std::int64_t name = 0;
  int id = 0;                // this process's id for it (when it hosts the group)
  std::int64_t pooled = -1;  // name of the pooled set, or -1: made afresh
  std::vector<int> world_ranks;
};

std::vector<GroupPlan> plan_groups(const CommShared& shared,
                                   const std::vector<detail::SplitGroup>& groups,
                                   const Gathered& g) {
  std::vector<GroupPlan> plans;
  std::vector<int> used(static_cast<std::size_t>(shared.mpi_size), 0);  // ids taken, by process
  std::vector<std::int64_t> chosen;
  for (const detail::SplitGroup& group : groups) {
    GroupPlan plan;
    std::vector<const std::int64_t*> offers;
    for (int p : group.processes) {
      plan.world_ranks.push_back(shared.world_ranks[static_cast<std::size_t>(p)]);
      offers.push_back(g.offers[static_cast<std::size_t>(p)]);
      const int id = g.first_id[static_cast<std::size_t>(p)] + used[static_cast<std::size_t>(p)]++;
      if (p == group.processes.front()) plan.name = detail::pool_name(plan.world_ranks.front(), id);
      if (p == shared.mpi_rank) plan.id = id;
    }
    plan.pooled = detail::choose_pooled(
        offers, detail::pool_key(plan.world_ranks, group.map.max_per_process()), chosen);
    if (plan.pooled >= 0) chosen.push_back(plan.pooled);
    plans.push_back(std::move(plan));
  }
  return plans;
}

// The processes of one group as an MPI group of the parent's MPI
// communicator, in ascending parent rank: the order of the group's MPI
// communicator however it was made.
int group_of(const CommShared& shared, const detail::SplitGroup& group, MPI_Group* members) {
  MPI_Group all = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(shared.mpi_comm, &all);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Group_incl(all, static_cast<int>(group.processes.size()), group.processes.data(),
                        members);
  }
  if (all != MPI_GROUP_NULL) detail::keep_first_error(&rc, MPI_Group_free(&all));
  return rc;
}

// Frees a group made by group_of; a failure is the outcome's unless it
// already has one.
void free_members(MPI_Group* members, Outcome& outcome) {
  if (*members == MPI_GROUP_NULL) return;
  const int free_rc = MPI_Group_free(members);
  if (outcome.rc == MPI_SUCCESS && free_rc != MPI_SUCCESS) {
    outcome.rc = free_rc;
    outcome.why = "MPI_Group_free failed";
  }
}

bool one_color_per_process(const CommShared& shared, const std::vector<detail::SplitArgs>& args) {
  for (int p = 0; p < shared.mpi_size; ++p) {
    int first = MPI_UNDEFINED;
    for (int r : shared.map.ranks_on(p)) {
      const int c = args[static_cast<std::size_t>(r)].color;
      if (c == MPI_UNDEFINED) continue;
      if (first != MPI_UNDEFINED && c != first) return false;
      first = c;
    }
  }
  return true;
}

// Whether `group` has every process of the parent, in the parent's order:
// its MPI communicators are then duplicates of the parent's (dup_polled in
// comm/build.hpp, which does not wait as a blocking creation can), the only
// group there is when every process has one color (Comm_split_type on one
// node, a split by a color all share).
bool spans_all(const CommShared& shared, const detail::SplitGroup& group) {
  return static_cast<int>(group.processes.size()) == shared.mpi_size;
}

// Builds the communicator of one group on its MPI communicator (or on the
// pooled set `agreed` holds) and hands this process's members their new
// endpoints. The group's channels are made as its MPI communicator was: by
// dup_polled, or by MPI_Comm_create_group on the parent, tagged with the
// color: see make_channels in build.cpp.
void adopt_group(const CommShared& shared, const detail::SplitGroup& group, MPI_Comm mpi,
                 MPI_Group members, detail::Agreed& agreed, Outcome& outcome) {
  CommShared* made = nullptr;
  std::vector<std::int64_t> identities;
  for (int m : group.members) identities.push_back(shared.identities[static_cast<std::size_t>(m)]);
  const detail::ChannelSource channels =
      spans_all(shared, group) ? detail::ChannelSource{shared.mpi_comm}
                               : detail::ChannelSource{shared.mpi_comm, members, group.color};
  outcome.rc = detail::build_comm(mpi, channels, group.map, std::move(identities), &made,
                                  &outcome.why, &agreed);
  if (outcome.rc != MPI_SUCCESS) return;
  for (std::size_t new_rank = 0; new_rank < group.members.size(); ++new_rank) {
    const detail::Location old = shared.map.at(group.members[new_rank]);
    if (old.mpi_rank != shared.mpi_rank) continue;
    const detail::Location now = group.map.at(static_cast<int>(new_rank));
    outcome.by_local[static_cast<std::size_t>(old.local_rank)] =
        made->endpoints[static_cast<std::size_t>(now.local_rank)].get();
  }
}

// Makes the MPI communicator of each group this process hosts and builds
// the groups' communicators, in ascending color order (a total order every
// process follows). A group whose processes all offered the same pooled set
// takes it and makes nothing. A group of every process is a duplicate of
// the parent (spans_all). Otherwise, with one color per process a single
// MPI_Comm_split serves all groups (made unless every group was pooled:
// every process knows every group's plan); else each group gets
// MPI_Comm_create_group over its processes, tagged with its color. Every
// MPI creation here is made on the parent with tag 0 or the color, so a
// leader's creations never go down in Open MPI's order of creations
// (make_channels in build.cpp).
// Every rank's color and key, and the processes' ids and pool offers, at
// every leader; false (with the reason in `outcome`) when the exchange
// failed or a color is bad anywhere, which fails the split everywhere alike.
bool gather_colors(const CommShared& shared, const detail::PoolOffer& offer,
                   const detail::IntentMark& mark, Gathered* gathered, Outcome& outcome) {
  const LocalTeam& team = *shared.team;
  std::vector<detail::SplitArgs> local(static_cast<std::size_t>(team.size()));
  for (int l = 0; l < team.size(); ++l)
    local[static_cast<std::size_t>(l)] = detail::arrival_of<SplitArrival>(team, l).args;
  outcome.rc =
      gather_split_args(shared, local, offer, mark, detail::draw_comm_ids(team.size()), gathered);
  if (outcome.rc != MPI_SUCCESS) {
    outcome.why = "MPI_Allgatherv of colors and keys failed";
    return false;
  }
  const std::vector<detail::SplitArgs>& args = gathered->by_rank;
  for (std::size_t r = 0; r < args.size(); ++r) {
    if (args[r].color < 0 && args[r].color != MPI_UNDEFINED) {
      outcome.rc = MPI_ERR_ARG;
      outcome.why = fmt::format("rank {} passed color {}: colors are >= 0 or MPI_UNDEFINED", r,
                                args[r].color);
      return false;
    }
  }
  return true;
}

// Whatever happens, the sets offered and not taken go back to the pool.
struct Release {
  const detail::PoolOffer& offer;
  ~Release() { detail::release_offer(offer); }
};

void split_as_leader(const CommShared& shared, Outcome& outcome) {
  const detail::CreationIntent intent(shared.key);  // comm/turn.hpp
  const detail::PoolOffer offer = detail::reserve_offer(shared.mpi_comm);
  const Release release{offer};
  Gathered gathered;
  if (!gather_colors(shared, offer, intent.lowest_other(), &gathered, outcome)) return;
  const std::vector<detail::SplitArgs>& args = gathered.by_rank;
  const auto all_groups = detail::split_groups(shared.map, args, MPI_UNDEFINED);
  const std::vector<GroupPlan> plans = plan_groups(shared, all_groups, gathered);
  const bool one_split = one_color_per_process(shared, args);
  bool all_pooled = true;
  for (const GroupPlan& plan : plans) all_pooled = all_pooled && plan.pooled >= 0;
  const auto hosts = [&](const detail::SplitGroup& group) {
    return std::binary_search(group.processes.begin(), group.processes.end(), shared.mpi_rank);
  };
  const bool one_whole = all_groups.size() == 1 && spans_all(shared, all_groups.front());
  // Whether some process, and this one, waits for other processes in a
  // blocking creation below: every process takes part in MPI_Comm_split; a
  // group's MPI_Comm_create_group waits only where the group has more than
  // one process (one process's completes by itself).
  bool blocking_anywhere = one_split && !all_pooled && !one_whole;
  bool blocking_here = blocking_anywhere;
  for (std::size_t i = 0; !one_split && i < all_groups.size(); ++i) {
    if (plans[i].pooled >= 0 || all_groups[i].processes.size() < 2 ||
        spans_all(shared, all_groups[i])) {
      continue;
    }
    blocking_anywhere = true;
    blocking_here = blocking_here || hosts(all_groups[i]);
  }
  // The process's turn for them, agreed among the processes, until the
  // last group's channels are made (comm/turn.hpp).
  std::optional<detail::CreationTurn> turn;
  if (blocking_anywhere) {
    turn.emplace(shared.mpi_comm, blocking_here, shared.key, gathered.marks, &outcome.rc);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Iallreduce of the creation turn failed";
      return;
    }
  }
  MPI_Comm split = MPI_COMM_NULL;
  if (one_split && !all_pooled && !one_whole) {
    int color = MPI_UNDEFINED;
    for (std::size_t i = 0; i < all_groups.size(); ++i) {
      if (hosts(all_groups[i]) && plans[i].pooled < 0) color = all_groups[i].color;
    }
    outcome.rc = MPI_Comm_split(shared.mpi_comm, color, shared.mpi_rank, &split);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Comm_split failed";
      return;
    }
  }
  for (std::size_t i = 0; i < all_groups.size(); ++i) {
    const detail::SplitGroup& group = all_groups[i];
    if (!hosts(group)) continue;
    const GroupPlan& plan = plans[i];
    detail::Agreed agreed{plan.id, plan.name, std::nullopt, {}, shared.mpi_comm};
    if (plan.pooled >= 0) {
      agreed.pooled =
          detail::take_pooled(plan.pooled, plan.world_ranks, group.map.max_per_process());
      if (!agreed.pooled) {
        outcome.rc = MPI_ERR_INTERN;
        outcome.why = "the pooled MPI communicators the processes agreed on are not there";
        return;
      }
    }
    // A group of every process is a duplicate, which needs no group.
    MPI_Group members = MPI_GROUP_NULL;
    if (!spans_all(shared, group)) outcome.rc = group_of(shared, group, &members);
    MPI_Comm mpi = agreed.pooled ? MPI_COMM_NULL : split;
    const char* call = "MPI_Comm_group";
    if (outcome.rc == MPI_SUCCESS && !agreed.pooled && spans_all(shared, group)) {
      call = "MPI_Comm_idup";
      outcome.rc = detail::dup_polled(shared.mpi_comm, &mpi);
    } else if (outcome.rc == MPI_SUCCESS && !agreed.pooled && !one_split) {
      call = "MPI_Comm_create_group";
      outcome.rc = MPI_Comm_create_group(shared.mpi_comm, members, group.color, &mpi);
    }
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = fmt::format("{} failed", call);
    } else {
      adopt_group(shared, group, mpi, members, agreed, outcome);
    }
    free_members(&members, outcome);
    if (outcome.rc != MPI_SUCCESS) return;
  }
}

// One inter-communicator of an inter split: each group's ranks of one color
// (union ranks of the parent), in new rank order.
struct InterPart {
  int color = 0;
  std::vector<int> ranks[2];
};

// The parts, in ascending color order: the colors both groups have. (A
// color of one group alone gives its ranks COMM_NULL.)
std::vector<InterPart> inter_parts(const CommShared& shared,
                                   const std::vector<detail::SplitArgs>& args) {
  std::vector<InterPart> parts;
  std::vector<int> colors;
  for (const auto& a : args) {
    if (a.color != MPI_UNDEFINED) colors.push_back(a.color);
  }
  std::sort(colors.begin(), colors.end());
  colors.erase(std::unique(colors.begin(), colors.end()), colors.end());
  for (const int color : colors) {
    InterPart part{color, {}};
    for (int g = 0; g < 2; ++g) {
      for (const int u : shared.members(g)) {
        if (args[static_cast<std::size_t>(u)].color == color) part.ranks[g].push_back(u);
      }
      // By key, ties by rank in the group (members are in rank order).
      std::stable_sort(part.ranks[g].begin(), part.ranks[g].end(), [&](int a, int b) {
        return args[static_cast<std::size_t>(a)].key < args[static_cast<std::size_t>(b)].key;
      });
    }
    if (!part.ranks[0].empty() && !part.ranks[1].empty()) parts.push_back(std::move(part));
  }
  return parts;
}

// Builds one part's inter-communicator, if this process hosts one of its
// endpoints, over a carrier made with MPI_Comm_create_group on the parent's
// carrier tagged with the color (as split_as_leader's groups), and hands
// this process's members their new endpoints. `used` counts the ids each
// process has given to the parts so far.
void build_part(const CommShared& shared, const InterPart& part, const Gathered& gathered,
                std::vector<int>& used, Outcome& outcome) {
  // The group whose rank 0 has the smaller identity comes first (inter_map.hpp).
  const int first = shared.identities[static_cast<std::size_t>(part.ranks[0].front())] <
                            shared.identities[static_cast<std::size_t>(part.ranks[1].front())]
                        ? 0
                        : 1;
  std::vector<int> hosts[2];
  std::vector<int> old_ranks;  // by new union rank
  std::vector<std::int64_t> identities;
  std::vector<int> processes;  // parent carrier ranks, ascending (= world order)
  for (const int g : {first, 1 - first}) {
    for (const int u : part.ranks[g]) {
      const int p = shared.map.at(u).mpi_rank;
      hosts[g].push_back(shared.world_ranks[static_cast<std::size_t>(p)]);
      old_ranks.push_back(u);
      identities.push_back(shared.identities[static_cast<std::size_t>(u)]);
      processes.push_back(p);
    }
  }
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  detail::Agreed agreed;
  for (const int p : processes) {
    const int id =
        gathered.first_id[static_cast<std::size_t>(p)] + used[static_cast<std::size_t>(p)]++;
    if (p == processes.front()) {
      agreed.name = detail::pool_name(shared.world_ranks[static_cast<std::size_t>(p)], id);
    }
    if (p == shared.mpi_rank) agreed.id = id;
  }
  if (!std::binary_search(processes.begin(), processes.end(), shared.mpi_rank)) return;
  const detail::InterLayout layout = detail::inter_layout(hosts[first], hosts[1 - first]);
  const detail::SplitGroup as_group{part.color, {}, processes, {}};
  MPI_Group members = MPI_GROUP_NULL;
  MPI_Comm carrier = MPI_COMM_NULL;
  outcome.rc = group_of(shared, as_group, &members);
  const detail::CreationTurn turn;  // for the carrier and its channels (comm/turn.hpp)
  if (outcome.rc == MPI_SUCCESS) {
    outcome.rc = MPI_Comm_create_group(shared.mpi_comm, members, part.color, &carrier);
  }
  CommShared* made = nullptr;
  if (outcome.rc != MPI_SUCCESS) {
    outcome.why = "MPI_Comm_create_group failed";
  } else {
    outcome.rc = detail::build_inter(carrier, {shared.mpi_comm, members, part.color}, layout,
                                     std::move(identities), &made, &outcome.why, &agreed);
  }
  free_members(&members, outcome);
  if (outcome.rc != MPI_SUCCESS) return;
  for (std::size_t nu = 0; nu < old_ranks.size(); ++nu) {
    const detail::Location old = shared.map.at(old_ranks[nu]);
    if (old.mpi_rank != shared.mpi_rank) continue;
    const detail::Location now = layout.map.at(static_cast<int>(nu));
    outcome.by_local[static_cast<std::size_t>(old.local_rank)] =
        made->endpoints[static_cast<std::size_t>(now.local_rank)].get();
  }
}

// Comm_split of an inter-communicator (MPI 4.0, 7.4.2): each group splits
// on its own, and the same color's parts of the two groups make an
// inter-communicator. The process's endpoints of both groups meet in the
// parent's team; its leader builds the parts it hosts, in ascending color
// order (a total order every process follows). Pooled sets are not used.
void split_inter_as_leader(const CommShared& shared, Outcome& outcome) {
  const detail::PoolOffer offer = detail::reserve_offer();
  const Release release{offer};
  Gathered gathered;
  if (!gather_colors(shared, offer, {}, &gathered, outcome)) return;
  std::vector<int> used(static_cast<std::size_t>(shared.mpi_size), 0);
  for (const InterPart& part : inter_parts(shared, gathered.by_rank)) {
    build_part(shared, part, gathered, used, outcome);
    if (outcome.rc != MPI_SUCCESS) return;
  }
}

}  // namespace

namespace detail {

int split(Endpoint* e, int color, int key, Comm* newcomm, const char* function) {
  // A null result pointer is a local error, but the others are already on
  // their way into the split: take part with MPI_UNDEFINED, then report it.
  Comm ignored = COMM_NULL;
  const SplitArrival arrival{{newcomm ? color : MPI_UNDEFINED, key}};
  const int rc = meet(e, arrival, newcomm ? newcomm : &ignored, function, [&](Outcome& outcome) {
    if (e->shared->inter) {
      split_inter_as_leader(*e->shared, outcome);
    } else {
      split_as_leader(*e->shared, outcome);
    }
  });
  if (rc == MPI_SUCCESS && !newcomm)
    return detail::raise(e, MPI_ERR_ARG, function, "newcomm is a null pointer");
  return rc;
}

}  // namespace detail

int Comm_dup(Comm comm, Comm* newcomm) {
  constexpr const char* fn = "Comm_dup";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  // A null result pointer is a local error, but the other endpoints of the
  // process are already on their way into the dup: take part, then report.
  Comm ignored = COMM_NULL;
  const int arrival = 0;
  const int rc = meet(e, arrival, newcomm ? newcomm : &ignored, fn, [&](Outcome& outcome) {
    const CommShared& shared = *e->shared;
    // The same processes in the same order: a pooled set will do when every
    // process has one; the exchange is also what every process enters before
    // a creation starts (make_channels in build.cpp).
    detail::Agreed agreed;
    std::vector<std::int64_t> nothing;
    outcome.rc = detail::agree_over(shared.mpi_comm, shared.world_ranks,
                                    shared.map.max_per_process(), {}, &nothing, &agreed);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Allgather of the processes' pooled communicators failed";
      return;
    }
    MPI_Comm mpi = MPI_COMM_NULL;
    if (!agreed.pooled) outcome.rc = detail::dup_polled(shared.mpi_comm, &mpi);
    if (outcome.rc != MPI_SUCCESS) {
      outcome.why = "MPI_Comm_idup failed";
      return;
    }
    CommShared* made = nullptr;
    const detail::ChannelSource channels{shared.mpi_comm};
    outcome.rc = shared.inter ? detail::build_inter(mpi, channels, shared.layout, shared.identities,
                                                    &made, &outcome.why, &agreed)
                              : detail::build_comm(mpi, channels, shared.map, shared.identities,
                                                   &made, &outcome.why, &agreed);
    if (outcome.rc != MPI_SUCCESS) return;
    for (std::size_t l = 0; l < outcome.by_local.size(); ++l) {
      outcome.by_local[l] = made->endpoints[l].get();
    }
  });
  if (rc != MPI_SUCCESS) return rc;
  if (!newcomm) {
    // The endpoint made for the missing handle is retired at once (an error
    // here would only repeat the one reported).
    static_cast<void>(detail::free_endpoint(detail::valid_endpoint(ignored)));
    return detail::raise(e, MPI_ERR_ARG, fn, "newcomm is a null pointer");
  }
  // Each endpoint copies its own attributes to its new handle. A failing copy
  // callback fails the dup (MPI): the new handle is retired at once, its
  // copies deleted (their errors would only repeat the one reported).
  Endpoint* made = detail::valid_endpoint(*newcomm);
  if (const int copy_rc = detail::copy_attributes(e, made, fn); copy_rc != MPI_SUCCESS) {
    static_cast<void>(detail::delete_attributes(made, fn));
    static_cast<void>(detail::free_endpoint(made));
    *newcomm = COMM_NULL;
    return copy_rc;
  }
  return MPI_SUCCESS;
}

int Comm_split(Comm comm, int color, int key, Comm* newcomm) {
  constexpr const char* fn = "Comm_split";
  Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, fn);
  return detail::split(e, color, key, newcomm, fn);
}

}  // namespace ep
