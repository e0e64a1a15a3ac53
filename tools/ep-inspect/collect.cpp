#include "collect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "json_output.hpp"

namespace ep::inspect {

namespace {

using json = nlohmann::json;

// Communicator ids are "w<world rank>c<number>"; order them by those numbers
// so that w0c10 follows w0c9.
std::tuple<long, long, std::string> id_order(const std::string& id) {
  const auto parsed = parse_communicator_id(id);
  if (!parsed) return {-1, -1, id};
  return {parsed->first, parsed->second, id};
}

ordered_json ordered_map_entries(const json& entries) {
  ordered_json out = ordered_json::array();
  for (const json& e : entries) out.push_back(ordered_entry(e));
  return out;
}

}  // namespace

ordered_json ordered_entry(const json& entry) {
  static const char* const order[] = {"rank", "group",     "mpi_rank", "world_rank",
                                      "host", "endpoints", "leader",   "local_rank"};
  ordered_json out = ordered_json::object();
  for (const char* key : order)
    if (entry.contains(key)) out[key] = entry[key];
  for (const auto& [key, value] : entry.items())
    if (!out.contains(key)) out[key] = value;
  return out;
}

ordered_json communicator_entry(const json& common, const ordered_json& extra) {
  ordered_json out = ordered_json::object();
  for (const char* key : {"communicator", "kind", "size", "mpi_size"}) out[key] = common[key];
  for (const auto& [key, value] : extra.items()) out[key] = value;
  out["processes"] = ordered_map_entries(common["processes"]);
  if (common["kind"] == "inter") {
    out["intercomm_rank_map"] = ordered_map_entries(common["intercomm_rank_map"]);
    out["groups"] = {ordered_map_entries(common["groups"][0]),
                     ordered_map_entries(common["groups"][1])};
  } else {
    out["rank_map"] = ordered_map_entries(common["rank_map"]);
  }
  return out;
}

namespace {

// The checks of one communicator's views: each document, their agreement,
// and a view from every process of the communicator (a missing one means the
// dump is incomplete, or the processes disagree on who is in it).
void check_views(const std::string& id, const std::vector<const Dump*>& views, const json& common,
                 Findings& f) {
  std::string ranks;
  for (const Dump* d : views) {
    check_document(d->doc, fmt::format("{} ({})", id, d->file), f);
    if (const std::string diff = first_difference(common, common_part(d->doc)); !diff.empty())
      f.fail(fmt::format("{}: the views of {} and {} differ {}", id, views.front()->file, d->file,
                         diff));
    ranks += (ranks.empty() ? "" : ", ") + tools::dump_json(d->doc["viewer"]["mpi_rank"]);
  }
  for (const json& proc : common["processes"]) {
    const bool found = std::any_of(views.begin(), views.end(), [&](const Dump* d) {
      return d->doc["viewer"]["mpi_rank"] == proc["mpi_rank"];
    });
    if (!found)
      f.fail(
          fmt::format("{}: no view from its mpi rank {} (world rank {}); the files hold views "
                      "of mpi ranks {}",
                      id, proc["mpi_rank"].get<int>(), proc["world_rank"].get<int>(), ranks));
  }
}

// Every endpoint's name, by position in the main map, gathered from the
// views (each names its own process's endpoints by local rank); null when no
// endpoint has one.
ordered_json names_by_rank(const json& common, const std::vector<const Dump*>& views) {
  const json& map = common[main_map(common)];
  std::vector<std::string> names(map.size());
  bool any = false;
  for (const Dump* d : views) {
    if (!d->doc.contains("names")) continue;
    const json& mine = d->doc["names"];
    const json& process = d->doc["viewer"]["mpi_rank"];
    for (std::size_t i = 0; i < map.size(); ++i) {
      if (map[i]["mpi_rank"] != process) continue;
      const auto local = map[i]["local_rank"].get<std::size_t>();
      if (local < mine.size() && !mine[local].get<std::string>().empty()) {
        names[i] = mine[local].get<std::string>();
        any = true;
      }
    }
  }
  return any ? ordered_json(names) : ordered_json();
}

}  // namespace

ordered_json merge_dumps(const std::vector<Dump>& dumps, bool check, Findings& f) {
  std::map<std::tuple<long, long, std::string>, std::vector<const Dump*>> by_comm;
  for (const Dump& d : dumps) {
    if (const std::string why = shape_error(d.doc); !why.empty()) {
      f.fail(fmt::format("{}: {}", d.file, why));
      continue;
    }
    by_comm[id_order(d.doc["communicator"].get<std::string>())].push_back(&d);
  }
  ordered_json communicators = ordered_json::array();
  for (auto& entry : by_comm) {
    const std::string& id = std::get<2>(entry.first);
    std::vector<const Dump*>& views = entry.second;
    std::stable_sort(views.begin(), views.end(), [](const Dump* a, const Dump* b) {
      return a->doc["viewer"]["mpi_rank"].get<int>() < b->doc["viewer"]["mpi_rank"].get<int>();
    });
    const json common = common_part(views.front()->doc);
    ordered_json files = ordered_json::array();
    for (const Dump* d : views) files.push_back(d->file);
    if (check) check_views(id, views, common, f);
    ordered_json extra = {{"origin", {{"files", files}}},
                          {"views", static_cast<int>(views.size())}};
    if (ordered_json names = names_by_rank(common, views); !names.is_null())
      extra["names"] = std::move(names);
    communicators.push_back(communicator_entry(common, extra));
  }
  ordered_json files = ordered_json::array();
  for (const Dump& d : dumps) files.push_back(d.file);
  return {{"schema", "ep-inspect"},
          {"schema_version", 1},
          {"source", {{"kind", "dumps"}, {"files", files}}},
          {"communicators", communicators}};
}

void add_check_result(ordered_json& merged, const Findings& f) {
  merged["check"] = {
      {"passed", f.failures.empty()}, {"documents", f.documents}, {"failures", f.failures}};
}

}  // namespace ep::inspect
