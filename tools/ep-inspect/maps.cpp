#include "maps.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

#include "json_output.hpp"

namespace ep::inspect {

namespace {

using json = nlohmann::json;

bool is_int(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number_integer();
}

// The shape of a document, every number included: each is an integer
// within what the document itself allows (a rank below its size, an mpi rank
// below its process count, ...), so that the checks and the output can index
// with it and convert it to int. The first problem found is kept, naming the
// field by its path and its value.
class ShapeCheck {
 public:
  explicit ShapeCheck(const json& doc) : doc_(doc) {}

  std::string run();

 private:
  // A required integer `o[key]` within lo..hi; `why` says what bounds it.
  bool integer(const json& o, const std::string& path, const char* key, std::int64_t lo,
               std::int64_t hi, std::string_view why = "") {
    if (!error_.empty()) return false;
    const std::string field = path.empty() ? key : fmt::format("{}.{}", path, key);
    if (!o.is_object() || !o.contains(key)) return fail(fmt::format("'{}' is missing", field));
    const json& v = o[key];
    bool in_range = false;
    if (v.is_number_unsigned()) {  // how JSON's non-negative integers are held, up to 2^64-1
      const auto u = v.get<std::uint64_t>();
      in_range =
          hi >= 0 && u <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(u) >= lo;
    } else if (v.is_number_integer()) {
      const auto x = v.get<std::int64_t>();
      in_range = x >= lo && x <= hi;
    }
    if (in_range) return true;
    if (lo > hi)  // nothing is valid: the bound comes from an empty list
      return fail(fmt::format("'{}' is {}, but {}", field, tools::dump_json(v), why));
    return fail(fmt::format("'{}' is {}; expected an integer {}..{}{}", field, tools::dump_json(v),
                            lo, hi, why.empty() ? std::string() : fmt::format(" ({})", why)));
  }
  bool string(const json& o, const std::string& path, const char* key) {
    if (!error_.empty()) return false;
    if (o.is_object() && o.contains(key) && o[key].is_string()) return true;
    return fail(fmt::format("'{}.{}' is not a string", path, key));
  }
  bool fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  void entries(const std::string& name, const json& map, bool grouped);
  std::string sizes() const { return fmt::format("size is {}", size_); }
  std::string listed() const {
    return fmt::format("the document lists {} process{}", processes_, processes_ == 1 ? "" : "es");
  }
  static constexpr std::string_view two_groups = "an inter-communicator has groups 0 and 1";

