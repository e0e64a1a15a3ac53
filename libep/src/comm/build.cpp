#include "comm/build.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/backoff.hpp"
#include "coll/mpi_step.hpp"
#include "coll/nonblocking.hpp"
#include "comm/inspect.hpp"
#include "comm/turn.hpp"
#include "object/error.hpp"
#include "p2p/engine.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

namespace {

std::atomic<int> next_comm_id{0};

}  // namespace

// Duplicates are made with MPI_Comm_idup and polled (dup_polled). Open MPI
// 4.1 makes a communicator with the same agreement rounds either way, but
// in a blocking MPI_Comm_dup (or MPI_Comm_split, or MPI_Comm_create_group)
// a thread whose creation is not the one its process advances waited for
// milliseconds when busy threads outnumbered the cores: three processes of
// two threads, each thread making three communicators from its own
// duplicate of MPI_COMM_WORLD at once, took 8-16 ms per round with
// MPI_Comm_dup and 12-16 ms with MPI_Comm_create_group, against 0.3-0.7 ms
// with MPI_Comm_idup completed by MPI_Wait or by MPI_Test and yields
// (0.2-0.3 ms for one thread making all six; 2 cores, 6 rounds each). The
// wait polls as a message's does (Backoff): each poll moves MPI's
// agreement rounds on, and yielding after 8 polls, as the leaders' MPI
// steps do, made a first cycle of Comm_dup, Comm_split, Comm_split_type,
// Comm_split, Intercomm_create and Intercomm_merge on 2 processes x 3
// endpoints take 1.3 ms instead of 0.7 (with 128 polls: 0.7 ms).
int dup_polled(MPI_Comm from, MPI_Comm* out) {
  MPI_Request request = MPI_REQUEST_NULL;
  Backoff backoff;
  // complete_pausing() tests the request to completion; the MPI checker
  // cannot see it.
  // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
  return complete_pausing(MPI_Comm_idup(from, out, &request), &request,
                          [&backoff] { backoff.pause(); });
}

