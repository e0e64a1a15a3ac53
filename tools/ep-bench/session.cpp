#include "session.hpp"

#include <fmt/core.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ep/version.hpp>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <utility>

#include "json_output.hpp"
#include "mpi_check.hpp"
#include "output_file.hpp"
#include "provenance.hpp"

namespace ep::bench {

namespace {

std::shared_ptr<Session>& suite_session() {
  static std::shared_ptr<Session> session;
  return session;
}

constexpr const char* timing_method =
    "every rank starts a repetition together (a barrier over all ranks), times its own "
    "iterations with std::chrono::steady_clock (wall) and CLOCK_THREAD_CPUTIME_ID (cpu); the "
    "repetition's time is the maximum over ranks, divided by the iterations (and messages) it ran";

// The fields of a run's context that say what ran rather than where: copied
// into every entry, so that a suite's entries stay self-describing.
constexpr std::array<const char*, 4> run_label_fields{
    "subcommand", "processes", "threads_per_process", "endpoints_per_process"};

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_number(std::optional<double> value) {
  return value ? fmt::format("{:.6g}", *value) : std::string();
}

// World rank 0's view of the outputs (it writes them): "" if they can be
// written, else what is wrong. Nothing is created or opened: a pipe would
// take the open as its reader's whole input, and a run refused here should
// leave no empty file.
std::string output_files_problem(const SessionSettings& s) {
  const std::vector<tools::NamedFile> outputs{{"--json", s.json_path}, {"--csv", s.csv_path}};
  if (std::string collision = tools::output_collision(outputs, s.inputs); !collision.empty())
    return collision;
  for (const auto& [option, path] : outputs) {
    if (path.empty()) continue;
    const tools::OutputTarget target = tools::resolve_output(path);
    if (const std::string reason = tools::output_problem(target); !reason.empty())
      return fmt::format("{}: cannot write {}: {}", option, tools::describe_output(target), reason);
  }
  return {};
}

// Every rank throws alike when rank 0 finds a problem; only rank 0 prints.
void check_output_files(const SessionSettings& s, int world_rank) {
  std::string problem;
  if (world_rank == 0) problem = output_files_problem(s);
  int usable = problem.empty() ? 1 : 0;
  tools::check(MPI_Bcast(&usable, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (!usable)
    throw UsageError(problem.empty() ? "an output file cannot be written (world rank 0 says why)"
                                     : problem);
}

constexpr const char* csv_header =
    "case,name,family,impl,ranks,processes,bytes,iterations,repetitions,time_unit,min,median,"
    "mean,p90,max,stddev,bytes_per_second_median,items_per_second_median,spread,noisy,"
    "validation_errors\n";

}  // namespace

SessionSettings SessionSettings::from(const BenchOptions& bench) {
  return {bench.json_path, bench.csv_path, bench.quiet, bench.watchdog, bench.noise_threshold, {}};
}

Session::Session(const SessionSettings& settings, const Invocation& inv)
    : settings_(settings),
      writer_(inv.world_rank == 0),
      table_out_(tools::writes_stdout(settings.json_path) || tools::writes_stdout(settings.csv_path)
                     ? stderr
                     : stdout),
      progress_(writer_ && !settings.quiet && isatty(STDERR_FILENO) != 0) {
  if (settings.json_path == "-" && settings.csv_path == "-")
    throw UsageError("--json - and --csv - would both write to stdout; give one of them a file");
  check_output_files(settings, inv.world_rank);
  document_ = {{"context", nlohmann::ordered_json::object()},
               {"benchmarks", nlohmann::ordered_json::array()}};
  if (writer_) {
    // A pipe, a device or a descriptor cannot be rewritten as results come:
    // it gets the files once, at the end, as stdout does.
    const auto at_end = [](const std::string& path) {
      return !path.empty() && !tools::resolve_output(path).replaceable;
    };
    json_at_end_ = at_end(settings.json_path);
    csv_at_end_ = at_end(settings.csv_path);
    if (!settings.csv_path.empty()) csv_text_ = csv_header;
  }
  watchdog_ = std::make_unique<Watchdog>(settings.watchdog, inv.world_rank, inv.world_size,
                                         [this](const std::string& report) {
                                           if (writer_) record_stall(report);
                                         });
}

Session::~Session() {
  watchdog_.reset();  // the monitor may call record_stall until it is joined
}

void Session::progress(std::string_view text) { progress_.show(text); }

void Session::clear_progress() { progress_.clear(); }

nlohmann::ordered_json& Session::current_case() { return document_["context"]["cases"].back(); }

void Session::begin_suite(nlohmann::ordered_json context) {
  suite_ = true;
  if (!writer_) return;
  std::lock_guard lock(mutex_);
  document_["context"] = std::move(context);
  document_["context"]["cases"] = nlohmann::ordered_json::array();
}

void Session::begin_case(const std::string& name, const std::string& subcommand,
                         const std::string& command_line) {
  case_name_ = name;
  if (!writer_) return;
  std::lock_guard lock(mutex_);
  document_["context"]["cases"].push_back({{"name", name},
                                           {"subcommand", subcommand},
                                           {"command_line", command_line},
                                           {"status", "running"}});
}

void Session::end_case(const std::string& status, const std::string& error) {
  if (!writer_) return;
  {
    std::lock_guard lock(mutex_);
    auto& c = current_case();
    c["status"] = status;
    if (!error.empty()) c["error"] = error;
  }
  write_json_file();
}

void Session::skip_case(const std::string& name, const std::string& subcommand,
                        const std::string& command_line, const std::string& reason) {
  if (!writer_) return;
  std::lock_guard lock(mutex_);
  document_["context"]["cases"].push_back({{"name", name},
                                           {"subcommand", subcommand},
                                           {"command_line", command_line},
                                           {"status", "skipped"},
                                           {"error", reason}});
}

void Session::begin_run(nlohmann::ordered_json context, int first_rank, int workers) {
  if (writer_) {
    context["watchdog_seconds"] = settings_.watchdog;
    context["noise_threshold"] = settings_.noise_threshold;
    // Said on stdout and kept in the file: such numbers measure the
    // scheduler, the binding or the MPI's lock, not the library.
    std::vector<std::string> notes;
    for (const std::string& note :
         {tools::affinity_warning(context), tools::oversubscription_note(context),
          tools::shared_rank_note(context), tools::libep_environment_note(context)}) {
      if (note.empty()) continue;
      fmt::print(table_out_, "{}: note: {}\n", tools::program_name(), note);
      notes.push_back(note);
    }
    std::fflush(table_out_);
    if (!notes.empty()) context["warnings"] = notes;

    std::lock_guard lock(mutex_);
    run_labels_ = nlohmann::ordered_json::object();
    for (const char* field : run_label_fields)
      if (context.contains(field)) run_labels_[field] = context[field];
    if (suite_) {
      auto& c = current_case();
      run_labels_["case"] = c["name"];
      // What the job's context already says is not repeated per case.
      nlohmann::ordered_json own = nlohmann::ordered_json::object();
      const auto& job = document_["context"];
      for (const auto& [key, value] : context.items())
        if (!job.contains(key) || job[key] != value) own[key] = value;
      c["context"] = std::move(own);
    } else {
      document_["context"] = std::move(context);
    }
  }
  watchdog_->watch(suite_ ? fmt::format("case '{}'", case_name_) : std::string(), first_rank,
                   workers);
}

Noise Session::add(const Series& series) {
  if (!writer_) return {};
  progress_.clear();
  Series labelled = series;
  labelled.labels.update(run_labels_);
  labelled.labels.update(series.labels);  // the series' own labels win
  Noise noise;
  {
    std::lock_guard lock(mutex_);
    noise = append_entries(document_["benchmarks"], labelled, settings_.noise_threshold);
    ++series_;
    if (noise.noisy) noisy_.push_back(series.name);
  }
  write_csv_row(labelled, summarize_metric(series, &Repetition::real_time), noise);
  write_json_file();
  return noise;
}

int Session::end_run(int status) {
  watchdog_->unwatch();
  if (!suite_) finish();
  return status == 0 && write_failed_ ? exit_failed : status;
}

int Session::end_validated_run(std::int64_t wrong, const char* what) {
  if (wrong == 0) return end_run(0);
  if (writer_) fmt::print(stderr, "{}: --validate: {} {}\n", tools::program_name(), wrong, what);
  return end_run(exit_failed);
}

void Session::finish() {
  watchdog_->unwatch();
  if (finished_) return;
  finished_ = true;
  if (writer_) write_last();
  // Every rank ends with the writer's verdict on the files, and only once it
  // has said it (ep::tools::job_verdict's reason).
  int failed = write_failed_ ? 1 : 0;
  tools::check(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  write_failed_ = failed != 0;
}

void Session::write_last() {
  progress_.clear();
  if (!noisy_.empty()) {
    fmt::print(table_out_,
               "\n{}: {} of {} results marked noisy (spread (p90 - min) / median above {:g}): {}\n",
               tools::program_name(), noisy_.size(), series_, settings_.noise_threshold,
               noise_hint);
    std::fflush(table_out_);
  }
  write_json_file(true);
  write_csv_file(true);
  // Said last, where a reader of the log looks: the results above are not
  // all in the file.
  for (const std::string* error : {&json_error_, &csv_error_}) {
    if (error->empty()) continue;
    fmt::print(stderr, "{}: {}\n", tools::program_name(), *error);
    write_failed_ = true;
  }
}

void Session::record_stall(const std::string& report) {
  {
    std::lock_guard lock(mutex_);
    auto& context = document_["context"];
    if (suite_ && context.contains("cases") && !context["cases"].empty()) {
      current_case()["status"] = "stalled";
      current_case()["error"] = report;
    } else {
      context["watchdog_report"] = report;
    }
  }
  write_json_file();
}

void Session::write_json_file(bool last) {
  if (!writer_ || settings_.json_path.empty() || (json_at_end_ && !last)) return;
  std::lock_guard lock(mutex_);
  // A failed rewrite leaves the last complete file; only the state after
  // the last write is reported (finish).
  try {
    write_json(settings_.json_path, document_);
    json_error_.clear();
  } catch (const tools::OutputError& e) {
    json_error_ = e.what();
  }
}

void Session::write_csv_file(bool last) {
  if (!writer_ || settings_.csv_path.empty() || (csv_at_end_ && !last)) return;
  try {
    tools::write_output("--csv", settings_.csv_path, csv_text_);
    csv_error_.clear();
  } catch (const tools::OutputError& e) {
    csv_error_ = e.what();
  }
}

void Session::write_csv_row(const Series& s, const Summary& time, const Noise& noise) {
  if (settings_.csv_path.empty()) return;
  const auto label = [&](const char* key) {
    if (!s.labels.contains(key)) return std::string();
    const auto& v = s.labels[key];
    return v.is_string() ? v.get<std::string>() : tools::dump_json(v);
  };
  const auto median = [&](std::optional<double> Repetition::*metric) -> std::optional<double> {
    const auto summary = summarize_metric(s, metric);
    return summary ? std::optional<double>(summary->median) : std::nullopt;
  };
  csv_text_ += fmt::format(
      "{},{},{},{},{},{},{},{},{},us,{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{:.4f},{},{}"
      "\n",
      csv_cell(label("case")), csv_cell(s.name), csv_cell(s.family), csv_cell(label("impl")),
      label("ranks"), label("processes"), label("bytes"), s.iterations, s.repetitions.size(),
      time.min, time.median, time.mean, time.p90, time.max, time.stddev,
      csv_number(median(&Repetition::bytes_per_second)),
      csv_number(median(&Repetition::items_per_second)), noise.spread, noise.noisy,
      s.validation_errors ? std::to_string(*s.validation_errors) : std::string());
  write_csv_file();
}

std::shared_ptr<Session> open_session(const BenchOptions& bench, const Invocation& inv) {
  if (auto& suite = suite_session()) return suite;
  return std::make_shared<Session>(SessionSettings::from(bench), inv);
}

void set_suite_session(std::shared_ptr<Session> session) { suite_session() = std::move(session); }

nlohmann::ordered_json describe_bench_run(const Invocation& inv, int busy_threads,
                                          const nlohmann::ordered_json& fields) {
  auto where = tools::describe_run(
      {inv.command_line, inv.thread_level_requested, inv.thread_level_provided, busy_threads});
  if (where.is_null()) return where;
  nlohmann::ordered_json context = {{"schema_version", result_schema_version},
                                    {"ep_bench_version", ep::version()},
                                    {"ep_bench_git_revision", ep::git_revision()}};
  context.update(fields);
  if (!context.contains("timing_method")) context["timing_method"] = timing_method;
  context.update(where);
  return context;
}

std::string noise_mark(const Noise& noise) {
  return noise.noisy ? fmt::format("noisy ({:.0f}% spread)", 100 * noise.spread) : std::string();
}

}  // namespace ep::bench
