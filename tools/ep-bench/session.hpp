// Where the results of an ep-bench job go, and what watches over it while it
// runs. Every subcommand writes through a Session, so each gets the same
// methodology around its measurements:
//   - the result files, rewritten as each case finishes (atomically: a
//     temporary file renamed over the old one; tools/common/output_file.hpp),
//     so a crash or an abort keeps what was done; stdout (also as
//     /dev/stdout), a pipe or a device gets them once, at the end. Outputs
//     that are one file, or an output that is an input, are refused before
//     anything runs. A file that could not be written is said at the end,
//     with the path and the reason, and the exit status is 1;
//   - noisy cases flagged in the table and in the JSON, with a hint;
//   - a note when busy threads outnumber cores, on stdout and in the JSON;
//   - one progress line on stderr (one rank, a terminal, no --quiet);
//   - the watchdog (watchdog.hpp).
//
// A subcommand run on its own opens a session from its own options;
// `ep-bench run` opens one for the whole suite, and every case's run writes
// into it (open_session returns the suite's).
//
// How a subcommand uses it (all ranks call alike; only world rank 0 writes):
//   auto session = open_session(o.bench, inv);                 // collective
//   auto context = describe_bench_run(inv, busy, {{"subcommand", "x"}, ...});
//   session->begin_run(context, first_rank, workers);          // arms the watchdog
//   ... measuring loops call step_together(team, worker) ...
//   ... worker 0: watchdog_case("x 8 B"); session->progress("...");
//   ... writer: Noise n = session->add(series); mark the row if n.noisy
//   return session->end_run(status);
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench_options.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "stats.hpp"
#include "subcommand.hpp"
#include "watchdog.hpp"

namespace ep::bench {

/// How a session writes and watches: a subcommand's BenchOptions, or the
/// options of `ep-bench run`.
struct SessionSettings {
  std::string json_path;  ///< "" none, "-" stdout (at the end)
  std::string csv_path;   ///< "" none, "-" stdout (at the end)
  bool quiet = false;
  double watchdog = 120;
  double noise_threshold = default_noise_threshold;
  /// Files the job reads (the suite of `ep-bench run`), which no output may be.
  std::vector<tools::NamedFile> inputs;

  static SessionSettings from(const BenchOptions& bench);
};

class Session {
 public:
  /// Checks that the files can be written and that none is another or an
  /// input (UsageError on every rank otherwise, world rank 0's verdict), and
  /// starts the watchdog. \note Collective over MPI_COMM_WORLD.
  Session(const SessionSettings& settings, const Invocation& inv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// World rank 0, the only one that prints and writes.
  bool writer() const { return writer_; }
  /// Where tables go: stdout, or stderr when JSON or CSV go to stdout ("-",
  /// /dev/stdout).
  std::FILE* table_out() const { return table_out_; }
  double noise_threshold() const { return settings_.noise_threshold; }

  /// Shows `text` on the progress line (world rank 0, stderr a terminal,
  /// no --quiet); clear_progress() before printing anything else.
  void progress(std::string_view text);
  void clear_progress();

  // --- one run of a subcommand (on its own, or a case of a suite) ----------

  /// Starts a run: keeps `context` (describe_bench_run's; null except on the
  /// writer), says on stdout when threads outnumber cores or were bound to
  /// too few, and arms the watchdog for this process's `workers` threads
  /// playing ranks first_rank, first_rank + 1, ...
  void begin_run(nlohmann::ordered_json context, int first_rank, int workers);
  /// Keeps a finished series (writer only; a no-op elsewhere): its JSON
  /// entries, marked noisy or not, and a CSV row; rewrites the files.
  /// Returns the noise verdict, for the table row (noise_mark).
  Noise add(const Series& series);
  /// Ends the run; on its own, also finishes the session. Returns `status`,
  /// or exit_failed when an output file could not be written (on every rank:
  /// the writer's verdict). \note Collective over MPI_COMM_WORLD.
  int end_run(int status);
  /// end_run for a run that validated its results: exit_failed when
  /// `wrong` results were wrong (said on the writer: "--validate: <wrong>
  /// <what>"), else end_run(0).
  int end_validated_run(std::int64_t wrong, const char* what);

  // --- suites (ep-bench run) -----------------------------------------------

  /// Makes this a suite's session: `context` (writer only) is the job's,
  /// and each case's own context goes into context.cases.
  void begin_suite(nlohmann::ordered_json context);
  /// Names the case that the next run belongs to.
  void begin_case(const std::string& name, const std::string& subcommand,
                  const std::string& command_line);
  /// Records how the case ended: "ok", "failed" (with `error`).
  void end_case(const std::string& status, const std::string& error = {});
  /// Records a case that did not run, and why.
  void skip_case(const std::string& name, const std::string& subcommand,
                 const std::string& command_line, const std::string& reason);
  /// Writes the files a last time and prints the noise summary, and what
  /// could not be written. \note Collective over MPI_COMM_WORLD.
  void finish();
  /// An output file could not be written (on every rank, after finish).
  bool write_failed() const { return write_failed_; }

  /// The watchdog's report, kept in the result file (monitor thread).
  void record_stall(const std::string& report);

 private:
  nlohmann::ordered_json& current_case();
  void write_last();  // finish() on the writer
  void write_json_file(bool last = false);
  void write_csv_file(bool last = false);
  void write_csv_row(const Series& series, const Summary& time, const Noise& noise);

  SessionSettings settings_;
  bool writer_;
  std::FILE* table_out_;
  Progress progress_;
  std::unique_ptr<Watchdog> watchdog_;
  bool suite_ = false;
  bool finished_ = false;
  std::string case_name_;  // the suite's current case, on every rank

  std::mutex mutex_;  // the document, against the watchdog's record_stall
  nlohmann::ordered_json document_;
  nlohmann::ordered_json run_labels_;  // copied into every entry of the run
  std::string csv_text_;               // the whole CSV, rewritten with each row
  bool json_at_end_ = false;           // stdout, a pipe, a device: written once
  bool csv_at_end_ = false;
  std::string json_error_;  // why the last write failed; "" when it did not
  std::string csv_error_;
  bool write_failed_ = false;
  int series_ = 0;
  std::vector<std::string> noisy_;
};

/// The session a subcommand writes to: the suite's while `ep-bench run` runs
/// one of its cases, otherwise a new one made from the subcommand's options.
/// \note Collective over MPI_COMM_WORLD.
std::shared_ptr<Session> open_session(const BenchOptions& bench, const Invocation& inv);

/// Makes open_session return `session` (ep-bench run, around its cases);
/// nullptr ends that.
void set_suite_session(std::shared_ptr<Session> session);

/// The context block of a run: ep-bench's version and schema, then
/// `fields` (subcommand, impl, layout, ...), the timing method, then where
/// and how it ran (tools::describe_run). `busy_threads`: threads of this
/// process that run or spin during the measurement.
/// \note Collective over MPI_COMM_WORLD; null except on world rank 0.
nlohmann::ordered_json describe_bench_run(const Invocation& inv, int busy_threads,
                                          const nlohmann::ordered_json& fields);

/// The table's mark after a noisy row ("" for a quiet one).
std::string noise_mark(const Noise& noise);

}  // namespace ep::bench
