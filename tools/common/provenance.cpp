#include "provenance.hpp"

#include <fmt/core.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <ep/version.hpp>
#include <map>
#include <string_view>
#include <thread>

#include "mpi_check.hpp"

namespace ep::tools {

namespace {

// ISO 8601 with a numeric offset, as google/benchmark writes its "date".
std::string local_date() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::array<char, 32> date{};
  std::array<char, 8> offset{};  // +hhmm
  std::strftime(date.data(), date.size(), "%Y-%m-%dT%H:%M:%S", &local);
  std::strftime(offset.data(), offset.size(), "%z", &local);
  const std::string_view z = offset.data();
  if (z.size() != 5) return date.data();
  return fmt::format("{}{}:{}", date.data(), z.substr(0, 3), z.substr(3));
}

std::string compiler_description() {
#if defined(__clang__)
  return fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}", __VERSION__);
#else
  return "unknown";
#endif
}

std::string build_type() {
  const std::string_view type = EP_TOOLS_BUILD_TYPE;
  return type.empty() ? "unspecified" : std::string(type);
}

std::string mpi_library_version() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  check(MPI_Get_library_version(text.data(), &length), "MPI_Get_library_version");
  std::string version(text.data(), static_cast<std::size_t>(length));
  // Open MPI ends the string with a newline and a NUL; neither belongs in JSON.
  while (!version.empty() &&
         (version.back() == '\n' || version.back() == '\0' || version.back() == ' '))
    version.pop_back();
  return version;
}

// Variables that change what MPI, OpenMP or libep do: worth recording,
// because two runs that differ only in them are different experiments.
nlohmann::ordered_json tuning_environment() {
  // Open MPI and its PMIx, MPICH and its Hydra launcher, Intel MPI, and the
  // fabrics libraries under them (UCX, libfabric).
  constexpr std::array<std::string_view, 10> prefixes{
      "OMPI_MCA_", "PMIX_MCA_", "MPICH_", "MPIR_CVAR_", "HYDRA_",
      "I_MPI_",    "UCX_",      "FI_",    "OMP_",       "LIBEP_"};
  // What mpirun sets for its own bookkeeping (job ids, URIs, session
  // directories): different for every job, so recording it would make every
  // two result files differ without telling anything.
  constexpr std::array<std::string_view, 5> launcher_set{"OMPI_MCA_orte_", "OMPI_MCA_ess",
                                                         "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                                                         "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  // libep's own switches (docs/environment.md), read by name: EP_INSPECT
  // writes files at every communicator creation, EP_CHECK_COLLECTIVES adds a
  // meeting to every collective, EP_COLL_ALGORITHM picks the algorithms.
  constexpr std::array<std::string_view, 3> libep_read{"EP_INSPECT", "EP_CHECK_COLLECTIVES",
                                                       "EP_COLL_ALGORITHM"};
  std::map<std::string, std::string> env;  // sorted, so that two files diff cleanly
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const auto name = text.substr(0, equals);
    const auto starts = [&](std::string_view p) { return name.starts_with(p); };
    const bool wanted = (std::any_of(prefixes.begin(), prefixes.end(), starts) &&
                         std::none_of(launcher_set.begin(), launcher_set.end(), starts)) ||
                        std::find(libep_read.begin(), libep_read.end(), name) != libep_read.end();
    if (wanted) env[std::string(name)] = std::string(text.substr(equals + 1));
  }
  return nlohmann::ordered_json(env);
}

struct ProcessFacts {
  std::array<char, MPI_MAX_PROCESSOR_NAME> host{};
  int cpus = 0;          ///< cores of the host
  int cpus_allowed = 0;  ///< cores this process may run on (its affinity mask)
  int busy_threads = 0;
};

