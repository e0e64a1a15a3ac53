#include "maps.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace ep::inspect {

namespace {

using json = nlohmann::json;

bool is_int(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number_integer();
}
bool is_string(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string();
}

// "" or what is wrong with `entries` as a map whose entries carry `fields`.
std::string entries_shape(const json& doc, const char* name,
                          std::initializer_list<const char*> fields) {
  if (!doc.contains(name) || !doc[name].is_array())
    return fmt::format("'{}' is not an array", name);
  for (std::size_t i = 0; i < doc[name].size(); ++i) {
    const json& entry = doc[name][i];
    for (const char* field : fields) {
      const bool ok =
          std::string_view(field) == "host" ? is_string(entry, field) : is_int(entry, field);
      if (!ok)
        return fmt::format("{}[{}] lacks an {} '{}'", name, i,
                           std::string_view(field) == "host" ? "string" : "integer", field);
    }
  }
  return "";
}

constexpr std::initializer_list<const char*> entry_fields{"rank", "mpi_rank", "world_rank", "host",
                                                          "local_rank"};

std::string describe_location(const json& e) {
  return fmt::format("mpi rank {} (world rank {}), local rank {}", e["mpi_rank"].get<int>(),
                     e["world_rank"].get<int>(), e["local_rank"].get<int>());
}

// Ranks in order, each entry on an existing process with that process's
// world rank and host. Returns false if an entry is too broken to go on.
bool check_entries(const json& entries, const json& processes, const std::string& where,
                   const char* name, Findings& f) {
  bool usable = true;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    if (e["rank"].get<int>() != static_cast<int>(i))
      f.fail(fmt::format("{}: {}[{}] has rank {}: ranks must run 0..{} in order, each once", where,
                         name, i, e["rank"].get<int>(), entries.size() - 1));
    const int p = e["mpi_rank"].get<int>();
    if (p < 0 || p >= static_cast<int>(processes.size())) {
      f.fail(fmt::format("{}: {}[{}] is on mpi rank {}, but the communicator has {} processes",
                         where, name, i, p, processes.size()));
      usable = false;
      continue;
    }
    const json& proc = processes[static_cast<std::size_t>(p)];
    if (e["world_rank"] != proc["world_rank"] || e["host"] != proc["host"])
      f.fail(
          fmt::format("{}: {}[{}] says mpi rank {} is world rank {} on '{}', but processes[{}] "
                      "says world rank {} on '{}'",
                      where, name, i, p, e["world_rank"].get<int>(), e["host"].get<std::string>(),
                      p, proc["world_rank"].get<int>(), proc["host"].get<std::string>()));
  }
  return usable;
}

// Local ranks 0..n-1 on every process, n its endpoint count, one endpoint
// each; the leader is local rank 0.
void check_locals(const json& entries, const json& processes, const std::string& where,
                  const char* name, Findings& f) {
  std::vector<std::map<int, int>> by_process(processes.size());  // local rank -> rank
  for (const json& e : entries) {
    auto& locals = by_process[e["mpi_rank"].get<std::size_t>()];
    const int local = e["local_rank"].get<int>();
    const auto [it, fresh] = locals.emplace(local, e["rank"].get<int>());
    if (!fresh)
      f.fail(fmt::format("{}: {} ranks {} and {} are both local rank {} of mpi rank {}", where,
                         name, it->second, e["rank"].get<int>(), local, e["mpi_rank"].get<int>()));
  }
  for (std::size_t p = 0; p < processes.size(); ++p) {
    const auto& locals = by_process[p];
    const int count = processes[p]["endpoints"].get<int>();
    if (static_cast<int>(locals.size()) != count)
      f.fail(fmt::format("{}: processes[{}] hosts {} endpoints, but {} places {} there", where, p,
                         count, name, locals.size()));
    int expected = 0;
    for (const auto& [local, rank] : locals) {
      if (local != expected++) {
        f.fail(
            fmt::format("{}: the local ranks of mpi rank {} are not 0..{} (rank {} has local "
                        "rank {})",
                        where, p, locals.size() - 1, rank, local));
        break;
      }
    }
    const int leader = locals.count(0) ? locals.at(0) : -1;
    if (processes[p]["leader"].get<int>() != leader)
      f.fail(
          fmt::format("{}: processes[{}] names rank {} its leader, but its local rank 0 is "
                      "rank {}",
                      where, p, processes[p]["leader"].get<int>(), leader));
  }
}

