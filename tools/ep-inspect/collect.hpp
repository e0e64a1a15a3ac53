// From many documents to one: ep-inspect's merged output (schema
// "ep-inspect", results/rank-map.schema.json). Each process, and each
// endpoint, sees a communicator from where it stands; the merged document
// lists every communicator once, with the part of its maps that every view
// shares, and says where it came from.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "maps.hpp"
#include "scenario.hpp"

namespace ep::inspect {

using ordered_json = nlohmann::ordered_json;

/// One file written by EP_INSPECT (or saved ep::Comm_inspect output).
struct Dump {
  std::string file;
  nlohmann::json doc;
};

/// Merges the views of each communicator found in `dumps`; documents that
/// are not rank maps are reported in `f` and left out. With `check`, checks
/// every document, that the views of each communicator agree, and that every
/// process of each communicator left one.
ordered_json merge_dumps(const std::vector<Dump>& dumps, bool check, Findings& f);

/// Merges the endpoints' reports of a scenario run (see runner.hpp). With
/// `check`, also holds every communicator against the model: which endpoints
/// it has, in which rank order, with which sizes.
ordered_json merge_scenario(const Model& model, const std::vector<Step>& steps,
                            const nlohmann::json& reports, bool check, Findings& f);

/// Adds the verdict of --check to a merged document.
void add_check_result(ordered_json& merged, const Findings& f);

/// The fields of a map entry or process in a fixed, readable order.
ordered_json ordered_entry(const nlohmann::json& entry);

/// The common part of a communicator's document, keys in a readable order,
/// followed by `extra` (origin, endpoints, views).
ordered_json communicator_entry(const nlohmann::json& common, const ordered_json& extra);

}  // namespace ep::inspect
