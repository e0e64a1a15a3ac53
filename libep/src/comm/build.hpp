// Making and releasing a process's part of an endpoint communicator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "object/endpoint.hpp"
#include "ranks/rank_map.hpp"

namespace ep::detail {

/// Where a communicator's channels (CommShared::inbox and bulk) come from:
/// the same MPI call that made its MPI communicator, repeated on the same
/// communicator: MPI_Comm_dup(from) when `group` is MPI_GROUP_NULL, else
/// MPI_Comm_create_group(from, group, tag). Never a call on the new
/// communicator itself; build.cpp says why.
struct ChannelSource {
  MPI_Comm from = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  int tag = 0;
};

/// Builds this process's part of an endpoint communicator whose endpoints
/// are placed by `map` over the processes of `mpi_comm`, which it takes
/// over. Every process of `mpi_comm` must host at least one endpoint.
/// `identities` gives each rank's Endpoint::identity. The channels come from
/// `channels` and must rank the processes as `mpi_comm` does.
/// \note Collective over the processes of `mpi_comm`.
/// Returns an MPI error code; on error nothing is left allocated.
int build_comm(MPI_Comm mpi_comm, const ChannelSource& channels, RankMap map,
               std::vector<std::int64_t> identities, CommShared** out, std::string* why);

/// The same for an inter-communicator over its carrier (inter_map.hpp);
/// `identities` is indexed by union rank.
int build_inter(MPI_Comm carrier, const ChannelSource& channels, const InterLayout& layout,
                std::vector<std::int64_t> identities, CommShared** out, std::string* why);

/// Comm_free without its checks: retires one endpoint; the process's last
/// one releases the shared state (release_shared). Returns an MPI error code.
int free_endpoint(Endpoint* e);

/// Frees the MPI communicators and endpoints of a communicator's process
/// part. Everything is released even if an MPI call fails; returns the
/// first failure's MPI error code.
int release_shared(CommShared* shared);

}  // namespace ep::detail