  const json& doc_;
  std::string error_;
  std::int64_t size_ = 0;       // the document's size
  std::int64_t processes_ = 0;  // entries of 'processes'
};

constexpr std::int64_t int_max = std::numeric_limits<int>::max();

void ShapeCheck::entries(const std::string& name, const json& map, bool grouped) {
  if (!map.is_array()) {
    fail(fmt::format("'{}' is not an array", name));
    return;
  }
  for (std::size_t i = 0; i < map.size() && error_.empty(); ++i) {
    const json& e = map[i];
    const std::string path = fmt::format("{}[{}]", name, i);
    if (!e.is_object()) {
      fail(fmt::format("'{}' is not an object", path));
      return;
    }
    integer(e, path, "rank", 0, size_ - 1, sizes());
    integer(e, path, "mpi_rank", 0, processes_ - 1, listed());
    integer(e, path, "world_rank", 0, int_max);
    string(e, path, "host");
    integer(e, path, "local_rank", 0, size_ - 1, sizes());
    if (grouped) integer(e, path, "group", 0, 1, two_groups);
  }
}

std::string ShapeCheck::run() {
  const json& doc = doc_;
  if (!doc.is_object()) return "not a JSON object";
  // json::value would throw for a key of another type: compare the values.
  if (!doc.contains("schema") || doc["schema"] != "libep-rank-map")
    return "'schema' is not \"libep-rank-map\" (not a libep rank-map document)";
  if (!is_int(doc, "schema_version") || doc["schema_version"] != 1)
    return "'schema_version' is not 1 (this ep-inspect reads version 1)";
  if (!doc.contains("communicator") || !doc["communicator"].is_string())
    return "no string 'communicator'";
  if (!parse_communicator_id(doc["communicator"].get<std::string>()))
    return fmt::format("'communicator' is {}; expected w<world rank>c<number> (e.g. \"w0c3\")",
                       tools::dump_json(doc["communicator"]));
  // Optional (dumps before run ids have none); runs.cpp groups files by it.
  if (doc.contains("run") &&
      !(doc["run"].is_string() && valid_run_id(doc["run"].get<std::string>())))
    return fmt::format("'run' is {}; expected <yyyymmdd>T<hhmmss>Z-<16 hex digits>",
                       tools::dump_json(doc["run"]).substr(0, 80));
  const std::string kind = doc.contains("kind") && doc["kind"].is_string() ? doc["kind"] : "";
  if (kind != "intra" && kind != "inter") return "'kind' is neither \"intra\" nor \"inter\"";
  integer(doc, "", "mpi_size", 1, int_max);
  integer(doc, "", "size", 1, int_max);
  if (!error_.empty()) return error_;
  size_ = doc["size"].get<std::int64_t>();
  if (!doc.contains("processes") || !doc["processes"].is_array())
    return "'processes' is not an array";
  processes_ = static_cast<std::int64_t>(doc["processes"].size());
  for (std::size_t p = 0; p < doc["processes"].size() && error_.empty(); ++p) {
    const json& proc = doc["processes"][p];
    const std::string path = fmt::format("processes[{}]", p);
    if (!proc.is_object()) return fmt::format("'{}' is not an object", path);
    integer(proc, path, "mpi_rank", 0, processes_ - 1, listed());
    integer(proc, path, "world_rank", 0, int_max);
    string(proc, path, "host");
    integer(proc, path, "endpoints", 0, size_, sizes());
    integer(proc, path, "leader", -1, size_ - 1, "-1 for none, else a rank; " + sizes());
  }
  if (!doc.contains("viewer") || !doc["viewer"].is_object()) return "'viewer' is not an object";
  const json& viewer = doc["viewer"];
  integer(viewer, "viewer", "mpi_rank", 0, processes_ - 1, listed());
  integer(viewer, "viewer", "world_rank", 0, int_max);
  // Only ep::Comm_inspect's documents name the viewing endpoint.
  if (viewer.contains("rank")) integer(viewer, "viewer", "rank", 0, size_ - 1, sizes());
  if (viewer.contains("group")) integer(viewer, "viewer", "group", 0, 1, two_groups);
  // Optional (documents before Comm_set_name have none): one string per
  // endpoint of the viewing process.
  if (error_.empty() && doc.contains("names")) {
    const json& names = doc["names"];
    if (!names.is_array() || static_cast<std::int64_t>(names.size()) > size_)
      return fmt::format("'names' is not an array of at most {} names ({})", size_, sizes());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!names[i].is_string()) return fmt::format("'names[{}]' is not a string", i);
  }
  if (kind == "intra") {
    if (!error_.empty()) return error_;
    if (!doc.contains("rank_map")) return "'rank_map' is missing";
    entries("rank_map", doc["rank_map"], false);
    return error_;
  }
  if (!error_.empty()) return error_;
  if (!doc.contains("intercomm_rank_map")) return "'intercomm_rank_map' is missing";
  entries("intercomm_rank_map", doc["intercomm_rank_map"], true);
  if (!error_.empty()) return error_;
  if (!doc.contains("groups") || !doc["groups"].is_array() || doc["groups"].size() != 2)
    return "'groups' is not an array of two maps";
  for (std::size_t g = 0; g < 2; ++g)
    entries(fmt::format("groups[{}]", g), doc["groups"][g], false);
  if (viewer.contains("rank")) {
    for (const char* name : {"local_rank_map", "remote_rank_map"}) {
      if (!error_.empty()) break;
      if (!doc.contains(name)) return fmt::format("'{}' is missing", name);
      entries(name, doc[name], false);
    }
  }
  return error_;
}

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

std::optional<std::pair<int, int>> parse_communicator_id(std::string_view id) {
  // Digits, at most INT_MAX, after `prefix`; advances `id` past them.
  const auto number = [&id](char prefix) -> std::optional<int> {
    if (id.empty() || id.front() != prefix) return std::nullopt;
    id.remove_prefix(1);
    std::int64_t value = 0;
    std::size_t digits = 0;
    while (digits < id.size() && std::isdigit(static_cast<unsigned char>(id[digits]))) {
      value = value * 10 + (id[digits] - '0');
      if (value > std::numeric_limits<int>::max()) return std::nullopt;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
    id.remove_prefix(digits);
    return static_cast<int>(value);
  };
  const auto world = number('w');
  if (!world) return std::nullopt;
  const auto count = number('c');
  if (!count || !id.empty()) return std::nullopt;
  return std::pair{*world, *count};
}

const char* main_map(const json& doc) {
  return doc.value("kind", "") == "inter" ? "intercomm_rank_map" : "rank_map";
}

bool valid_run_id(std::string_view id) {
  // 20261126T094624Z-5f0c9e2a6b3d1847, as libep/src/comm/inspect.cpp writes it.
  constexpr std::string_view shape = "ddddddddTddddddZ-hhhhhhhhhhhhhhhh";
  if (id.size() != shape.size()) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    const bool hex = std::isdigit(c) || (c >= 'a' && c <= 'f');
    if (shape[i] == 'd' ? !std::isdigit(c) : shape[i] == 'h' ? !hex : id[i] != shape[i])
      return false;
  }
  return true;
}

std::string shape_error(const json& doc) { return ShapeCheck(doc).run(); }

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
  // Names are the viewing process's endpoints' own: processes differ in them.
  for (const char* key : {"viewer", "local_rank_map", "remote_rank_map", "names"})
    common.erase(key);
  return common;
}

std::string first_difference(const json& a, const json& b) {
  const json patch = json::diff(a, b);
  if (patch.empty()) return "";
  const json& op = patch.front();
  const std::string path = op.value("path", "");
  const json::json_pointer pointer(path);
  const auto show = [&](const json& doc) {
    return doc.contains(pointer) ? tools::dump_json(doc.at(pointer)) : std::string("nothing");
  };
  return fmt::format("at {}: {} vs {}", path.empty() ? "/" : path, show(a), show(b));
}

}  // namespace ep::inspect
