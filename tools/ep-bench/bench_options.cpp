#include "bench_options.hpp"

#include <fmt/core.h>
#include <mpi.h>

#include <map>

#include "cli_numbers.hpp"
#include "mpi_check.hpp"
#include "provenance.hpp"
#include "subcommand.hpp"

namespace ep::bench {

namespace {
const std::map<std::string, int>& thread_levels() {
  static const std::map<std::string, int> levels{{"single", MPI_THREAD_SINGLE},
                                                 {"funneled", MPI_THREAD_FUNNELED},
                                                 {"serialized", MPI_THREAD_SERIALIZED},
                                                 {"multiple", MPI_THREAD_MULTIPLE}};
  return levels;
}
}  // namespace

std::string_view impl_name(Impl impl) {
  switch (impl) {
    case Impl::ep:
      return "ep";
    case Impl::mpi:
      return "mpi";
    case Impl::mpi_threads:
      return "mpi-threads";
  }
  return "?";
}

Impl BenchOptions::parsed_impl() const {
  if (impl == "mpi") return Impl::mpi;
  if (impl == "mpi-threads") return Impl::mpi_threads;
  return Impl::ep;
}

void add_bench_options(CLI::App& app, BenchOptions& o) {
  app.add_option("--impl", o.impl,
                 "Who plays the ranks: ep (libep endpoints, one std::thread each), mpi (one "
                 "MPI process per rank), mpi-threads (threads sharing an MPI rank, one "
                 "MPI_Comm_dup each)")
      ->check(CLI::IsMember({"ep", "mpi", "mpi-threads"}))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup,
                 "Untimed iterations before each message size (default: by size)")
      ->transform(tools::integer_at_least<std::int64_t>(0));
  app.add_option("--iterations", o.iterations,
                 "Timed iterations per repetition (default: enough for --min-time)")
      ->transform(tools::integer_at_least<std::int64_t>(1));
  app.add_option("--repetitions", o.repetitions, "Repetitions per message size, all kept")
      ->transform(tools::integer_in(1, 100000))
      ->capture_default_str();
  app.add_option("--min-time", o.min_time,
                 "Seconds one repetition should last when --iterations is not given")
      ->check(tools::number_in(1e-6, 3600.0))
      ->capture_default_str();
  app.add_option("--json", o.json_path,
                 "Write results as JSON to FILE ('-': stdout, and the tables go to stderr)")
      ->type_name("FILE");
  app.add_option("--csv", o.csv_path,
                 "Also write one summary row per case as CSV to FILE ('-': stdout)")
      ->type_name("FILE");
  app.add_flag("--quiet,-q", o.quiet,
               "No progress line on stderr (there is none either when stderr is not a terminal)");
  app.add_option("--watchdog", o.watchdog,
                 "End the job with a report of the ranks that fell behind when a case makes no "
                 "progress for SECONDS (0: never; a repetition may last longer, an iteration "
                 "may not)")
      ->type_name("SECONDS")
      ->check(tools::number_in(0.0, 1e6))
      ->capture_default_str();
  app.add_option("--noise-threshold", o.noise_threshold,
                 "Mark a case noisy when (p90 - min) / median of its repetitions exceeds this "
                 "(0: never)")
      ->check(tools::number_in(0.0, 1e6))
      ->capture_default_str();
  app.add_flag("--validate", o.validate,
               "Check payloads after each message size (outside the timed region)");
  app.add_option("--thread-level", o.thread_level,
                 "MPI thread level to request (default auto: multiple for ep and mpi-threads, "
                 "single for mpi)")
      ->check(CLI::IsMember({"auto", "single", "funneled", "serialized", "multiple"}))
      ->capture_default_str();
}

int requested_thread_level(const BenchOptions& o) {
  if (o.thread_level != "auto") return thread_levels().at(o.thread_level);
  return o.parsed_impl() == Impl::mpi ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
}

void require_thread_level(const BenchOptions& o, int provided) {
  const Impl impl = o.parsed_impl();
  if (impl == Impl::mpi || provided == MPI_THREAD_MULTIPLE) return;
  if (o.thread_level != "auto" && o.thread_level != "multiple")
    throw UsageError(
        fmt::format("--impl {} drives MPI from several threads and needs "
                    "--thread-level multiple (or auto), not '{}'",
                    impl_name(impl), o.thread_level));
  throw UsageError(fmt::format(
      "--impl {} needs MPI_THREAD_MULTIPLE, but the MPI library provided only {}; rebuild "
      "or configure MPI with thread support, or use --impl mpi",
      impl_name(impl), tools::thread_level_name(provided)));
}

}  // namespace ep::bench