namespace {

// The inbox and bulk channels (ranks/tag_layout.hpp: one of each while the
// MPI's tag range allows), made by the call that made the communicator's
// own MPI communicator, on the same communicator (ChannelSource).
//
// Why not MPI_Comm_dup of the new communicator: Open MPI 4.1 lets a process
// advance only the communicator creation whose parent has the lowest CID
// (with the tag of MPI_Comm_create_group) among those it has under way; the
// others wait. A leader that made a communicator and then duplicated it
// made a chain whose later calls could rank below its earlier ones (a new
// communicator may reuse a low CID), and two leaders of one process, busy
// with sibling communicators, could each wait for the other's process: the
// split tests hung in one run of a few. Repeating the first call keeps each
// leader's calls in one rank, and every creation starts only after a
// collective on the parent that all its processes have entered (the split's
// exchange of colors, agree_over's for dup and merge, ...), so the lowest creation under
// way anywhere always has all its processes in it and completes.
// A caller whose channels come from MPI_Comm_create_group holds its
// process's creation turn (comm/turn.hpp) from its own creation call on,
// so that the communicator and its channels are made in one turn; a split
// takes none for a group of its own process alone, whose creations wait
// for no other process.
int make_channels(CommShared& shared, const ChannelSource& source, std::string* why) {
  const auto channels = static_cast<std::size_t>(shared.tags.channels());
  shared.inbox.assign(channels, MPI_COMM_NULL);
  shared.bulk.assign(channels, MPI_COMM_NULL);
  for (std::size_t c = 0; c < channels; ++c) {
    for (MPI_Comm* channel : {&shared.inbox[c], &shared.bulk[c]}) {
      const char* call = source.group == MPI_GROUP_NULL ? "MPI_Comm_idup" : "MPI_Comm_create_group";
      int rc = source.group == MPI_GROUP_NULL
                   ? dup_polled(source.from, channel)
                   : MPI_Comm_create_group(source.from, source.group, source.tag, channel);
      if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(*channel, MPI_ERRORS_RETURN);
      if (rc != MPI_SUCCESS) {
        // Running out of communicators (Open MPI's context ids) ends here.
        *why = fmt::format("{} of one of its 2 channel communicators failed ({})", call,
                           mpi_error_string(rc));
        return rc;
      }
      // Senders address a channel by the rank in the communicator's MPI
      // communicator: both must order the processes alike.
      int same = MPI_UNEQUAL;
      rc = MPI_Comm_compare(*channel, shared.mpi_comm, &same);
      if (rc == MPI_SUCCESS && same != MPI_CONGRUENT) {
        *why =
            fmt::format("{} made a channel that ranks the processes unlike the communicator", call);
        return MPI_ERR_INTERN;
      }
      if (rc != MPI_SUCCESS) {
        *why = fmt::format("MPI_Comm_compare of a channel failed ({})", mpi_error_string(rc));
        return rc;
      }
    }
  }
  return MPI_SUCCESS;
}

// The MPI_COMM_WORLD ranks of the processes, and a name for the
// communicator that every process agrees on (for EP_INSPECT dumps and the
// pool): `agreed_name` when the processes agreed on it already.
int identify(CommShared& shared, const std::int64_t* agreed_name) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(shared.mpi_comm, &group);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(shared.mpi_size));
  for (std::size_t p = 0; p < ranks.size(); ++p) ranks[p] = static_cast<int>(p);
  shared.world_ranks.resize(ranks.size());
  if (rc == MPI_SUCCESS) {
    rc = MPI_Group_translate_ranks(group, shared.mpi_size, ranks.data(), world,
                                   shared.world_ranks.data());
  }
  for (MPI_Group* g : {&group, &world}) {
    if (*g != MPI_GROUP_NULL) keep_first_error(&rc, MPI_Group_free(g));
  }
  if (rc != MPI_SUCCESS) return rc;
  if (agreed_name && *agreed_name >= 0) {
    shared.global_id = fmt::format("w{}c{}", *agreed_name >> 32,
                                   static_cast<std::int32_t>(*agreed_name & 0xffffffff));
    shared.key = *agreed_name;
    return MPI_SUCCESS;
  }
  int name[2] = {shared.world_ranks[static_cast<std::size_t>(shared.mpi_rank)], shared.id};
  // Completed with back-off (coll/mpi_step.hpp), as every exchange here.
  MPI_Request request = MPI_REQUEST_NULL;
  rc = complete(MPI_Ibcast(name, 2, MPI_INT, 0, shared.mpi_comm, &request), &request);
  shared.global_id = fmt::format("w{}c{}", name[0], name[1]);
  shared.key = std::int64_t{name[0]} << 32 | static_cast<std::uint32_t>(name[1]);
  return rc;
}

