#include "table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "json_output.hpp"

namespace ep::inspect {

namespace {

struct Row {
  std::string host;
  int world = 0, mpi = 0, local = 0, group = -1, rank = 0, union_rank = -1, endpoint = -1;
  std::string name;
};

// The one name every endpoint gave the communicator, if they agree; else
// each row shows its own (names are per endpoint, Comm_set_name).
std::optional<std::string> common_name(const ordered_json& c) {
  const ordered_json& names = c["names"];
  for (const auto& n : names)
    if (n != names[0]) return std::nullopt;
  return names[0].get<std::string>();
}

std::string describe_origin(const ordered_json& c) {
  const ordered_json& o = c["origin"];
  if (o.contains("files")) return fmt::format("merged from {} file(s)", o["files"].size());
  std::string text =
      fmt::format("step {}: {}", o["step"].get<int>(), o["operation"].get<std::string>());
  if (o.contains("color")) text += fmt::format(" color {}", o["color"].get<int>());
  if (o.contains("parent") && o["parent"].is_string())
    text += fmt::format(" of {}", o["parent"].get<std::string>());
  return text;
}

std::vector<Row> rows_of(const ordered_json& c) {
  const bool inter = c["kind"] == "inter";
  const ordered_json& map = inter ? c["intercomm_rank_map"] : c["rank_map"];
  std::vector<Row> rows;
  int in_group[2] = {0, 0};  // union order lists each group's ranks in order
  for (const auto& e : map) {
    Row r;
    if (c.contains("names")) r.name = c["names"][rows.size()].get<std::string>();
    r.host = e["host"].get<std::string>();
    r.world = e["world_rank"].get<int>();
    r.mpi = e["mpi_rank"].get<int>();
    r.local = e["local_rank"].get<int>();
    if (inter) {
      r.group = e["group"].get<int>() == 1 ? 1 : 0;
      r.union_rank = e["rank"].get<int>();
      r.rank = in_group[r.group]++;
    } else {
      r.rank = e["rank"].get<int>();
    }
    if (c.contains("endpoints")) {
      const ordered_json& ids =
          inter ? c["endpoints"][static_cast<std::size_t>(r.group)] : c["endpoints"];
      if (static_cast<std::size_t>(r.rank) < ids.size())
        r.endpoint = ids[static_cast<std::size_t>(r.rank)].get<int>();
    }
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.host, a.world, a.local) < std::tie(b.host, b.world, b.local);
  });
  return rows;
}

void print_communicator(std::FILE* out, const ordered_json& c) {
  const bool inter = c["kind"] == "inter";
  const std::string sizes =
      inter ? fmt::format("groups of {} and {} ranks", c["groups"][0].size(), c["groups"][1].size())
            : fmt::format("{} rank{}", c["size"].get<int>(), c["size"].get<int>() == 1 ? "" : "s");
  const int processes = c["mpi_size"].get<int>();
  const bool named = c.contains("names");
  const std::optional<std::string> one_name = named ? common_name(c) : std::nullopt;
  const bool name_column = named && !one_name;
  fmt::print(out, "\n# {}{}: {}-communicator, {} on {} process{} ({})\n",
             c["communicator"].get<std::string>(),
             one_name ? fmt::format(" \"{}\"", *one_name) : std::string(),
             inter ? "inter" : "intra", sizes, processes, processes == 1 ? "" : "es",
             describe_origin(c));
  const std::vector<Row> rows = rows_of(c);
  std::size_t host_width = 4;
  for (const Row& r : rows) host_width = std::max(host_width, r.host.size());
  const bool endpoints = c.contains("endpoints");
  std::string header =
      fmt::format("{:<{}}  {:>5}  {:>3}  {:>5}", "host", host_width, "world", "mpi", "local");
  if (inter)
    header += fmt::format("  {:>5}  {:>4}  {:>5}", "group", "rank", "union");
  else
    header += fmt::format("  {:>4}", "rank");
  if (endpoints) header += fmt::format("  {:>8}", "endpoint");
  if (name_column) header += "  name";
  fmt::print(out, "{}\n", header);
  const Row* previous = nullptr;
  for (const Row& r : rows) {
    const bool new_host = !previous || previous->host != r.host;
    const bool new_process = new_host || previous->world != r.world;
    std::string line = fmt::format("{:<{}}  {:>5}  {:>3}  {:>5}", new_host ? r.host : "",
                                   host_width, new_process ? std::to_string(r.world) : "",
                                   new_process ? std::to_string(r.mpi) : "", r.local);
    if (inter)
      line += fmt::format("  {:>5}  {:>4}  {:>5}", r.group, r.rank, r.union_rank);
    else
      line += fmt::format("  {:>4}", r.rank);
    if (endpoints)
      line += fmt::format("  {:>8}", r.endpoint >= 0 ? std::to_string(r.endpoint) : "?");
    if (name_column) line += fmt::format("  \"{}\"", r.name);
    if (r.local == 0) line += "  leader";
    fmt::print(out, "{}\n", line);
    previous = &r;
  }
}

}  // namespace

void print_table(std::FILE* out, const ordered_json& merged) {
  const ordered_json& source = merged["source"];
  if (source["kind"] == "scenario") {
    std::string steps;
    for (const auto& s : source["steps"])
      steps += (steps.empty() ? "" : " then ") + s.get<std::string>();
    fmt::print(out, "ep-inspect: {} on {} process(es): {}\n", steps, source["processes"].get<int>(),
               tools::dump_json(source["endpoints_per_process"]));
  } else {
    fmt::print(out, "ep-inspect: {} file(s)\n", source["files"].size());
  }
  for (const auto& c : merged["communicators"]) print_communicator(out, c);
  if (merged.contains("check")) {
    const ordered_json& check = merged["check"];
    if (check["passed"].get<bool>()) {
      fmt::print(out, "\ncheck: passed ({} documents)\n", check["documents"].get<int>());
    } else {
      fmt::print(out, "\ncheck: FAILED ({} problem(s))\n", check["failures"].size());
      for (const auto& failure : check["failures"])
        fmt::print(out, "  {}\n", failure.get<std::string>());
    }
  }
  std::fflush(out);
}

}  // namespace ep::inspect
