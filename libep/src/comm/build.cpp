#include "comm/build.hpp"

#include <fmt/format.h>

#include <atomic>
#include <string>

#include "comm/inspect.hpp"
#include "object/error.hpp"
#include "p2p/engine.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

namespace {

std::atomic<int> next_comm_id{0};

// inbox[l] and bulk[l] for every local index l any process uses, made by
// the call that made the communicator's own MPI communicator, on the same
// communicator (ChannelSource).
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
// MPI_Allgatherv, the dup's MPI_Barrier, ...), so the lowest creation under
// way anywhere always has all its processes in it and completes.
int make_channels(CommShared& shared, const ChannelSource& source) {
  const auto channels = static_cast<std::size_t>(shared.map.max_per_process());
  shared.inbox.assign(channels, MPI_COMM_NULL);
  shared.bulk.assign(channels, MPI_COMM_NULL);
  for (std::size_t l = 0; l < channels; ++l) {
    for (MPI_Comm* channel : {&shared.inbox[l], &shared.bulk[l]}) {
      int rc = source.group == MPI_GROUP_NULL
                   ? MPI_Comm_dup(source.from, channel)
                   : MPI_Comm_create_group(source.from, source.group, source.tag, channel);
      if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(*channel, MPI_ERRORS_RETURN);
      if (rc != MPI_SUCCESS) return rc;
      // Senders address a channel by the rank in the communicator's MPI
      // communicator: both must order the processes alike.
      int same = MPI_UNEQUAL;
      rc = MPI_Comm_compare(*channel, shared.mpi_comm, &same);
      if (rc != MPI_SUCCESS) return rc;
      if (same != MPI_CONGRUENT) return MPI_ERR_INTERN;
    }
  }
  return MPI_SUCCESS;
}

// The MPI_COMM_WORLD ranks of the processes, and a name for the
// communicator that every process agrees on (for EP_INSPECT dumps).
int identify(CommShared& shared) {
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
  int name[2] = {shared.world_ranks[static_cast<std::size_t>(shared.mpi_rank)], shared.id};
  rc = MPI_Bcast(name, 2, MPI_INT, 0, shared.mpi_comm);
  shared.global_id = fmt::format("w{}c{}", name[0], name[1]);
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
               std::vector<std::int64_t> identities, CommShared** out, std::string* why) {
  auto shared = std::make_unique<CommShared>();
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
        "{} endpoints in one process leave fewer tag bits than MPI requires (the MPI's "
        "MPI_TAG_UB is {}): use fewer endpoints per process",
        shared->map.max_per_process(), tag_ub);
    release_shared(shared.release());
    return MPI_ERR_OTHER;
  }
  shared->tags = *layout;
  shared->user_tag_ub = layout->user_tag_ub();
  rc = make_channels(*shared, channels);
  if (rc != MPI_SUCCESS) {
    *why = rc == MPI_ERR_INTERN ? "a channel ranks the processes unlike the communicator"
           : channels.group == MPI_GROUP_NULL ? "MPI_Comm_dup of a channel failed"
                                              : "MPI_Comm_create_group of a channel failed";
    release_shared(shared.release());
    return rc;
  }

  shared->id = next_comm_id.fetch_add(1);
  rc = identify(*shared);
  if (rc != MPI_SUCCESS) {
    *why =
        fmt::format("naming the communicator across processes failed ({})", mpi_error_string(rc));
    release_shared(shared.release());
    return rc;
  }
  const int local_count = shared->map.count_on(shared->mpi_rank);
  shared->team = std::make_unique<LocalTeam>(local_count);
  for (int local = 0; local < local_count; ++local) {
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->shared = shared.get();
    endpoint->local = local;
    endpoint->rank = shared->map.rank_of(shared->mpi_rank, local);
    endpoint->identity = shared->identities[static_cast<std::size_t>(endpoint->rank)];
    shared->endpoints.push_back(std::move(endpoint));
  }
  shared->live.store(local_count);
  *out = shared.release();
  return MPI_SUCCESS;
}

}  // namespace

int build_comm(MPI_Comm mpi_comm, const ChannelSource& channels, RankMap map,
               std::vector<std::int64_t> identities, CommShared** out, std::string* why) {
  const int rc = build_part(mpi_comm, channels, std::move(map), std::move(identities), out, why);
  if (rc == MPI_SUCCESS) dump_if_requested(**out);
  return rc;
}

int build_inter(MPI_Comm carrier, const ChannelSource& channels, const InterLayout& layout,
                std::vector<std::int64_t> identities, CommShared** out, std::string* why) {
  const int rc = build_part(carrier, channels, layout.map, std::move(identities), out, why);
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
  dump_if_requested(shared);
  return MPI_SUCCESS;
}

int release_shared(CommShared* shared) {
  int rc = MPI_SUCCESS;
  const auto keep_first = [&rc](int call_rc) { keep_first_error(&rc, call_rc); };
  for (auto& endpoint : shared->endpoints) keep_first(discard_unexpected(endpoint.get()));
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
