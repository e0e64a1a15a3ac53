#include "run.hpp"

#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <set>

#include "cli_numbers.hpp"
#include "json_output.hpp"
#include "mpi_check.hpp"
#include "mpi_lifetime.hpp"
#include "provenance.hpp"
#include "session.hpp"
#include "stats.hpp"
#include "suite_file.hpp"

namespace ep::bench {

namespace {

constexpr const char* run_help = R"(
A suite file lists cases; each names a subcommand, its options (the long
option names without dashes) and, when it needs a particular job, the number
of MPI processes:
  {"description": "...",
   "defaults": {"repetitions": 5, "min-time": 0.005},
   "cases": [
     {"name": "p2p-ep-inter", "subcommand": "p2p", "processes": 2,
      "impl": "ep", "placement": "inter", "sizes": "1:4M:x4"},
     {"name": "split-ep", "subcommand": "split", "ep": 2}]}
Strings and numbers are option values, arrays are joined with commas, true
sets a flag. Defaults apply to every case whose subcommand has the option.
A case without "processes" runs on the processes there are. Cases that need
another number of processes are skipped with a message (an error with
--strict): run a suite once per process count it uses, the extra jobs with
--only-exact-np so that the cases for any job run once (scripts/bench.sh
does this).

Every case is checked before any runs, as its subcommand would check it
(a case for another process count against that count): a case that cannot
run (options its subcommand refuses together, a layout its "processes" or
this job cannot give) stops the suite before it starts.

Exit status: 0 every case ran and passed; 1 some case failed (wrong data
with --validate) or --json/--csv could not be written (said at the end,
with the path and the reason); 2 the suite file, one of its cases or the
command line is wrong (nothing ran).

Examples:
  scripts/mpirun.sh -np 2 ep-bench run suites/quick.json --json quick.json
  scripts/mpirun.sh -np 1 ep-bench run suites/quick.json --csv quick-np1.csv)";

/// One case, parsed and ready: its own parser (which holds the option values
/// the case's run reads) and the subcommand that runs it.
struct PreparedCase {
  const SuiteCase* spec = nullptr;
  std::unique_ptr<CLI::App> parser;
  Subcommand command;
  std::vector<std::string> arguments;  ///< after the subcommand's name
};

struct PreparedSuite {
  Suite suite;
  std::vector<PreparedCase> cases;
  std::string error;  ///< why the suite cannot run; nothing runs then
  int thread_level = MPI_THREAD_SINGLE;
};

/// A fresh copy of ep-bench's command line: options start at their defaults.
struct Parser {
  std::unique_ptr<CLI::App> app;
  std::vector<Subcommand> commands;
};

Parser fresh_parser(const SubcommandRegistry& registry) {
  Parser p{std::make_unique<CLI::App>("ep-bench", "ep-bench"), {}};
  p.commands = registry(*p.app);
  return p;
}

const Subcommand* benchmark_named(const Parser& p, const std::string& name) {
  for (const auto& c : p.commands)
    if (c.needs_mpi && c.app->get_name() == name) return &c;
  return nullptr;
}

std::string benchmark_names(const Parser& p) {
  std::string names;
  for (const auto& c : p.commands)
    if (c.needs_mpi) names += fmt::format("{}{}", names.empty() ? "" : ", ", c.app->get_name());
  return names;
}

void parse(Parser& p, const std::string& subcommand, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv{subcommand};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::reverse(argv.begin(), argv.end());  // CLI11 takes them last first
  p.app->parse(argv);
}

// The command-line words for one option of a case.
std::vector<std::string> words_of(const Suite& suite, const SuiteOption& o,
                                  const CLI::Option& opt) {
  const std::string flag = "--" + o.name;
  const bool is_flag = opt.get_expected_max() == 0;  // CLI11 flags take no value
  if (is_flag) {
    if (!o.value.is_boolean())
      throw SuiteError(suite.file, o.pointer,
                       fmt::format("{} is a flag: expected true or false", flag));
    return o.value.get<bool>() ? std::vector<std::string>{flag} : std::vector<std::string>{};
  }
  if (o.value.is_boolean())
    throw SuiteError(suite.file, o.pointer,
                     fmt::format("{} takes a value: expected a string or a number, not {}", flag,
                                 tools::dump_json(o.value)));
  const auto word = [](const nlohmann::ordered_json& v) {
    return v.is_string() ? v.get<std::string>() : tools::dump_json(v);
  };
  if (!o.value.is_array()) return {flag, word(o.value)};
  std::string joined;
  for (const auto& item : o.value) joined += (joined.empty() ? "" : ",") + word(item);
  return {flag, joined};
}

std::string parse_message(const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return "--help and --version have no place in a suite";
  return e.what();
}

PreparedCase prepare_case(const Suite& suite, const SuiteCase& c,
                          const SubcommandRegistry& registry, std::set<std::string>& used) {
  Parser parser = fresh_parser(registry);
  const Subcommand* command = benchmark_named(parser, c.subcommand);
  if (command == nullptr)
    throw SuiteError(suite.file, c.pointer + "/subcommand",
                     fmt::format("unknown benchmark '{}' (expected one of {})", c.subcommand,
                                 benchmark_names(parser)));
  std::vector<std::string> arguments;
  for (const SuiteOption& o : c.options) {
    const CLI::Option* opt = command->app->get_option_no_throw("--" + o.name);
    if (opt == nullptr) {
      if (o.from_defaults) continue;  // defaults serve the cases that have the option
      throw SuiteError(suite.file, o.pointer,
                       fmt::format("{} has no option --{} (see ep-bench {} --help)", c.subcommand,
                                   o.name, c.subcommand));
    }
    if (o.from_defaults) used.insert(o.name);
    const auto words = words_of(suite, o, *opt);
    // Parsed alone first, so that a bad value is blamed on its own key.
    Parser alone = fresh_parser(registry);
    try {
      parse(alone, c.subcommand, words);
    } catch (const CLI::ParseError& e) {
      throw SuiteError(suite.file, o.pointer, parse_message(e));
    }
    arguments.insert(arguments.end(), words.begin(), words.end());
  }
  try {
    parse(parser, c.subcommand, arguments);
  } catch (const CLI::ParseError& e) {
    throw SuiteError(suite.file, c.pointer, parse_message(e));
  }
  PreparedCase prepared;
  prepared.spec = &c;
  prepared.command = *command;
  prepared.parser = std::move(parser.app);
  prepared.arguments = std::move(arguments);
  return prepared;
}

// Reads and checks the whole suite before MPI starts (the cases' thread
// levels decide the one to request). Every rank does the same and reaches the
// same verdict.
void prepare_suite(PreparedSuite& p, const std::string& file, const SubcommandRegistry& registry) {
  try {
    p.suite = read_suite(file);
    std::set<std::string> used;
    p.cases.clear();
    for (const SuiteCase& c : p.suite.cases) {
      p.cases.push_back(prepare_case(p.suite, c, registry, used));
      p.thread_level = std::max(p.thread_level, p.cases.back().command.thread_level());
    }
    for (const SuiteOption& d : p.suite.defaults)
      if (used.count(d.name) == 0)
        throw SuiteError(file, d.pointer, fmt::format("no case's subcommand has --{}", d.name));
  } catch (const SuiteError& e) {
    p.error = e.what();
    p.thread_level = MPI_THREAD_SINGLE;
  }
}

std::string command_line_of(const PreparedCase& c) {
  std::vector<std::string> words{"ep-bench", c.spec->subcommand};
  words.insert(words.end(), c.arguments.begin(), c.arguments.end());
  return tools::shell_join(words);
}

std::string layout_mismatch(const PreparedCase& c, int world_size) {
  const int needs = *c.spec->processes;
  return fmt::format(
      "case '{}' needs {} process{}, this job has {}: skipped; run under mpirun -np {}",
      c.spec->name, needs, needs == 1 ? "" : "es", world_size, needs);
}

// Runs one case through its subcommand; returns its exit status and, when it
// failed, why.
int run_case(const PreparedCase& c, const Invocation& inv, Session& session, std::string* why) {
  Invocation mine = inv;
  mine.command_line = {inv.command_line.empty() ? "ep-bench" : inv.command_line.front(),
                       c.spec->subcommand};
  mine.command_line.insert(mine.command_line.end(), c.arguments.begin(), c.arguments.end());
  try {
    const int status = c.command.run(mine);
    if (status == exit_failed) *why = "--validate found wrong data";
    return status;
  } catch (const UsageError& e) {  // thrown on every rank alike: the suite goes on
    *why = e.what();
    if (session.writer())
      fmt::print(stderr, "ep-bench run: case '{}': {}\n", c.spec->name, e.what());
    return exit_usage;
  } catch (const std::exception& e) {  // this rank only: the others cannot go on
    session.end_case("failed", e.what());
    tools::abort_job(fmt::format("case '{}' failed on world rank {}: {}", c.spec->name,
                                 inv.world_rank, e.what()));
  }
}

// Every case, checked as its subcommand checks its options when it starts
// (Subcommand::check), before any case runs: a case that cannot run would
// otherwise be found after the cases before it, leaving the suite half
// done. A case for another process count is checked against that count,
// since a suite is run once per count. With --only-exact-np the cases for
// any job belong to the suite's main job, which checks them. Returns one
// message per case that cannot run, naming it.
std::vector<std::string> check_cases(const PreparedSuite& p, const RunOptions& o,
                                     const Invocation& inv) {
  std::vector<std::string> problems;
  for (const auto& c : p.cases) {
    if (!c.command.check || (o.only_exact_np && !c.spec->processes)) continue;
    Invocation job = inv;
    job.world_rank = 0;  // what a case needs does not depend on the rank
    const bool elsewhere = c.spec->processes && *c.spec->processes != inv.world_size;
    if (elsewhere) job.world_size = *c.spec->processes;
    try {
      c.command.check(job);
    } catch (const UsageError& e) {
      problems.push_back(
          fmt::format("{}: {}: case '{}'{}: {}", p.suite.file, c.spec->pointer, c.spec->name,
                      elsewhere ? fmt::format(" (\"processes\": {})", job.world_size)
                                : fmt::format(" (on this job's {} process{})", inv.world_size,
                                              inv.world_size == 1 ? "" : "es"),
                      e.what()));
    }
  }
  return problems;
}

int run_suite(const PreparedSuite& p, const RunOptions& o, const Invocation& inv) {
  const bool writer = inv.world_rank == 0;
  if (!p.error.empty())
    return tools::job_verdict(inv.world_rank, exit_usage,
                              [&] { fmt::print(stderr, "ep-bench run: {}\n", p.error); });
  std::vector<const PreparedCase*> runnable;
  std::vector<std::pair<const PreparedCase*, std::string>> skipped;
  std::size_t elsewhere = 0;  // --only-exact-np: cases left to the suite's main job
  for (const auto& c : p.cases) {
    if (c.spec->processes && *c.spec->processes != inv.world_size)
      skipped.emplace_back(&c, layout_mismatch(c, inv.world_size));
    else if (o.only_exact_np && !c.spec->processes)
      ++elsewhere;
    else
      runnable.push_back(&c);
  }
  if (const auto problems = check_cases(p, o, inv); !problems.empty()) {
    return tools::job_verdict(inv.world_rank, exit_usage, [&] {
      for (const auto& problem : problems) fmt::print(stderr, "ep-bench run: {}\n", problem);
      fmt::print(stderr, "ep-bench run: {} case{} of {} cannot run as written; nothing ran\n",
                 problems.size(), problems.size() == 1 ? "" : "s", p.suite.file);
    });
  }
  if (o.strict && !skipped.empty())
    throw UsageError(fmt::format("--strict: {}", skipped.front().second));
  if (runnable.empty() && elsewhere > 0)
    throw UsageError(fmt::format("--only-exact-np: no case of {} asks for {} process{}",
                                 p.suite.file, inv.world_size, inv.world_size == 1 ? "" : "es"));
  if (o.dry_run) {
    if (writer) {
      for (const auto* c : runnable) fmt::print("{}: {}\n", c->spec->name, command_line_of(*c));
      for (const auto& [c, reason] : skipped) fmt::print("{}: {}\n", c->spec->name, reason);
    }
    return 0;
  }
  if (runnable.empty())
    throw UsageError(fmt::format("no case of {} fits a job of {} process{}; {}", p.suite.file,
                                 inv.world_size, inv.world_size == 1 ? "" : "es",
                                 skipped.front().second));

  const SessionSettings settings{o.json_path, o.csv_path,        o.quiet,
                                 o.watchdog,  o.noise_threshold, {{"the suite file", o.suite}}};
  auto session = std::make_shared<Session>(settings, inv);
  session->begin_suite(describe_bench_run(inv, 1,
                                          {{"subcommand", "run"},
                                           {"suite", p.suite.file},
                                           {"suite_description", p.suite.description}}));
  for (const auto& [c, reason] : skipped) {
    // With --only-exact-np the other cases belong to the suite's other jobs.
    if (writer && !o.only_exact_np) fmt::print(stderr, "ep-bench run: {}\n", reason);
    session->skip_case(c->spec->name, c->spec->subcommand, command_line_of(*c), reason);
  }

  set_suite_session(session);
  int failed = 0;
  for (std::size_t i = 0; i < runnable.size(); ++i) {
    const PreparedCase& c = *runnable[i];
    if (writer) {
      fmt::print(session->table_out(), "\n## case {}/{} '{}': {}\n", i + 1, runnable.size(),
                 c.spec->name, command_line_of(c));
      std::fflush(session->table_out());
    }
    session->begin_case(c.spec->name, c.spec->subcommand, command_line_of(c));
    std::string why;
    const int status = run_case(c, inv, *session, &why);
    session->end_case(status == 0 ? "ok" : "failed", why);
    failed += status == 0 ? 0 : 1;
  }
  set_suite_session(nullptr);
  session->finish();
  if (writer)
    fmt::print(stderr, "ep-bench run: {} case{} ran, {} failed, {} skipped{}{}\n", runnable.size(),
               runnable.size() == 1 ? "" : "s", failed, skipped.size(),
               skipped.empty() ? "" : " (other process counts)",
               elsewhere == 0
                   ? std::string()
                   : fmt::format(", {} left to a job of any size (--only-exact-np)", elsewhere));
  return failed == 0 && !session->write_failed() ? 0 : exit_failed;
}

}  // namespace

