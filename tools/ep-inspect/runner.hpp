// Running a scenario on libep: one thread per endpoint of this process, each
// walking the chain of steps on its own communicator, as an application
// would, and reporting what it got after every step.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "scenario.hpp"

namespace ep::inspect {

/// Runs every step of the scenario on this process's endpoints and returns
/// one report per endpoint and step it took part in:
///   {"step", "endpoint", "process", "local", "has_comm", and with a
///    communicator "rank", "size", "inter", "remote_size", and the
///    endpoint's ep::Comm_inspect document: "map", or "map_base" and
///    "map_patch" where another endpoint of the process holds it
///    (map_book.hpp; map_of puts it back together)}.
/// \note Collective over MPI_COMM_WORLD (every process calls it, also one
/// hosting no endpoint). A failing libep call aborts the job with a message:
/// the other endpoints would otherwise wait for this one forever.
nlohmann::json run_scenario(const Model& model, const std::vector<Step>& steps, int process);

/// Gathers every process's reports on world rank 0, in world rank order, with
/// plain MPI. Returns them there (flattened into one array), null elsewhere.
/// \note Collective over MPI_COMM_WORLD.
nlohmann::json gather_reports(const nlohmann::json& mine);

}  // namespace ep::inspect
