#include "cli.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <sstream>

#include "cli_numbers.hpp"
#include "output_file.hpp"
#include "provenance.hpp"

namespace ep::inspect {

namespace {

constexpr const char* footer = R"(
Scenarios: a chain of steps joined by the word `then`. Each step acts on the
communicator that every endpoint got from the step before:
  create --ep N|N0,N1,...    endpoints per process: one count for all, or one
                             per process (0 allowed). A chain that does not
                             start with create starts with `create --ep 2`.
  dup                        ep::Comm_dup
  split --color E [--key E]  ep::Comm_split (key defaults to rank). An endpoint
                             whose color is undef gets no communicator and sits
                             out the rest of the chain.
  intercomm --group E [--key E] [--local-leader E] [--remote-leader E]
                             two groups by --group (0, 1 or undef), made with
                             ep::Comm_split (key orders each group, default
                             rank), joined by ep::Intercomm_create with the
                             step's communicator as peer. --local-leader: each
                             group's leader as a rank in the group (default 0).
                             --remote-leader: the other group's leader as a
                             rank of the peer; worked out if omitted, checked
                             if given.
  merge [--high E]           ep::Intercomm_merge (high defaults to `group`).
Each step has its own --help (ep-inspect split --help).

Expressions (E), evaluated for every endpoint before anything is built:
  integers; rank, size: the endpoint's in the communicator the step receives
  (in its own group for --local-leader and --high, which also know `group`,
  the endpoint's --group value); process: world rank of the hosting process;
  local: the endpoint's handle index in its process; + - * / % (truncating, as
  in C), unary -, < <= > >= == != (1 or 0), c ? a : b, parentheses, and undef
  (MPI_UNDEFINED), nested at most 256 levels deep (each parenthesis, sign,
  '?' branch and chained operator is one). Quote them for the shell:
  --color 'rank<2 ? undef : rank%2'.

--check holds every communicator to the invariants (each rank once, ranks
0..size-1, local ranks 0..n-1 on each process, one leader per process, every
process's view the same) and to MPI's rules recomputed from the scenario
(split: by key, then old rank; merge: low group first, each group in rank
order; sizes and remote sizes); read --check also wants a view from every
process of each communicator.

read takes a file as a rank map only if every number in it is an integer
within the file's own sizes (ranks below size, mpi ranks below the processes
listed), and JSON nested at most 128 levels deep without a key given twice.
It merges nothing from the dumps of more than one run (a reused EP_INSPECT
directory, or two runs' directories): what shows the mix is printed instead,
first the runs the files name ("run" in each dump, shared by the processes of
a run). Dumps of libep before run ids name none: among them, files an earlier
run left that agree with the later one cannot be told apart. Give each run
its own directory.

Examples:
  scripts/mpirun.sh -np 2 ep-inspect create --ep 2
  scripts/mpirun.sh -np 3 ep-inspect --check create --ep 1,3,2 then split --color 'rank%3' --key '-rank'
  scripts/mpirun.sh -np 2 ep-inspect --format table split --color 'rank<1 ? undef : 0'
  scripts/mpirun.sh -np 3 ep-inspect create --ep 1,3,2 then intercomm --group 'rank%2' \
      --local-leader 'size-1' then merge --high '1-group'
  EP_INSPECT=/tmp/maps scripts/mpirun.sh -np 2 ./app && ep-inspect read --check /tmp/maps

Exit status: 0 all well; 1 --check found a problem, a file is not a rank map,
the files are dumps of more than one run, or libep failed; 2 the command line
or the scenario is wrong (one rank says why, every rank exits).)";

// Options whose value may begin with '-' ("--key -rank"): glued to their
// value before CLI11 sees them, which would otherwise read "-rank" as an option.
constexpr std::array<std::string_view, 7> value_options{
    "--ep", "--color", "--key", "--group", "--local-leader", "--remote-leader", "--high"};

std::vector<std::string> glue_values(std::vector<std::string> args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool takes_value =
        std::find(value_options.begin(), value_options.end(), args[i]) != value_options.end();
    if (takes_value && i + 1 < args.size()) {
      out.push_back(args[i] + "=" + args[i + 1]);
      ++i;
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

struct StepOptions {
  std::string ep = "2", color, key, group, local_leader, remote_leader, high;
};

std::unique_ptr<CLI::App> make_app(Command& c, StepOptions& s, bool first) {
  auto app = std::make_unique<CLI::App>(
      "ep-inspect: builds libep communicators from a scenario (under mpirun) or reads the maps "
      "EP_INSPECT dumped, prints their rank maps as one JSON document or a table, and checks "
      "them.",
      "ep-inspect");
  app->add_option("--format", c.format, "json (one merged document) or table")
      ->check(CLI::IsMember({"json", "table"}))
      ->capture_default_str();
  app->add_flag("--check", c.check,
                "Check invariants and MPI's ordering rules; exit 1 on a failure");
  app->add_option("--output,-o", c.output, "Write to FILE instead of stdout ('-': stdout)")
      ->type_name("FILE")
      ->check(CLI::Validator([](std::string& path) { return ep::tools::output_name_problem(path); },
                             ""));
  app->require_subcommand(1, 1);
  app->footer(footer);
  auto sub = [&](const char* name, const char* what) {
    CLI::App* s_app = app->add_subcommand(name, what);
    s_app->fallthrough();  // global options may follow the step
    return s_app;
  };
  CLI::App* create = sub("create", "Endpoints over MPI_COMM_WORLD (ep::Comm_create_endpoints)");
  create->add_option("--ep", s.ep, "Endpoints per process: N, or N0,N1,... by process")
      ->capture_default_str();
  sub("dup", "ep::Comm_dup of every communicator");
  CLI::App* split = sub("split", "ep::Comm_split by color and key expressions");
  split->add_option("--color", s.color, "Color expression (undef: no communicator)")->required();
  split->add_option("--key", s.key, "Key expression (default: rank)");
  CLI::App* inter = sub("intercomm", "Two groups joined by ep::Intercomm_create");
  inter->add_option("--group", s.group, "Group expression: 0, 1 or undef")->required();
  inter->add_option("--key", s.key, "Order within a group (default: rank)");
  inter->add_option("--local-leader", s.local_leader,
                    "Leader of each group, a rank in it (default 0)");
  inter->add_option("--remote-leader", s.remote_leader,
                    "The other group's leader as a rank of the peer (default: worked out)");
  CLI::App* merge = sub("merge", "ep::Intercomm_merge of the inter-communicators");
  merge->add_option("--high", s.high, "High flag expression (default: group)");
  if (first) {
    CLI::App* read = sub("read", "Read the files EP_INSPECT dumped (no mpirun needed)");
    read->add_option("paths", c.read_paths, "Directories (their *.json files) or files")
        ->required()
        ->type_name("DIR|FILE");
  }
  return app;
}

// The step a parse selected (require_subcommand(1, 1): exactly one).
std::string chosen(const CLI::App& app) {
  const auto selected = app.get_subcommands();
  return selected.empty() ? std::string() : selected.front()->get_name();
}

// A parse that selected no step: CLI11 says only that one is required. Names
// the word that was meant as one (the first that is no option), or the
// 'then' a scenario began with; empty when neither explains it.
std::string missing_step(const CLI::App& app, std::size_t segment, std::size_t segments,
                         std::size_t steps) {
  for (const std::string& word : app.remaining()) {
    if (word.empty() || word.front() == '-') continue;
    if (segment == 0)
      return fmt::format(
          "'{}' is not a step (expected create, dup, split, intercomm, merge or read)", word);
    return fmt::format("step {}: '{}' is not a step (expected dup, split, intercomm or merge)",
                       steps, word);
  }
  if (segment == 0 && segments > 1)
    return "a scenario starts with a step (create, dup, split, intercomm or merge), not with "
           "'then'";
  return {};
}

std::vector<int> parse_counts(const std::string& text) {
  try {
    const std::vector<std::int64_t> counts =
        tools::parse_integer_list(text, 0, 1024, "an endpoint count");
    return {counts.begin(), counts.end()};
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("create --ep {}; give N or N0,N1,...", e.what()));
  }
}

std::optional<OptionExpr> expression(const char* step, int index, const char* option,
                                     const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    return OptionExpr{option, Expr::parse(text, variables_for(option))};
  } catch (const ExprError& e) {
    throw UsageError(fmt::format("step {} ({}): {}", index, step, describe_error(option, text, e)));
  }
}

// The step as a canonical command line, for messages and the output.
Step make_step(const CLI::App& app, const StepOptions& s, int index) {
  Step step;
  std::vector<std::string> words;
  const auto with = [&](const char* option, const std::string& value) {
    if (value.empty()) return;
    words.push_back(option);
    words.push_back(value);
  };
  const std::string name = chosen(app);
  if (name == "create") {
    step.op = Op::create;
    step.ep_counts = parse_counts(s.ep);
    words = {"create", "--ep", s.ep};
  } else if (name == "dup") {
    step.op = Op::dup;
    words = {"dup"};
  } else if (name == "split") {
    step.op = Op::split;
    step.color = expression("split", index, "--color", s.color);
    step.key = expression("split", index, "--key", s.key);
    words = {"split"};
    with("--color", s.color);
    with("--key", s.key);
  } else if (name == "intercomm") {
    step.op = Op::intercomm;
    step.group = expression("intercomm", index, "--group", s.group);
    step.key = expression("intercomm", index, "--key", s.key);
    step.local_leader = expression("intercomm", index, "--local-leader", s.local_leader);
    step.remote_leader = expression("intercomm", index, "--remote-leader", s.remote_leader);
    words = {"intercomm"};
    with("--group", s.group);
    with("--key", s.key);
    with("--local-leader", s.local_leader);
    with("--remote-leader", s.remote_leader);
  } else {
    step.op = Op::merge;
    step.high = expression("merge", index, "--high", s.high);
    words = {"merge"};
    with("--high", s.high);
  }
  step.text = tools::shell_join(words);
  return step;
}

std::vector<std::vector<std::string>> segments_of(int argc, char** argv) {
  std::vector<std::vector<std::string>> segments(1);
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "then") {
      segments.emplace_back();
    } else {
      segments.back().push_back(argv[i]);
    }
  }
  return segments;
}

}  // namespace

