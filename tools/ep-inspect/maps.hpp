// Checks on libep's rank-map documents (results/rank-map.schema.json, what
// ep::Comm_inspect returns and EP_INSPECT dumps), independent of how they
// were obtained: their shape, the invariants of one document, and whether two
// processes' views of one communicator agree.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ep::inspect {

/// Failed checks, as precise sentences; empty means everything held.
struct Findings {
  std::vector<std::string> failures;
  int documents = 0;  // documents checked
  void fail(std::string message) { failures.push_back(std::move(message)); }
};

/// "" if `doc` has the shape of a libep-rank-map document, schema_version 1:
/// every field the checks read, with its type, and every number within what
/// the document allows (ranks below its size, mpi ranks below the number of
/// processes it lists, world ranks and sizes non-negative ints, groups 0 or
/// 1), so that the checks may index with them. Otherwise the first problem,
/// naming the field by its path and its value.
std::string shape_error(const nlohmann::json& doc);

/// The world rank and number of a communicator id "w<world rank>c<number>",
/// each an int; nothing if `id` is not one.
std::optional<std::pair<int, int>> parse_communicator_id(std::string_view id);

/// Whether `id` is a run id as libep writes it in a dump's "run":
/// "<yyyymmdd>T<hhmmss>Z-<16 lowercase hex digits>".
bool valid_run_id(std::string_view id);

/// The invariants of one document of the right shape: ranks 0..size-1 each
/// once and in order; every endpoint's process exists and its world rank and
/// host are that process's; local ranks 0..n-1 on each process, n being the
/// process's endpoint count; each process's leader is its local rank 0; for
/// an inter-communicator each group's map is the union map's entries of that
/// group in order; the viewer's own maps are its group's. `where` starts
/// every message.
void check_document(const nlohmann::json& doc, const std::string& where, Findings& f);

/// What every process sees alike: the document without its viewer and the
/// viewer's local and remote maps.
nlohmann::json common_part(const nlohmann::json& doc);

/// Where `b` first differs from `a`, as "at /rank_map/2/mpi_rank: 0 vs 1"
/// (a's value, then b's), or "" if they are equal.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b);

/// The name of the map that places a document's endpoints: "rank_map" or
/// "intercomm_rank_map".
const char* main_map(const nlohmann::json& doc);

}  // namespace ep::inspect
