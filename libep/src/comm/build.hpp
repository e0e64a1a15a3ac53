// Making and releasing a process's part of an endpoint communicator.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "object/endpoint.hpp"
#include "ranks/rank_map.hpp"

namespace ep::detail {

/// Where a communicator's channels (CommShared::inbox and bulk) come from:
/// the same MPI call that made its MPI communicator, repeated on the same
/// communicator: dup_polled(from) when `group` is MPI_GROUP_NULL, else
/// MPI_Comm_create_group(from, group, tag). Never a call on the new
/// communicator itself; build.cpp says why.
struct ChannelSource {
  MPI_Comm from = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  int tag = 0;
};

/// A duplicate of `from` (an endpoint communicator's own MPI communicator,
/// which only its blocking collectives and constructors use, one call at a
/// time per process): MPI_Comm_idup, completed by polling with back-off,
/// instead of the blocking MPI_Comm_dup, in which Open MPI 4.1 lets several
/// creations under way in one process wait for each other for milliseconds
/// when busy threads outnumber the cores (build.cpp). Collective over `from`.
int dup_polled(MPI_Comm from, MPI_Comm* out);

/// Pooled MPI communicators.
///
/// Making a communicator's MPI communicators (its own, and its inbox and
/// bulk channels) costs several MPI communicator creations, each an agreement among the processes;
/// a freed communicator's set is kept instead and handed to the next communicator over the same
/// processes in the same order, when every one of its processes still holds
/// it. Sets are named by the communicator they last served (PoolName), the
/// same in every process. A creation reserves what its process offers
/// (reserve_offer), the processes exchange their offers in a collective the
/// creation makes anyway, each computes the same choice (choose_pooled), and
/// settle_offer hands over the chosen set and returns the rest.
///
/// A set comes back only once every endpoint of this process freed its
/// communicator; it is chosen only once every process offered it, so its
/// last owner is gone everywhere and nothing of it is still under way (a
/// communicator's operations complete before Comm_free returns). Messages
/// that reached a process but were never received are dropped, as
/// MPI_Comm_free drops them, when a creation first offers the set
/// (reserve_offer; before that no process can choose it). What this asks of the
/// layers that use the channels: no MPI operation of theirs (a receive
/// posted into MPI, a request left to complete) may still be pending on
/// them when the last endpoint is freed; it would act on the next
/// communicator. (A message sent but not yet arrived when its receiver
/// freed the communicator, which a correct program does not leave, would
/// reach the next one too.) suites/comm/dup.cpp (recycled) guards the reuse.
///
/// A set remembers the communicator its last owner was made from
/// (made_from), and a creation offers first the sets made from its own
/// parent, then those whose parent is gone, never those of another live
/// communicator; each process then picks the first set of the first
/// process's offer that every process offered. So a program that makes and
/// frees the same communicators in turn finds its sets again, and two
/// creations under way in one process at once (sibling communicators made
/// by two leaders, from two parents) do not reserve each other's sets: when
/// the first took every set there was, the second made its MPI
/// communicators anew, at the same time as the first in every process, and
/// Open MPI 4.1 lets only one creation of a process advance at a time
/// (the nested kind of suites/comm/churn.cpp took 35-40 times plain MPI's
/// time on 2,2,2).
constexpr int kPoolOffers = 8;
/// (name, pool_key) pairs; a name of -1 offers nothing.
using PoolOffer = std::array<std::int64_t, 2 * kPoolOffers>;

struct PooledSet {
  std::int64_t name = -1;
  std::vector<int> world_ranks;  // the processes, in the order of mpi_comm
  MPI_Comm mpi_comm = MPI_COMM_NULL;
  std::vector<MPI_Comm> inbox;
  std::vector<MPI_Comm> bulk;
  // The largest endpoint count of a process it served: with the MPI's tag
  // bound, which is the same everywhere, it fixes the channel layout.
  int per_process = 0;
  // CommShared::made_from of its last owner: a preference of this process,
  // never compared across processes.
  MPI_Comm made_from = MPI_COMM_NULL;
};

/// What a set must match to serve a communicator: its processes (world
/// ranks, in order) and the largest endpoint count of a process, which fixes
/// the channels (ranks/tag_layout.hpp), hashed; never negative.
std::int64_t pool_key(const std::vector<int>& world_ranks, int per_process);
/// Reserves up to kPoolOffers pooled sets of this process for one creation
/// from the communicator whose MPI communicator is `parent` (null: none):
/// first the sets made from it, newest first, then those made from a
/// communicator no longer alive in this process.
PoolOffer reserve_offer(MPI_Comm parent = MPI_COMM_NULL);
/// The first name of offers.front() (in its order) that every one of
/// `offers` (one per process of the new communicator) holds with `key`,
/// other than those in `exclude`; -1 if none. A pure function of its
/// arguments: every process computes the same.
std::int64_t choose_pooled(const std::vector<const std::int64_t*>& offers, std::int64_t key,
                           const std::vector<std::int64_t>& exclude);
/// The same for offers of `lengths[i]` pairs each (a process that offered
/// more than once, concatenated).
std::int64_t choose_pooled(const std::vector<const std::int64_t*>& offers,
                           const std::vector<std::size_t>& lengths, std::int64_t key,
                           const std::vector<std::int64_t>& exclude);
/// Takes the chosen set (reserved by this process's offer) out of the pool;
/// nullopt if it is not there or does not rank `world_ranks` for
/// `per_process` endpoints per process (a hash collision: the caller fails
/// the creation).
std::optional<PooledSet> take_pooled(std::int64_t name, const std::vector<int>& world_ranks,
                                     int per_process);
/// Returns the sets of `offer` that were not taken to the pool.
void release_offer(const PoolOffer& offer);
/// The pool's side of a communicator's life (comm/pool.cpp): its MPI
/// communicator is live (a set made from it waits for its creations) and
/// gone; give_back moves a released communicator's MPI communicators into
/// the pool, false when they stay with `shared` to be freed.
void note_live(MPI_Comm c);
void note_gone(MPI_Comm c);
bool give_back(CommShared& shared);

/// What the processes of a new communicator agreed on before it is built:
/// this process's id for it, the communicator's name (pool_name of process
/// 0's world rank and id; -1: not agreed yet, build agrees on it with an
/// MPI_Bcast), and the pooled set to take over, if any.
/// `premade`, when not empty, holds this process's endpoints by local rank,
/// made ahead with their handles retired (Comm_idup gives the handles out
/// before the communicator exists: comm/idup.cpp); the build takes them
/// over and revives their handles once it succeeded.
struct Agreed {
  int id = 0;
  std::int64_t name = 0;
  std::optional<PooledSet> pooled;
  std::vector<Endpoint*> premade;
  MPI_Comm made_from = MPI_COMM_NULL;  // CommShared::made_from of the new one
};
/// `count` fresh process-wide communicator ids (CommShared::id): the first.
int draw_comm_ids(int count = 1);
/// The name of a communicator whose MPI rank 0 is `world_rank` with `id`.
inline std::int64_t pool_name(int world_rank, int id) {
  return static_cast<std::int64_t>(world_rank) << 32 | static_cast<std::uint32_t>(id);
}

/// For a new communicator over the processes of `comm`, in its order, with
/// at most `per_process` endpoints per process: one MPI_Allgather over `comm` of each process's id
/// for it, its pool offer and `extra` (the same length in every process),
/// which is also the collective every process enters before any creation
/// (make_channels in build.cpp). Fills `agreed` (made from `comm`);
/// `gathered_extra` gets every process's `extra`, by rank in `comm`.
/// Collective over `comm`.
int agree_over(MPI_Comm comm, const std::vector<int>& world_ranks, int per_process,
               const std::vector<std::int64_t>& extra, std::vector<std::int64_t>* gathered_extra,
               Agreed* agreed);

/// Builds this process's part of an endpoint communicator whose endpoints
/// are placed by `map` over the processes of `mpi_comm`, which it takes
/// over. Every process of `mpi_comm` must host at least one endpoint.
/// `identities` gives each rank's Endpoint::identity. The channels come from
/// `channels` and must rank the processes as `mpi_comm` does.
/// \note Collective over the processes of `mpi_comm`.
/// Returns an MPI error code; on error nothing is left allocated.
/// With `agreed`, the name needs no further exchange, and a pooled set in it
/// replaces `mpi_comm` (then MPI_COMM_NULL) and `channels`.
int build_comm(MPI_Comm mpi_comm, const ChannelSource& channels, RankMap map,
               std::vector<std::int64_t> identities, CommShared** out, std::string* why,
               Agreed* agreed = nullptr);

/// The same for an inter-communicator over its carrier (inter_map.hpp);
/// `identities` is indexed by union rank.
int build_inter(MPI_Comm carrier, const ChannelSource& channels, const InterLayout& layout,
                std::vector<std::int64_t> identities, CommShared** out, std::string* why,
                Agreed* agreed = nullptr);

/// Comm_free without its checks: retires one endpoint; the process's last
/// one releases the shared state (release_shared). Returns an MPI error code.
int free_endpoint(Endpoint* e);

/// Frees the endpoints of a communicator's process part, and its MPI
/// communicators or puts them in the pool. Everything is released even if
/// an MPI call fails; returns the first failure's MPI error code.
int release_shared(CommShared* shared);

}  // namespace ep::detail
