// main() of every test program (see harness.hpp for the two modes).
//
//   test_ep  --layout 2,2 [--out DIR] [--key=value ...]   (under mpirun -np 2)
//   test_mpi              [--out DIR] [--key=value ...]   (under mpirun -np 4)
//
// With --out, rank r's output lines go to DIR/rank-<r>.txt; without it they
// go to stdout prefixed with the rank. Exit status 0 means every rank passed.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "layout.hpp"
#include "sync.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace {

using namespace eptest;

struct Options {
  std::string layout = "1";
  std::optional<std::filesystem::path> out_dir;
  Params params;
};

// What a rank leaves behind once its body has run.
struct RankResult {
  int rank = -1;
  std::vector<std::string> lines;
  int failures = 0;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "%s\nusage: test [--layout N|N0,N1,...] [--out DIR] [--key=value ...]\n",
               message.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--layout" && i + 1 < argc) {
      options.layout = argv[++i];
    } else if (arg == "--out" && i + 1 < argc) {
      options.out_dir = argv[++i];
    } else if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
      const std::size_t eq = arg.find('=');
      options.params.set(arg.substr(2, eq - 2), arg.substr(eq + 1));
    } else {
      usage_error("unknown argument '" + arg + "'");
    }
  }
  return options;
}

// Runs the body for one rank and keeps what it produced. An exception is a
// failure of that rank, not a crash of the process: the other ranks' verdicts
// still count.
RankResult run_rank(api::Comm comm, const Params& params, ProcessBarrier& barrier) {
  Context t(comm, params, barrier);
  try {
    run(t);
  } catch (const std::exception& e) {
    t.fail(std::string("exception: ") + e.what());
  }
  return {t.rank(), t.lines(), t.failures()};
}

#if defined(EPTEST_MODE_EP)
// One thread per endpoint of this process, each driving its own rank, as an
// application would. Every thread frees its own endpoint (Comm_free is
// collective over the endpoints).
std::vector<RankResult> run_ranks(const Options& options, int process, int processes) {
  const Layout layout = parse_layout(options.layout, processes);
  if (!layout.ok()) usage_error(layout.error);
  const int count = layout.per_process[static_cast<std::size_t>(process)];

  // Never hand the library a null array, even for zero endpoints.
  std::vector<api::Comm> comms(static_cast<std::size_t>(std::max(count, 1)), api::COMM_NULL);
  const int rc = api::Comm_create_endpoints(MPI_COMM_WORLD, count, MPI_INFO_NULL, comms.data());
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "FAIL process %d: Comm_create_endpoints returned %d\n", process, rc);
    return {RankResult{-1, {}, 1}};
  }

  std::vector<RankResult> results(static_cast<std::size_t>(count));
  ProcessBarrier barrier(count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      auto& comm = comms[static_cast<std::size_t>(i)];
      RankResult& result = results[static_cast<std::size_t>(i)];
      result = run_rank(comm, options.params, barrier);
      // The creation contract: ranks follow process rank, then handle index.
      const int expected_rank = layout.first_rank(process) + i;
      int size = -1;
      api::Comm_size(comm, &size);
      if (result.rank != expected_rank || size != layout.total()) {
        std::fprintf(stderr, "FAIL process %d handle %d: rank %d of %d, expected %d of %d\n",
                     process, i, result.rank, size, expected_rank, layout.total());
        ++result.failures;
      }
      if (api::Comm_free(&comm) != MPI_SUCCESS || comm != api::COMM_NULL) {
        std::fprintf(stderr, "FAIL rank %d: Comm_free failed or left the handle set\n",
                     result.rank);
        ++result.failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}
#else
// The reference: this MPI process is the rank, on MPI_COMM_WORLD itself, the
// plainest MPI there is.
std::vector<RankResult> run_ranks(const Options& options, int, int) {
  ProcessBarrier barrier(1);
  return {run_rank(MPI_COMM_WORLD, options.params, barrier)};
}
#endif

void write_output(const Options& options, const std::vector<RankResult>& results) {
  for (const RankResult& result : results) {
    if (result.rank < 0) continue;
    if (!options.out_dir) {
      for (const std::string& line : result.lines)
        std::printf("[%d] %s\n", result.rank, line.c_str());
      continue;
    }
    const auto path = *options.out_dir / fmt::format("rank-{}.txt", result.rank);
    std::ofstream file(path);
    for (const std::string& line : result.lines) file << line << '\n';
    if (!file) std::fprintf(stderr, "FAIL: cannot write %s\n", path.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
#if defined(__SANITIZE_ADDRESS__)
  // Open MPI opens every component at init and unloads the ones it does not
  // select; what they allocated can then not be attributed to any library,
  // so no suppression could name it. Nothing of ours runs in here.
  __lsan_disable();
#endif
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_enable();
#endif
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "the MPI library does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int process = 0;
  int processes = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);

  const Options options = parse_options(argc, argv);
  if (options.out_dir) std::filesystem::create_directories(*options.out_dir);

  const std::vector<RankResult> results = run_ranks(options, process, processes);
  // A test may have made MPI_COMM_WORLD return errors; the harness's own MPI
  // calls below must not fail silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  ProcessBarrier::finish();  // serve the barriers of processes still running
  write_output(options, results);

  // The verdict over all ranks. Plain MPI on MPI_COMM_WORLD: the endpoints
  // are gone by now, and the verdict must not depend on what is being tested.
  int local_failures = 0;
  for (const RankResult& result : results) local_failures += result.failures;
  int failures = 0;
  MPI_Allreduce(&local_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (process == 0) {
    if (failures == 0) {
      std::printf("No Errors\n");
    } else {
      std::printf("Found %d errors\n", failures);
    }
    std::fflush(stdout);
  }

#if defined(__SANITIZE_ADDRESS__)
  // Check for leaks while every MPI component is still loaded: after
  // MPI_Finalize unloads them, their live blocks lose their names (see above).
  // This also makes the at-exit check a no-op.
  __lsan_do_leak_check();
#endif
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
