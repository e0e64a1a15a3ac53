#include "comm/inspect.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <system_error>

#include "ep/inspect.hpp"
#include "object/error.hpp"

namespace ep::detail {

namespace {

std::mutex run_mutex;
RunId this_run;  // known once the first Comm_create_endpoints has agreed on it

// "20261126T094624Z-5f0c9e2a6b3d1847": sorts by start time, and the random
// part tells apart runs started in the same second.
std::string run_name(const RunId& run) {
  const std::time_t seconds = static_cast<std::time_t>(run.started);
  std::tm utc{};
  if (!::gmtime_r(&seconds, &utc)) return fmt::format("{}-{:016x}", run.started, run.random);
  return fmt::format("{:%Y%m%dT%H%M%SZ}-{:016x}", utc, run.random);
}

std::string current_run_name() {
  std::lock_guard lock(run_mutex);
  return this_run.known ? run_name(this_run) : std::string();
}

std::mutex hosts_mutex;
std::map<int, std::string> hosts_by_world_rank;

// The document as text. Names (ep::Comm_set_name) and host names are
// whatever bytes the caller gave; nlohmann's dump() throws on bytes that are
// not UTF-8, which would leave an MPI-style call by an exception. Such bytes
// are written as U+FFFD instead.
std::string dump(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string host_of(int world_rank) {
  std::lock_guard lock(hosts_mutex);
  auto it = hosts_by_world_rank.find(world_rank);
  return it == hosts_by_world_rank.end() ? std::string("?") : it->second;
}

// One entry per rank of `ranks` (union ranks), numbered by position.
nlohmann::json map_entries(const CommShared& shared, const std::vector<int>& ranks) {
  nlohmann::json entries = nlohmann::json::array();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const Location at = shared.map.at(ranks[i]);
    const int world = shared.world_ranks[static_cast<std::size_t>(at.mpi_rank)];
    entries.push_back({{"rank", i},
                       {"mpi_rank", at.mpi_rank},
                       {"world_rank", world},
                       {"host", host_of(world)},
                       {"local_rank", at.local_rank}});
  }
  return entries;
}

std::vector<int> all_ranks(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

// The names this process's endpoints gave the communicator (Comm_set_name),
// by local rank, "" for none; null when none has a name. Per process, like
// the rest of the document: each endpoint names its own handle, and a
// reader merging the processes' views finds every endpoint's name.
nlohmann::json names_of(const CommShared& shared) {
  if (shared.names.empty()) return nullptr;
  nlohmann::json names = nlohmann::json::array();
  for (int l = 0; l < shared.map.count_on(shared.mpi_rank); ++l) {
    auto it = shared.names.find(l);
    names.push_back(it == shared.names.end() ? std::string() : it->second);
  }
  return names;
}

// Called with shared.names_lock held.
nlohmann::json document(const CommShared& shared, const Endpoint* viewer) {
  nlohmann::json doc;
  doc["schema"] = "libep-rank-map";
  doc["schema_version"] = 1;
  // Every process of a communicator has called Comm_create_endpoints, which
  // set the run; "" only if that call failed before agreeing on it.
  if (std::string run = current_run_name(); !run.empty()) doc["run"] = std::move(run);
  doc["communicator"] = shared.global_id;
  doc["kind"] = shared.inter ? "inter" : "intra";
  doc["mpi_size"] = shared.mpi_size;
  doc["viewer"] = {{"mpi_rank", shared.mpi_rank},
                   {"world_rank", shared.world_ranks[static_cast<std::size_t>(shared.mpi_rank)]}};
  if (viewer) {
    doc["viewer"]["rank"] = viewer->rank;
    if (shared.inter) doc["viewer"]["group"] = viewer->group;
  }
  nlohmann::json processes = nlohmann::json::array();
  for (int p = 0; p < shared.mpi_size; ++p) {
    const int world = shared.world_ranks[static_cast<std::size_t>(p)];
    nlohmann::json entry = {
        {"mpi_rank", p},
        {"world_rank", world},
        {"host", host_of(world)},
        {"endpoints", shared.map.count_on(p)},
        {"leader", shared.map.ranks_on(p).empty() ? -1 : shared.map.ranks_on(p)[0]}};
    processes.push_back(entry);
  }
  doc["processes"] = processes;
  if (nlohmann::json names = names_of(shared); !names.is_null()) doc["names"] = std::move(names);
  if (!shared.inter) {
    doc["size"] = shared.map.size();
    doc["rank_map"] = map_entries(shared, all_ranks(shared.map.size()));
    return doc;
  }
  // The union ("intercomm") map and each group's; local/remote follow the viewer.
  doc["size"] = shared.map.size();
  doc["intercomm_rank_map"] = map_entries(shared, all_ranks(shared.map.size()));
  doc["groups"] = {map_entries(shared, shared.members(0)), map_entries(shared, shared.members(1))};
  for (std::size_t u = 0; u < doc["intercomm_rank_map"].size(); ++u) {
    doc["intercomm_rank_map"][u]["group"] = shared.layout.group_of[u];
  }
  if (viewer) {
    doc["local_rank_map"] = doc["groups"][viewer->group];
    doc["remote_rank_map"] = doc["groups"][1 - viewer->group];
  }
  return doc;
}

}  // namespace

RunId run_candidate() {
  {
    std::lock_guard lock(run_mutex);
    if (this_run.known) return this_run;
  }
  RunId fresh;
  std::random_device device;
  fresh.random = static_cast<std::uint64_t>(device()) << 32 | device();
  fresh.started = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  return fresh;
}

void adopt_run(const RunId& run) {
  std::lock_guard lock(run_mutex);
  if (this_run.known) return;
  this_run = run;
  this_run.known = true;
}

std::array<int, run_ints> run_to_ints(const RunId& run) {
  const auto started = static_cast<std::uint64_t>(run.started);
  // The halves travel as the same bits in MPI_INTs.
  const auto half = [](std::uint64_t bits) {
    return static_cast<int>(static_cast<std::uint32_t>(bits));
  };
  return {run.known ? 1 : 0, half(started >> 32), half(started), half(run.random >> 32),
          half(run.random)};
}

RunId run_from_ints(const int* ints) {
  const auto word = [](int high, int low) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32 |
           static_cast<std::uint32_t>(low);
  };
  RunId run;
  run.known = ints[0] != 0;
  run.started = static_cast<std::int64_t>(word(ints[1], ints[2]));
  run.random = word(ints[3], ints[4]);
  return run;
}

void remember_host(int world_rank, std::string host) {
  std::lock_guard lock(hosts_mutex);
  hosts_by_world_rank[world_rank] = std::move(host);
}

std::string rank_maps_json(const Endpoint& viewer) {
  std::lock_guard lock(viewer.shared->names_lock);
  return dump(document(*viewer.shared, &viewer));
}

// One line on stderr for a dump that could not be written (not an error of
// the call that created the communicator): the file, the system's reason,
// and what EP_INSPECT has to be, since naming a file or a device is the
// usual way to get here.
void report_dump_failure(const std::string& file, const std::string& reason) {
  std::fprintf(stderr,
               "libep: EP_INSPECT: cannot write %s: %s (EP_INSPECT must name a directory, which "
               "libep creates if missing)\n",
               file.c_str(), reason.c_str());
}

void dump_if_requested(const CommShared& shared) {
  static const char* const directory = std::getenv("EP_INSPECT");
  if (!directory || !*directory) return;
  const int world = shared.world_ranks[static_cast<std::size_t>(shared.mpi_rank)];
  const std::string path = fmt::format("{}/{}.w{}.json", directory, shared.global_id, world);
  std::error_code ignored;  // a failure shows when the file cannot be written
  std::filesystem::create_directories(directory, ignored);
  // Rewritten whenever an endpoint names the communicator. The lock keeps
  // the last file written the one with the latest names, and the rename
  // keeps a reader from seeing half a file.
  std::lock_guard lock(shared.names_lock);
  const std::string partial = path + ".partial";
  {
    errno = 0;
    std::ofstream out(partial);
    if (!out.is_open()) {
      // libstdc++'s filebuf leaves open(2)'s errno; "not a directory" and
      // the like are the reasons that matter here.
      report_dump_failure(partial,
                          errno != 0 ? std::generic_category().message(errno) : "cannot open it");
      return;
    }
    out << dump(document(shared, nullptr)) << '\n';
    out.flush();
    if (!out) {
      report_dump_failure(partial,
                          errno != 0 ? std::generic_category().message(errno) : "the write failed");
      return;
    }
  }
  std::error_code renamed;
  std::filesystem::rename(partial, path, renamed);
  if (renamed) report_dump_failure(path, renamed.message());
}

}  // namespace ep::detail

namespace ep {

int Comm_inspect(Comm comm, std::string* json) {
  detail::Endpoint* e = detail::valid_endpoint(comm);
  if (!e) return detail::invalid_comm(comm, "Comm_inspect");
  if (!json) return detail::raise(e, MPI_ERR_ARG, "Comm_inspect", "json is a null pointer");
  *json = detail::rank_maps_json(*e);
  return MPI_SUCCESS;
}

}  // namespace ep
