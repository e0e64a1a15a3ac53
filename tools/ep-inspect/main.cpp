// ep-inspect: the rank maps of libep communicators, for people and programs.
//
//   ep-inspect [--format json|table] [--check] [-o FILE] STEP [then STEP]...
//       under mpirun: builds the scenario's communicators with endpoints and
//       prints every communicator's maps, merged into one document by world
//       rank 0;
//   ep-inspect read [--format ...] [--check] DIR|FILE...
//       no mpirun: merges the per-process files EP_INSPECT dumped.
//
// The command line and the scenario are checked before any communicator is
// built, identically on every rank, so a bad scenario ends the job with one
// message and its status, never with a hang. Such a verdict is world rank
// 0's to print; every rank exits with its status, the others only after rank
// 0 has printed it (a barrier), so that the launcher, which ends the job when
// a process exits non-zero, never kills rank 0 before its message is out.
// read is no MPI job: it prints in every process that runs it.
#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "cli.hpp"
#include "collect.hpp"
#include "json_input.hpp"
#include "json_output.hpp"
#include "mpi_check.hpp"
#include "mpi_lifetime.hpp"
#include "output_file.hpp"
#include "provenance.hpp"
#include "runner.hpp"
#include "runs.hpp"
#include "table.hpp"

namespace {

using namespace ep::inspect;

// The path --output names: stdout without one.
std::string output_path(const Command& c) { return c.output.empty() ? "-" : c.output; }

// Empty if --output can be written, else why not; opens nothing (a named
// pipe's reader would take an open and close for its whole input).
std::string output_problem(const Command& c) {
  const ep::tools::OutputTarget target = ep::tools::resolve_output(output_path(c));
  if (const std::string reason = ep::tools::output_problem(target); !reason.empty())
    return fmt::format("--output: cannot write {}: {}", ep::tools::describe_output(target), reason);
  return {};
}

std::string table_text(const ordered_json& merged) {
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* memory = open_memstream(&data, &size);
  if (memory == nullptr) throw std::runtime_error("cannot format the table: out of memory");
  print_table(memory, merged);
  std::fclose(memory);
  std::string text(data, size);
  std::free(data);
  return text;
}

// Writes the document (or its table) where --output says, as ep-bench writes
// its files (tools/common/output_file.hpp); false and why if it cannot.
bool emit(const Command& c, const ordered_json& merged, std::string* why) {
  const std::string text =
      c.format == "table" ? table_text(merged) : ep::tools::dump_json(merged, 2) + "\n";
  try {
    ep::tools::write_output("--output", output_path(c), text);
  } catch (const ep::tools::OutputError& e) {
    *why = e.what();
    return false;
  }
  return true;
}

// The verdict after the document is out: failures on stderr, and the status.
int finish(const Command& c, const ordered_json& merged, const Findings& f) {
  std::string why;
  if (!emit(c, merged, &why)) {
    fmt::print(stderr, "ep-inspect: {}\n", why);
    return exit_usage;
  }
  if (f.failures.empty()) return 0;
  fmt::print(stderr, "ep-inspect: {}{} problem(s):\n", c.check ? "--check failed, " : "",
             f.failures.size());
  for (const std::string& failure : f.failures) fmt::print(stderr, "  {}\n", failure);
  return exit_failed;
}

std::vector<Dump> load(const std::vector<std::string>& paths, const std::string& output,
                       Findings& f) {
  namespace fs = std::filesystem;
  std::vector<std::string> given;
  for (const std::string& path : paths) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(path, error))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
          found.push_back(entry.path().string());
      if (error) throw UsageError(fmt::format("read: cannot list '{}': {}", path, error.message()));
      if (found.empty()) throw UsageError(fmt::format("read: no .json files in '{}'", path));
      std::sort(found.begin(), found.end());
      given.insert(given.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, error)) {
      given.push_back(path);
    } else if (fs::exists(path, error)) {
      // A device or a pipe may never end (/dev/zero): only files are read.
      throw UsageError(fmt::format("read: '{}' is neither a regular file nor a directory", path));
    } else {
      throw UsageError(fmt::format("read: '{}' does not exist", path));
    }
  }
  // A file named twice ("read dir dir/w0c1.w0.json") is read once: it is
  // not a second view.
  std::vector<std::string> files;
  std::set<fs::path> seen;
  for (const std::string& file : given) {
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(file, error);
    if (error || seen.insert(canonical).second) files.push_back(file);
  }
  // --output onto a dump would destroy it.
  std::vector<ep::tools::NamedFile> inputs;
  for (const std::string& file : files) inputs.push_back({"the dump", file});
  if (const std::string collision = ep::tools::output_collision({{"--output", output}}, inputs);
      !collision.empty())
    throw UsageError(collision);
  std::vector<Dump> dumps;
  for (const std::string& file : files) {
    std::string text;
    try {
      text = ep::tools::read_input_file(file);
    } catch (const ep::tools::InputFileError& e) {
      f.fail(e.what());
      continue;
    }
    // The bounded parse: a dump nested 200 000 levels deep overflowed the
    // stack wherever the tool copied, compared or printed it.
    try {
      dumps.push_back({file, ep::tools::parse_json(text, file)});
    } catch (const ep::tools::JsonInputError& e) {
      f.fail(e.kind() == ep::tools::JsonInputError::Kind::syntax
                 ? fmt::format("{}: not JSON: {}", file, e.reason())
                 : std::string(e.what()));
    }
  }
  return dumps;
}