int allowed_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// Every process's host, cores and busy threads, on world rank 0.
std::vector<ProcessFacts> gather_process_facts(int busy_threads) {
  int rank = 0;
  int size = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  ProcessFacts mine;
  int length = 0;
  check(MPI_Get_processor_name(mine.host.data(), &length), "MPI_Get_processor_name");
  mine.cpus = static_cast<int>(std::thread::hardware_concurrency());
  mine.cpus_allowed = allowed_cpu_count();
  mine.busy_threads = busy_threads;
  std::vector<ProcessFacts> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  check(MPI_Gather(&mine, sizeof(ProcessFacts), MPI_BYTE, all.data(), sizeof(ProcessFacts),
                   MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  return all;
}

// Where the threads ran. Threads can be short of cores in two ways: a host
// runs more busy threads than it has cores, or a process runs more than its
// affinity mask allows (mpirun binds each process to one core by default,
// so two endpoints in one process then share that core).
nlohmann::ordered_json placement_facts(const std::vector<ProcessFacts>& facts) {
  std::map<std::string, std::pair<int, int>> per_host;  // host -> (busy threads, cores)
  std::vector<std::string> host_order;
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  nlohmann::ordered_json busy = nlohmann::ordered_json::array();
  nlohmann::ordered_json allowed = nlohmann::ordered_json::array();
  bool oversubscribed = false;
  for (const auto& f : facts) {
    hosts.push_back(f.host.data());
    busy.push_back(f.busy_threads);
    allowed.push_back(f.cpus_allowed);
    if (per_host.count(f.host.data()) == 0) host_order.emplace_back(f.host.data());
    auto& [host_busy, host_cores] = per_host[f.host.data()];
    host_busy += f.busy_threads;
    host_cores = f.cpus;
    oversubscribed = oversubscribed || (f.cpus_allowed > 0 && f.busy_threads > f.cpus_allowed);
  }
  nlohmann::ordered_json busy_per_host = nlohmann::ordered_json::object();
  nlohmann::ordered_json cores_per_host = nlohmann::ordered_json::object();
  for (const auto& host : host_order) {
    const auto& [host_busy, host_cores] = per_host[host];
    busy_per_host[host] = host_busy;
    cores_per_host[host] = host_cores;
    oversubscribed = oversubscribed || host_busy > host_cores;
  }
  return {{"hosts", hosts},
          {"busy_threads", busy},
          {"cpus_allowed", allowed},
          {"busy_threads_per_host", busy_per_host},
          {"cores_per_host", cores_per_host},
          {"oversubscribed", oversubscribed}};
}

}  // namespace

// --- MPI implementation from its version string -------------------------------

nlohmann::ordered_json mpi_implementation(const std::string& library_version) {
  // "Open MPI v4.1.4, package: ...", "MPICH Version:\t4.0.2\n...",
  // "Intel(R) MPI Library 2021.6 for Linux* OS", "MVAPICH2 Version ...".
  struct Known {
    std::string_view marker;  // where the name appears
    std::string_view name;
  };
  constexpr std::array<Known, 5> known{{{"Open MPI", "Open MPI"},
                                        {"MVAPICH", "MVAPICH"},
                                        {"Intel(R) MPI", "Intel MPI"},
                                        {"MPICH", "MPICH"},
                                        {"Spectrum MPI", "Spectrum MPI"}}};
  for (const auto& k : known) {
    const auto at = library_version.find(k.marker);
    if (at == std::string::npos) continue;
    // The version: the first run of digits and dots after the name.
    const auto digits = library_version.find_first_of("0123456789", at + k.marker.size());
    std::string version = "unknown";
    if (digits != std::string::npos) {
      const auto end = library_version.find_first_not_of("0123456789.abrc", digits);
      version = library_version.substr(digits, end == std::string::npos ? end : end - digits);
      while (!version.empty() && version.back() == '.') version.pop_back();
    }
    return {{"name", k.name}, {"version", version}};
  }
  return {{"name", "unknown"}, {"version", "unknown"}};
}

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return fmt::format("unknown ({})", level);
  }
}