bool same_location(const json& a, const json& b) {
  for (const char* key : {"mpi_rank", "world_rank", "host", "local_rank"})
    if (a[key] != b[key]) return false;
  return true;
}

void check_groups(const json& doc, const std::string& where, Findings& f) {
  const json& all = doc["intercomm_rank_map"];
  const json& groups = doc["groups"];
  for (int g = 0; g < 2; ++g) {
    std::vector<const json*> expected;
    for (const json& e : all)
      if (e["group"].get<int>() == g) expected.push_back(&e);
    const json& group = groups[static_cast<std::size_t>(g)];
    const std::string name = fmt::format("groups[{}]", g);
    if (!check_entries(group, doc["processes"], where, name.c_str(), f)) continue;
    if (group.size() != expected.size()) {
      f.fail(fmt::format("{}: groups[{}] has {} ranks, but intercomm_rank_map has {} of group {}",
                         where, g, group.size(), expected.size(), g));
      continue;
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!same_location(group[i], *expected[i]))
        f.fail(
            fmt::format("{}: groups[{}][{}] is {}, but the group's rank {} in "
                        "intercomm_rank_map (union rank {}) is {}",
                        where, g, i, describe_location(group[i]), i,
                        (*expected[i])["rank"].get<int>(), describe_location(*expected[i])));
    }
  }
  for (const json& e : all) {
    const int g = e["group"].get<int>();
    if (g != 0 && g != 1)
      f.fail(fmt::format("{}: intercomm_rank_map[{}] is in group {}; groups are 0 and 1", where,
                         e["rank"].get<int>(), g));
  }
}

void check_viewer(const json& doc, const std::string& where, Findings& f) {
  const json& viewer = doc["viewer"];
  const json& processes = doc["processes"];
  const int p = viewer["mpi_rank"].get<int>();
  if (p < 0 || p >= static_cast<int>(processes.size())) {
    f.fail(fmt::format("{}: the viewer is mpi rank {}, but the communicator has {} processes",
                       where, p, processes.size()));
    return;
  }
  if (viewer["world_rank"] != processes[static_cast<std::size_t>(p)]["world_rank"])
    f.fail(fmt::format("{}: the viewer is world rank {}, but processes[{}] is world rank {}", where,
                       viewer["world_rank"].get<int>(), p,
                       processes[static_cast<std::size_t>(p)]["world_rank"].get<int>()));
  if (!is_int(viewer, "rank")) return;  // an EP_INSPECT dump: a process, not an endpoint
  const int rank = viewer["rank"].get<int>();
  const bool inter = doc["kind"] == "inter";
  const json* local = &doc["rank_map"];
  if (inter) {
    const int g = is_int(viewer, "group") ? viewer["group"].get<int>() : -1;
    if (g != 0 && g != 1) {
      f.fail(fmt::format("{}: the viewer of an inter-communicator has no group 0 or 1", where));
      return;
    }
    if (doc["local_rank_map"] != doc["groups"][static_cast<std::size_t>(g)] ||
        doc["remote_rank_map"] != doc["groups"][static_cast<std::size_t>(1 - g)])
      f.fail(
          fmt::format("{}: the viewer is in group {}, but local_rank_map and remote_rank_map "
                      "are not groups[{}] and groups[{}]",
                      where, g, g, 1 - g));
    local = &doc["local_rank_map"];
  }
  if (rank < 0 || rank >= static_cast<int>(local->size())) {
    f.fail(
        fmt::format("{}: the viewer has rank {}, outside 0..{}", where, rank, local->size() - 1));
    return;
  }
  if ((*local)[static_cast<std::size_t>(rank)]["mpi_rank"].get<int>() != p)
    f.fail(fmt::format(
        "{}: the viewer is rank {} on mpi rank {}, but the map puts rank {} on mpi "
        "rank {}",
        where, rank, p, rank, (*local)[static_cast<std::size_t>(rank)]["mpi_rank"].get<int>()));
}

}  // namespace

const char* main_map(const json& doc) {
  return doc.value("kind", "") == "inter" ? "intercomm_rank_map" : "rank_map";
}