Subcommand setup_run(CLI::App& parent, SubcommandRegistry registry) {
  auto options = std::make_shared<RunOptions>();
  options->noise_threshold = default_noise_threshold;
  auto prepared = std::make_shared<PreparedSuite>();
  CLI::App* app = parent.add_subcommand(
      "run", "Run the cases of a suite file one after another in this MPI job, into one result");
  app->add_option("suite", options->suite, "The suite file, e.g. suites/quick.json")
      ->required()
      ->type_name("SUITE.json");
  app->add_option("--json", options->json_path,
                  "Write all results as JSON to FILE, rewritten as each result comes ('-': "
                  "stdout at the end, and the tables go to stderr)")
      ->type_name("FILE");
  app->add_option("--csv", options->csv_path,
                  "Also write one summary row per result as CSV to FILE ('-': stdout)")
      ->type_name("FILE");
  app->add_flag("--quiet,-q", options->quiet, "No progress line on stderr");
  app->add_option("--watchdog", options->watchdog,
                  "End the job with a report when a case makes no progress for SECONDS (0: never)")
      ->type_name("SECONDS")
      ->check(tools::number_in(0.0, 1e6))
      ->capture_default_str();
  app->add_option("--noise-threshold", options->noise_threshold,
                  "Mark a result noisy when (p90 - min) / median of its repetitions exceeds this")
      ->check(tools::number_in(0.0, 1e6))
      ->capture_default_str();
  app->add_flag("--strict", options->strict,
                "Fail (status 2, before running anything) when a case needs another number of "
                "processes, instead of skipping it");
  app->add_flag("--only-exact-np", options->only_exact_np,
                "Run only the cases whose \"processes\" is this job's size, not those that run "
                "on any job: for the extra jobs when a suite is run under several process counts");
  app->add_flag("--dry-run", options->dry_run,
                "Check the suite and print each case's command line (or why it would be "
                "skipped); run nothing");
  app->footer(run_help);
  return {
      app,
      [options, prepared, registry] {
        prepare_suite(*prepared, options->suite, registry);
        return prepared->thread_level;
      },
      [options, prepared](const Invocation& inv) { return run_suite(*prepared, *options, inv); }};
}

}  // namespace ep::bench
