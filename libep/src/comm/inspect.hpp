// Rank maps as data: what ep::Comm_inspect returns and EP_INSPECT dumps.
#pragma once

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

/// Remembers the host name of a world rank (learned at endpoint creation).
void remember_host(int world_rank, std::string host);

}  // namespace ep::detail
