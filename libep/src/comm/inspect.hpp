// Rank maps as data: what ep::Comm_inspect returns and EP_INSPECT dumps.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "object/endpoint.hpp"

namespace ep::detail {

/// The JSON document (schema results/rank-map.schema.json) describing the
/// communicator of `viewer` as its process sees it.
std::string rank_maps_json(const Endpoint& viewer);

/// Writes this process's view of a communicator to $EP_INSPECT/ if that
/// environment variable names a directory; otherwise does nothing. Called
/// when the communicator is made and again whenever one of the process's
/// endpoints names it (the file is replaced).
void dump_if_requested(const CommShared& shared);

/// What names a run in EP_INSPECT dumps, so that ep-inspect tells apart the
/// dumps of runs that reused a directory: 64 random bits and the time they
/// were drawn. Every process takes it from the first Comm_create_endpoints
/// it joins, from that call's lowest parent rank that has one already, or
/// else from its parent rank 0 (comm/create.cpp), so every process of a
/// run shares it as long as its first endpoint communicators are created
/// over communicators that overlap, as they are over MPI_COMM_WORLD.
struct RunId {
  bool known = false;        // false: a fresh candidate, not yet this process's
  std::int64_t started = 0;  // seconds since the epoch (UTC)
  std::uint64_t random = 0;
};

/// This process's run id, or a fresh candidate if it has none yet.
RunId run_candidate();

/// Makes `run` this process's run id unless it has one already.
void adopt_run(const RunId& run);

/// A RunId as MPI_INTs, for the exchange of Comm_create_endpoints.
constexpr int run_ints = 5;
std::array<int, run_ints> run_to_ints(const RunId& run);
RunId run_from_ints(const int* ints);

/// Remembers the host name of a world rank (learned at endpoint creation).
void remember_host(int world_rank, std::string host);

}  // namespace ep::detail
