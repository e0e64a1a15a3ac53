#include "runs.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <ctime>
#include <map>
#include <set>
#include <utility>

#include "maps.hpp"

namespace ep::inspect {

namespace {

using json = nlohmann::json;

// A file and when it was written, which tells the user which run is older.
std::string described(const Dump& d) {
  struct stat st {};
  if (::stat(d.file.c_str(), &st) != 0) return d.file;
  std::tm local{};
  if (!::localtime_r(&st.st_mtime, &local)) return d.file;
  return fmt::format("{} (written {:%Y-%m-%d %H:%M:%S})", d.file, local);
}

// libep's name for a host it did not learn: a process knows the hosts of
// the processes it created endpoints with, so views of one communicator of
// one run may differ in them (an inter-communicator between two separately
// created groups).
constexpr std::string_view unknown_host = "?";

// What every process of one run says alike about a communicator (hosts
// aside, see above); its maps are left to --check, which tells a damaged
// file from a healthy one.
json identity(const json& doc) {
  json processes = json::array();
  for (const json& p : doc["processes"])
    processes.push_back({{"world_rank", p["world_rank"]}, {"endpoints", p["endpoints"]}});
  return {{"kind", doc["kind"]},
          {"size", doc["size"]},
          {"mpi_size", doc["mpi_size"]},
          {"processes", processes}};
}

// One sentence per run when the dumps name more than one (a dump without a
// run id counts as a run of its own kind), naming a few of its files.
std::vector<std::string> runs_by_id(const std::vector<Dump>& dumps) {
  std::map<std::string, std::vector<const Dump*>> by_run;  // "" for none
  for (const Dump& d : dumps) {
    if (!shape_error(d.doc).empty()) continue;
    by_run[d.doc.contains("run") ? d.doc["run"].get<std::string>() : ""].push_back(&d);
  }
  if (by_run.size() < 2) return {};
  std::vector<std::string> evidence;
  for (const auto& [run, files] : by_run) {
    constexpr std::size_t named = 3;
    std::string list = described(*files[0]);
    for (std::size_t i = 1; i < files.size() && i < named; ++i) list += ", " + files[i]->file;
    if (files.size() > named) list += fmt::format(" and {} more", files.size() - named);
    const std::string count = fmt::format("{} file{}", files.size(), files.size() == 1 ? "" : "s");
    evidence.push_back(run.empty() ? fmt::format("{} {} no run (libep before run ids): {}", count,
                                                 files.size() == 1 ? "names" : "name", list)
                                   : fmt::format("run {}: {}: {}", run, count, list));
  }
  return evidence;
}

}  // namespace

std::vector<std::string> mixed_runs(const std::vector<Dump>& dumps) {
  // The run ids say it first; what one run cannot produce follows.
  std::vector<std::string> evidence = runs_by_id(dumps);
  std::map<std::string, const Dump*> first_of;                 // communicator -> a view
  std::map<std::pair<std::string, int>, const Dump*> view_of;  // (communicator, world rank)
  std::map<int, std::pair<std::string, const Dump*>> host_of;  // world rank -> host, where
  // Each communicator, and each world rank, is said once.
  std::set<std::string> differing;  // communicators whose views differ
  std::set<int> moved;              // world ranks on two hosts
  for (const Dump& d : dumps) {
    if (!shape_error(d.doc).empty()) continue;
    const std::string id = d.doc["communicator"].get<std::string>();
    const int viewer = d.doc["viewer"]["world_rank"].get<int>();

    const auto [first, fresh] = first_of.emplace(id, &d);
    if (!fresh && !differing.count(id)) {
      if (const std::string diff = first_difference(identity(first->second->doc), identity(d.doc));
          !diff.empty()) {
        evidence.push_back(fmt::format("{}: {} and {} describe different communicators ({})", id,
                                       described(*first->second), described(d), diff));
        differing.insert(id);
      }
    }
    const auto [view, single] = view_of.emplace(std::pair{id, viewer}, &d);
    if (!single)
      evidence.push_back(fmt::format("{}: {} and {} are both the view of world rank {}", id,
                                     described(*view->second), described(d), viewer));
    for (const json& p : d.doc["processes"]) {
      const int world = p["world_rank"].get<int>();
      const std::string host = p["host"].get<std::string>();
      if (host == unknown_host) continue;
      const auto [known, added] = host_of.emplace(world, std::pair{host, &d});
      if (!added && known->second.first != host && moved.insert(world).second)
        evidence.push_back(fmt::format("world rank {} is on host '{}' in {} but on '{}' in {}",
                                       world, known->second.first, described(*known->second.second),
                                       host, described(d)));
    }
  }
  return evidence;
}

}  // namespace ep::inspect