std::string shape_error(const json& doc) {
  if (!doc.is_object()) return "not a JSON object";
  if (doc.value("schema", "") != "libep-rank-map")
    return "'schema' is not \"libep-rank-map\" (not a libep rank-map document)";
  if (!is_int(doc, "schema_version") || doc["schema_version"] != 1)
    return "'schema_version' is not 1 (this ep-inspect reads version 1)";
  if (!is_string(doc, "communicator")) return "no string 'communicator'";
  const std::string kind = doc.value("kind", "");
  if (kind != "intra" && kind != "inter") return "'kind' is neither \"intra\" nor \"inter\"";
  for (const char* key : {"mpi_size", "size"})
    if (!is_int(doc, key)) return fmt::format("no integer '{}'", key);
  if (!doc.contains("viewer") || !is_int(doc["viewer"], "mpi_rank") ||
      !is_int(doc["viewer"], "world_rank"))
    return "'viewer' lacks an integer mpi_rank or world_rank";
  if (!doc.contains("processes") || !doc["processes"].is_array())
    return "'processes' is not an array";
  for (std::size_t p = 0; p < doc["processes"].size(); ++p) {
    const json& proc = doc["processes"][p];
    for (const char* key : {"mpi_rank", "world_rank", "endpoints", "leader"})
      if (!is_int(proc, key)) return fmt::format("processes[{}] lacks an integer '{}'", p, key);
    if (!is_string(proc, "host")) return fmt::format("processes[{}] lacks a string 'host'", p);
  }
  if (kind == "intra") return entries_shape(doc, "rank_map", entry_fields);
  if (auto e = entries_shape(doc, "intercomm_rank_map",
                             {"rank", "mpi_rank", "world_rank", "host", "local_rank", "group"});
      !e.empty())
    return e;
  if (!doc.contains("groups") || !doc["groups"].is_array() || doc["groups"].size() != 2)
    return "'groups' is not an array of two maps";
  for (int g = 0; g < 2; ++g) {
    const json wrapped = {{"group", doc["groups"][static_cast<std::size_t>(g)]}};
    if (auto e = entries_shape(wrapped, "group", entry_fields); !e.empty())
      return fmt::format("groups[{}]: {}", g, e);
  }
  if (is_int(doc["viewer"], "rank")) {
    for (const char* name : {"local_rank_map", "remote_rank_map"})
      if (auto e = entries_shape(doc, name, entry_fields); !e.empty()) return e;
  }
  return "";
}

void check_document(const json& doc, const std::string& where, Findings& f) {
  ++f.documents;
  const json& processes = doc["processes"];
  if (doc["mpi_size"].get<std::size_t>() != processes.size())
    f.fail(fmt::format("{}: mpi_size is {}, but 'processes' lists {}", where,
                       doc["mpi_size"].get<int>(), processes.size()));
  for (std::size_t p = 0; p < processes.size(); ++p) {
    if (processes[p]["mpi_rank"].get<std::size_t>() != p)
      f.fail(fmt::format("{}: processes[{}] has mpi_rank {}", where, p,
                         processes[p]["mpi_rank"].get<int>()));
  }
  const char* name = main_map(doc);
  const json& map = doc[name];
  if (doc["size"].get<std::size_t>() != map.size())
    f.fail(fmt::format("{}: size is {}, but {} has {} entries", where, doc["size"].get<int>(), name,
                       map.size()));
  if (!check_entries(map, processes, where, name, f)) return;
  check_locals(map, processes, where, name, f);
  if (doc["kind"] == "inter") check_groups(doc, where, f);
  check_viewer(doc, where, f);
}

json common_part(const json& doc) {
  json common = doc;
  for (const char* key : {"viewer", "local_rank_map", "remote_rank_map"}) common.erase(key);
  return common;
}

std::string first_difference(const json& a, const json& b) {
  const json patch = json::diff(a, b);
  if (patch.empty()) return "";
  const json& op = patch.front();
  const std::string path = op.value("path", "");
  const json::json_pointer pointer(path);
  const auto show = [&](const json& doc) {
    return doc.contains(pointer) ? doc.at(pointer).dump() : std::string("nothing");
  };
  return fmt::format("at {}: {} vs {}", path.empty() ? "/" : path, show(a), show(b));
}

}  // namespace ep::inspect