Parsed parse_command_line(int argc, char** argv) {
  Parsed parsed;
  Command& c = parsed.command;
  const auto segments = segments_of(argc, argv);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    StepOptions options;
    auto app = make_app(c, options, i == 0);
    std::vector<std::string> args = glue_values(segments[i]);
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    try {
      if (i > 0 && segments[i].empty()) throw UsageError("'then' must be followed by a step");
      app->parse(args);
      const std::string name = chosen(*app);
      if (name == "read") {
        if (segments.size() > 1) throw UsageError("read cannot be chained with 'then'");
        c.read = true;
        return parsed;
      }
      if (i > 0 && name == "create")
        throw UsageError(fmt::format("step {}: create can only be the first step", c.steps.size()));
      if (i == 0 && name != "create") {
        StepOptions defaults;
        auto implicit = make_app(c, defaults, true);
        implicit->parse(std::vector<std::string>{"create"});
        c.steps.push_back(make_step(*implicit, defaults, 0));
      }
      c.steps.push_back(make_step(*app, options, static_cast<int>(c.steps.size())));
    } catch (const CLI::ParseError& e) {
      const std::string step = chosen(*app).empty() && e.get_exit_code() != 0
                                   ? missing_step(*app, i, segments.size(), c.steps.size())
                                   : std::string();
      if (!step.empty()) {
        parsed.done = true;
        parsed.status = exit_usage;
        parsed.text = fmt::format("ep-inspect: {}\nRun with --help for more information.\n", step);
        return parsed;
      }
      std::ostringstream out;
      std::ostringstream err;
      parsed.status = app->exit(e, out, err) == 0 ? 0 : exit_usage;
      parsed.text =
          parsed.status == 0
              ? out.str()
              : fmt::format("ep-inspect: {}\nRun with --help for more information.\n", e.what());
      parsed.done = true;
      return parsed;
    } catch (const UsageError& e) {
      parsed.done = true;
      parsed.status = exit_usage;
      parsed.text = fmt::format("ep-inspect: {}\n", e.what());
      return parsed;
    }
  }
  return parsed;
}

}  // namespace ep::inspect