// Reading needs no MPI: every process that runs it says its verdict and
// exits with its status, started under mpirun or not.
int run_read(const Command& c) {
  Findings f;
  std::vector<Dump> dumps;
  try {
    if (const std::string problem = output_problem(c); !problem.empty()) throw UsageError(problem);
    dumps = load(c.read_paths, c.output, f);
  } catch (const UsageError& e) {
    fmt::print(stderr, "ep-inspect: {}\n", e.what());
    return exit_usage;
  }
  // Dumps of several runs make communicators that none of them had: no
  // merged document then, only what shows the mix.
  if (const std::vector<std::string> mix = mixed_runs(dumps); !mix.empty()) {
    constexpr std::size_t shown = 8;
    fmt::print(stderr, "ep-inspect: read: the files are dumps of more than one run:\n");
    for (std::size_t i = 0; i < mix.size() && i < shown; ++i) fmt::print(stderr, "  {}\n", mix[i]);
    if (mix.size() > shown) fmt::print(stderr, "  ... and {} more\n", mix.size() - shown);
    fmt::print(stderr,
               "read merges nothing: give each run its own EP_INSPECT directory (or empty it "
               "first) and read one run at a time\n");
    return exit_failed;
  }
  ordered_json merged = merge_dumps(dumps, c.check, f);
  if (c.check) add_check_result(merged, f);
  return finish(c, merged, f);
}

// Under mpirun: every rank runs its endpoints; rank 0 merges and writes.
int run_scenario_job(const Command& c, int rank, int size) {
  std::optional<Model> model;
  try {
    model.emplace(c.steps, size);
  } catch (const ScenarioError& e) {
    return ep::tools::job_verdict(rank, exit_usage,
                                  [&] { fmt::print(stderr, "ep-inspect: {}\n", e.what()); });
  }
  // An unwritable --output is found before the run (rank 0's view: it
  // writes), on every rank alike.
  const std::string problem = rank == 0 ? output_problem(c) : std::string();
  int writable = problem.empty() ? 1 : 0;
  ep::tools::check(MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (!writable)
    return ep::tools::job_verdict(rank, exit_usage,
                                  [&] { fmt::print(stderr, "ep-inspect: {}\n", problem); });
  const nlohmann::json reports = gather_reports(run_scenario(*model, c.steps, rank));
  int status = 0;
  if (rank == 0) {
    Findings f;
    ordered_json merged = merge_scenario(*model, c.steps, reports, c.check, f);
    if (c.check) add_check_result(merged, f);
    status = finish(c, merged, f);
  }
  // The bcast also keeps the others from ending before rank 0 has written.
  ep::tools::check(MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return status;
}

int run_mpi(const Command& c, int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  if (ep::tools::init_mpi(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    fmt::print(stderr, "ep-inspect: MPI_Init_thread failed\n");
    return exit_failed;
  }
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  if (provided < MPI_THREAD_MULTIPLE) {
    status = ep::tools::job_verdict(rank, exit_failed, [&] {
      fmt::print(stderr,
                 "ep-inspect: endpoints need MPI_THREAD_MULTIPLE, but MPI provided only {}\n",
                 ep::tools::thread_level_name(provided));
    });
  } else {
    try {
      status = run_scenario_job(c, rank, size);
    } catch (const std::exception& e) {  // reaches one rank only: say which, end the job
      ep::tools::abort_job(fmt::format("world rank {}: {}", rank, e.what()));
    }
  }
  ep::tools::finalize_mpi();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  ep::tools::set_program_name("ep-inspect");
  try {
    const Parsed parsed = parse_command_line(argc, argv);
    if (parsed.done) return ep::tools::early_verdict(parsed.text, parsed.status);
    if (parsed.command.read) return run_read(parsed.command);
    return run_mpi(parsed.command, argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "ep-inspect: {}\n", e.what());
    return exit_failed;
  }
}
