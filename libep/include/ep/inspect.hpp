// Rank maps as data, for people and tools (ep-inspect).
#pragma once

#include <ep/types.hpp>
#include <string>

namespace ep {

/// No MPI namesake: the rank maps of `comm` as a JSON document (schema
/// results/rank-map.schema.json of the libep repository): for every endpoint
/// its rank, hosting process (rank in the communicator's MPI communicator,
/// rank in MPI_COMM_WORLD, host name) and local rank; per process its
/// endpoint count and leader; for an inter-communicator the local, remote
/// and intercomm maps; `names`, once one of the process's endpoints has
/// named the communicator (Comm_set_name), lists each of them by local rank.
/// Local: it asks no other endpoint or process.
/// EP_INSPECT=DIR in the environment makes libep write every new
/// communicator's maps to DIR/<communicator>.w<world rank>.json, one file per
/// process (docs/environment.md), for `ep-inspect read DIR`; the file is
/// written again whenever one of the process's endpoints sets a name.
int Comm_inspect(Comm comm, std::string* json);

}  // namespace ep