std::string shell_join(const std::vector<std::string>& args) {
  constexpr std::string_view plain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%";
  std::string line;
  for (const auto& arg : args) {
    if (!line.empty()) line += ' ';
    if (!arg.empty() && arg.find_first_not_of(plain) == std::string::npos) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) line += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

nlohmann::ordered_json describe_run(const RunDescription& run) {
  const auto facts = gather_process_facts(run.busy_threads);
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  if (rank != 0) return nullptr;

  int mpi_major = 0;
  int mpi_minor = 0;
  check(MPI_Get_version(&mpi_major, &mpi_minor), "MPI_Get_version");

  const std::string library_version = mpi_library_version();
  std::array<double, 3> load{};
  const bool have_load = getloadavg(load.data(), 3) == 3;

  nlohmann::ordered_json context = {
      {"date", local_date()},
      {"executable", run.command_line.empty() ? "" : run.command_line.front()},
      {"command_line", shell_join(run.command_line)},
      {"host_name", facts.front().host.data()},
      {"num_cpus", facts.front().cpus},
      {"load_avg", have_load ? nlohmann::ordered_json(load) : nlohmann::ordered_json::array()},
      {"libep_version", ep::version()},
      {"libep_git_revision", ep::git_revision()},
      {"mpi_library_version", library_version},
      {"mpi_implementation", mpi_implementation(library_version)},
      {"mpi_version", fmt::format("{}.{}", mpi_major, mpi_minor)},
      {"compiler", compiler_description()},
      {"build_type", build_type()},
      {"thread_level_requested", thread_level_name(run.thread_level_requested)},
      {"thread_level_provided", thread_level_name(run.thread_level_provided)},
      {"processes", facts.size()},
  };
  context.update(placement_facts(facts));
  context["environment"] = tuning_environment();
  return context;
}

std::string oversubscription_note(const nlohmann::ordered_json& context) {
  if (!context.contains("busy_threads_per_host") || !context.contains("cores_per_host")) return {};
  std::string hosts;
  for (const auto& [host, busy] : context.at("busy_threads_per_host").items()) {
    const int threads = busy.get<int>();
    const int cores = context.at("cores_per_host").value(host, 0);
    if (cores <= 0 || threads <= cores) continue;
    hosts += fmt::format("{}{} busy threads on the {} cores of {}", hosts.empty() ? "" : "; ",
                         threads, cores, host);
  }
  if (hosts.empty()) return {};
  return fmt::format(
      "oversubscribed: {}. Ranks take turns on the cores, so the times include waiting for one; "
      "use fewer endpoints or processes per host to measure the library alone",
      hosts);
}

std::string libep_environment_note(const nlohmann::ordered_json& context) {
  if (!context.contains("environment")) return {};
  const auto& env = context.at("environment");
  const auto value = [&](const char* name) { return env.value(name, std::string()); };
  // Set as libep reads them (libep/src/comm/inspect.cpp, coll/checks.cpp,
  // coll/algorithm.hpp): EP_INSPECT non-empty, EP_CHECK_COLLECTIVES neither
  // empty nor 0, EP_COLL_ALGORITHM non-empty.
  std::string what;
  const auto add = [&](const std::string& text) {
    what += fmt::format("{}{}", what.empty() ? "" : "; ", text);
  };
  if (!value("EP_INSPECT").empty())
    add(fmt::format("EP_INSPECT={} writes the rank maps of every communicator created",
                    value("EP_INSPECT")));
  if (const std::string check = value("EP_CHECK_COLLECTIVES"); !check.empty() && check != "0")
    add(fmt::format("EP_CHECK_COLLECTIVES={} compares the calls of every collective first", check));
  if (!value("EP_COLL_ALGORITHM").empty())
    add(fmt::format("EP_COLL_ALGORITHM={} forces libep's collective algorithm",
                    value("EP_COLL_ALGORITHM")));
  if (what.empty()) return {};
  return fmt::format(
      "{}; the times include that: leave it unset to measure libep as it runs by default", what);
}

std::string shared_rank_note(const nlohmann::ordered_json& context) {
  if (context.value("impl", std::string()) != "mpi-threads" ||
      context.value("threads_per_process", 0) < 2 || !context.contains("mpi_implementation"))
    return {};
  const auto& mpi = context.at("mpi_implementation");
  if (mpi.value("name", std::string()) != "MPICH") return {};
  // Seen with 4.0.2; MPICH's blocking waits yield the lock since
  // pmodels/mpich#6554 (2023), after the 4.0 series. Other versions, and
  // one it cannot read, get no note: not seen.
  const std::string version = mpi.value("version", std::string());
  int major = 0;
  int minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return {};
  if (major != 4 || minor != 0) return {};
  return fmt::format(
      "threads share an MPI rank on MPICH {}, where a thread waiting in a blocking call keeps "
      "the process's lock from its other threads (two threads of one process ping-ponging "
      "usually stalled with MPICH 4.0.2): the run may stall until --watchdog ends it",
      version);
}

std::string affinity_warning(const nlohmann::ordered_json& context) {
  const auto& busy = context.at("busy_threads");
  const auto& allowed = context.at("cpus_allowed");
  for (std::size_t rank = 0; rank < busy.size(); ++rank) {
    const int threads = busy[rank].get<int>();
    const int cpus = allowed[rank].get<int>();
    if (cpus > 0 && threads > cpus && cpus < context.at("num_cpus").get<int>())
      return fmt::format(
          "process {} drives {} threads but may run on only {} CPU{}; the launcher bound it "
          "(Open MPI binds each process to a core by default: try mpirun --bind-to none)",
          rank, threads, cpus, cpus == 1 ? "" : "s");
  }
  return {};
}

}  // namespace ep::tools