// What MPI says of the communicator a CommShared takes over, and the tag
// bound its user tags must leave room under.
int adopt(CommShared& shared, MPI_Comm mpi_comm, int* mpi_tag_ub, std::string* why) {
  shared.mpi_comm = mpi_comm;
  int rc = MPI_Comm_set_errhandler(mpi_comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(mpi_comm, &shared.mpi_rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(mpi_comm, &shared.mpi_size);
  // MPI caches MPI_TAG_UB on MPI_COMM_WORLD; duplicates of other
  // communicators need not carry it (Open MPI's MPI_COMM_SELF does not).
  int* attribute = nullptr;
  int flag = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attribute, &flag);
  if (rc != MPI_SUCCESS) {
    *why =
        fmt::format("MPI could not describe the new MPI communicator ({})", mpi_error_string(rc));
    return rc;
  }
  *mpi_tag_ub = flag ? *attribute : TagLayout::kMinUserTagUb;
  return MPI_SUCCESS;
}

// build_comm without the EP_INSPECT dump, which build_inter makes once its
// tables are in place.
int build_part(MPI_Comm mpi_comm, const ChannelSource& channels, RankMap map,
               std::vector<std::int64_t> identities, CommShared** out, std::string* why,
               Agreed* agreed) {
  std::optional<PooledSet> pooled;
  if (agreed && agreed->pooled) {
    pooled = std::move(agreed->pooled);
    agreed->pooled.reset();
    mpi_comm = pooled->mpi_comm;
  }
  auto shared = std::make_unique<CommShared>();
  if (pooled) {
    // From here on the set is the communicator's: released with it.
    shared->inbox = std::move(pooled->inbox);
    shared->bulk = std::move(pooled->bulk);
  }
  shared->map = std::move(map);
  shared->identities = std::move(identities);
  int tag_ub = 0;
  int rc = adopt(*shared, mpi_comm, &tag_ub, why);
  if (rc != MPI_SUCCESS) {
    release_shared(shared.release());
    return rc;
  }
  auto layout = TagLayout::make(tag_ub, shared->map.max_per_process());
  if (!layout) {
    *why = fmt::format(
        "{} endpoints in one process are more than libep serves over this MPI, whose MPI_TAG_UB "
        "is {}: at most {} per process, so that users keep the 15 tag bits MPI promises and a "
        "communicator needs at most {} pairs of MPI channel communicators",
        shared->map.max_per_process(), tag_ub, TagLayout::max_endpoints_per_process(tag_ub),
        TagLayout::kMaxChannels);
    release_shared(shared.release());
    return MPI_ERR_OTHER;
  }
  shared->tags = *layout;
  shared->user_tag_ub = layout->user_tag_ub();
  if (pooled) {
    // choose_pooled checked the channel count; a mismatch would misroute.
    const auto wanted = static_cast<std::size_t>(shared->tags.channels());
    if (shared->inbox.size() != wanted || shared->bulk.size() != wanted) {
      *why = "a pooled set of MPI communicators has the wrong number of channels";
      rc = MPI_ERR_INTERN;
    }
  } else {
    rc = make_channels(*shared, channels, why);
  }
  if (rc != MPI_SUCCESS) {
    release_shared(shared.release());
    return rc;
  }

  shared->id = agreed ? agreed->id : draw_comm_ids();
  rc = identify(*shared, agreed ? &agreed->name : nullptr);
  if (rc != MPI_SUCCESS) {
    *why =
        fmt::format("naming the communicator across processes failed ({})", mpi_error_string(rc));
    release_shared(shared.release());
    return rc;
  }
  note_communicator(shared->key);  // comm/turn.hpp; forgotten in release_shared
  shared->noted = true;
  shared->made_from = agreed ? agreed->made_from : MPI_COMM_NULL;
  const int local_count = shared->map.count_on(shared->mpi_rank);
  shared->team = std::make_unique<LocalTeam>(local_count);
  const bool premade = agreed && !agreed->premade.empty();
  if (premade && agreed->premade.size() != static_cast<std::size_t>(local_count)) {
    *why = "the endpoints made ahead do not match the process's part";
    release_shared(shared.release());
    return MPI_ERR_INTERN;
  }
  for (int local = 0; local < local_count; ++local) {
    std::unique_ptr<Endpoint> endpoint(premade ? agreed->premade[static_cast<std::size_t>(local)]
                                               : new Endpoint);
    endpoint->shared = shared.get();
    endpoint->local = local;
    endpoint->rank = shared->map.rank_of(shared->mpi_rank, local);
    endpoint->identity = shared->identities[static_cast<std::size_t>(endpoint->rank)];
    shared->endpoints.push_back(std::move(endpoint));
  }
  // A lane for each channel that several of this process's endpoints
  // receive on (CommShared::lanes).
  const int channel_count = shared->tags.channels();
  shared->lanes = std::make_unique<CommShared::Lane[]>(static_cast<std::size_t>(channel_count));
  std::vector<int> on_channel(static_cast<std::size_t>(channel_count), 0);
  for (int local = 0; local < local_count; ++local) {
    ++on_channel[static_cast<std::size_t>(shared->tags.channel_of(local))];
  }
  for (auto& endpoint : shared->endpoints) {
    const auto c = static_cast<std::size_t>(shared->tags.channel_of(endpoint->local));
    if (on_channel[c] > 1) endpoint->lane = &shared->lanes[c];
  }
  if (premade) {
    // Theirs now; their handles, given out already, become valid.
    for (Endpoint* e : agreed->premade) EndpointPool::revive(e);
    agreed->premade.clear();
  }
  shared->live.store(local_count);
  note_live(shared->mpi_comm);
  *out = shared.release();
  return MPI_SUCCESS;
}

}  // namespace

int draw_comm_ids(int count) { return next_comm_id.fetch_add(count); }

int agree_over(MPI_Comm comm, const std::vector<int>& world_ranks, int per_process,
               const std::vector<std::int64_t>& extra, std::vector<std::int64_t>* gathered_extra,
               Agreed* agreed) {
  const PoolOffer offer = reserve_offer(comm);
  agreed->made_from = comm;
  agreed->id = draw_comm_ids();
  std::vector<std::int64_t> mine{agreed->id};
  mine.insert(mine.end(), offer.begin(), offer.end());
  mine.insert(mine.end(), extra.begin(), extra.end());
  const auto block = mine.size();
  std::vector<std::int64_t> all(block * world_ranks.size());
  // Completed with back-off (coll/mpi_step.hpp): a blocking MPI_Allgather
  // spins inside MPI and keeps the core from the process's other endpoints.
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = complete(MPI_Iallgather(mine.data(), static_cast<int>(block), MPI_INT64_T, all.data(),
                                   static_cast<int>(block), MPI_INT64_T, comm, &request),
                    &request);
  if (rc == MPI_SUCCESS) {
    std::vector<const std::int64_t*> offers;
    gathered_extra->clear();
    for (std::size_t p = 0; p < world_ranks.size(); ++p) {
      offers.push_back(all.data() + p * block + 1);
      gathered_extra->insert(
          gathered_extra->end(),
          all.begin() + static_cast<std::ptrdiff_t>(p * block + 1 + offer.size()),
          all.begin() + static_cast<std::ptrdiff_t>((p + 1) * block));
    }
    agreed->name = pool_name(world_ranks.front(), static_cast<int>(all[0]));
    const std::int64_t chosen = choose_pooled(offers, pool_key(world_ranks, per_process), {});
    if (chosen >= 0) {
      agreed->pooled = take_pooled(chosen, world_ranks, per_process);
      if (!agreed->pooled) rc = MPI_ERR_INTERN;
    }
  }
  release_offer(offer);
  return rc;
}

int build_comm(MPI_Comm mpi_comm, const ChannelSource& channels, RankMap map,
               std::vector<std::int64_t> identities, CommShared** out, std::string* why,
               Agreed* agreed) {
  const int rc =
      build_part(mpi_comm, channels, std::move(map), std::move(identities), out, why, agreed);
  if (rc != MPI_SUCCESS) return rc;
  register_node_routes(**out);
  dump_if_requested(**out);
  return rc;
}

int build_inter(MPI_Comm carrier, const ChannelSource& channels, const InterLayout& layout,
                std::vector<std::int64_t> identities, CommShared** out, std::string* why,
                Agreed* agreed) {
  const int rc = build_part(carrier, channels, layout.map, std::move(identities), out, why, agreed);
  if (rc != MPI_SUCCESS) return rc;
  CommShared& shared = **out;
  shared.inter = true;
  shared.layout = layout;
  // build_comm numbered the endpoints by union rank; an endpoint's rank is
  // its rank within its group.
  for (auto& endpoint : shared.endpoints) {
    const auto u = static_cast<std::size_t>(endpoint->rank);
    endpoint->group = layout.group_of[u];
    endpoint->rank = layout.rank_in_group[u];
  }
  register_node_routes(shared);
  dump_if_requested(shared);
  return MPI_SUCCESS;
}

int release_shared(CommShared* shared) {
  if (shared->noted) forget_communicator(shared->key);
  unregister_node_routes(*shared);
  forget_nonblocking(*shared);
  note_gone(shared->mpi_comm);
  int rc = MPI_SUCCESS;
  const auto keep_first = [&rc](int call_rc) { keep_first_error(&rc, call_rc); };
  bool pending = false;
  for (auto& endpoint : shared->endpoints) {
    keep_first(discard_unexpected(endpoint.get()));
    // A receive still posted in MPI (p2p/transport_mpi.hpp) would take a
    // message of the next communicator to use the channels.
    pending = pending || !endpoint->inbox_heads.empty();
  }
  if (rc == MPI_SUCCESS && !pending && give_back(*shared)) {
    delete shared;
    return rc;
  }
  for (MPI_Comm& c : shared->inbox) {
    if (c != MPI_COMM_NULL) keep_first(MPI_Comm_free(&c));
  }
  for (MPI_Comm& c : shared->bulk) {
    if (c != MPI_COMM_NULL) keep_first(MPI_Comm_free(&c));
  }
  if (shared->mpi_comm != MPI_COMM_NULL) keep_first(MPI_Comm_free(&shared->mpi_comm));
  delete shared;
  return rc;
}

}  // namespace ep::detail
