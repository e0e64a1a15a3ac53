#include "scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <tuple>

namespace ep::inspect {

namespace {

std::string step_label(const Step& s, int step) {
  return fmt::format("step {} ({})", step, s.text);
}

Bindings make_bindings(int rank, int size, int process, int local, int group) {
  Bindings b;
  b.set(Var::rank, rank);
  b.set(Var::size, size);
  b.set(Var::process, process);
  b.set(Var::local, local);
  b.set(Var::group, group);
  return b;
}

// Endpoints sorted by (key, old rank): the order MPI gives a split's members.
std::vector<int> order_by_key(std::vector<std::tuple<int, int, int>> key_rank_endpoint) {
  std::sort(key_rank_endpoint.begin(), key_rank_endpoint.end());
  std::vector<int> members;
  for (const auto& [key, rank, endpoint] : key_rank_endpoint) members.push_back(endpoint);
  return members;
}

}  // namespace

std::string_view op_name(Op op) {
  switch (op) {
    case Op::create:
      return "create";
    case Op::dup:
      return "dup";
    case Op::split:
      return "split";
    case Op::intercomm:
      return "intercomm";
    case Op::merge:
      return "merge";
  }
  return "?";
}

std::vector<Var> variables_for(std::string_view option) {
  std::vector<Var> vars{Var::rank, Var::size, Var::process, Var::local};
  if (option == "--local-leader" || option == "--remote-leader" || option == "--high")
    vars.push_back(Var::group);
  return vars;
}

Model::Model(const std::vector<Step>& steps, int processes) {
  if (steps.empty() || steps.front().op != Op::create)
    throw ScenarioError("a scenario starts with a create step");
  counts_.assign(static_cast<std::size_t>(processes), 0);
  for (const Step& s : steps) step_defs_.push_back(&s);
  create(steps.front());
  for (int i = 1; i < static_cast<int>(steps.size()); ++i) {
    const Step& s = steps[static_cast<std::size_t>(i)];
    const auto& previous = comms_.back();
    const bool inter = !previous.empty() && previous.front().inter;
    if ((s.op == Op::split || s.op == Op::intercomm) && inter)
      throw ScenarioError(
          fmt::format("{}: the communicators of step {} are inter-communicators; {} needs "
                      "intra-communicators (merge them first)",
                      step_label(s, i), i - 1, op_name(s.op)));
    if (s.op == Op::merge && !inter)
      throw ScenarioError(
          fmt::format("{}: the communicators of step {} are intra-communicators; merge needs the "
                      "inter-communicators of an intercomm step",
                      step_label(s, i), i - 1));
    if (s.op == Op::create)
      throw ScenarioError(fmt::format("{}: create can only be the first step", step_label(s, i)));
    if (i > 1 && comms_[static_cast<std::size_t>(i - 1)].empty())
      throw ScenarioError(
          fmt::format("{}: step {} left no endpoint with a communicator", step_label(s, i), i - 1));
    if (!comms_.back().empty() && comms_.back().front().either_order)
      throw ScenarioError(fmt::format(
          "{}: step {} merged with the same --high in both groups, which leaves the order of "
          "the groups to the MPI library, so no later step can be predicted; give the groups "
          "different --high values or end the chain there",
          step_label(s, i), i - 1));
    begin_step(i);
    if (s.op == Op::dup) dup(i);
    if (s.op == Op::split) split(s, i);
    if (s.op == Op::intercomm) intercomm(s, i);
    if (s.op == Op::merge) merge(s, i);
  }
}

int Model::endpoint_of(int process, int local) const {
  return std::accumulate(counts_.begin(), counts_.begin() + process, 0) + local;
}

void Model::create(const Step& s) {
  const int processes = static_cast<int>(counts_.size());
  if (s.ep_counts.size() == 1) {
    std::fill(counts_.begin(), counts_.end(), s.ep_counts.front());
  } else if (static_cast<int>(s.ep_counts.size()) == processes) {
    counts_ = s.ep_counts;
  } else {
    throw ScenarioError(fmt::format(
        "create --ep lists {} processes, but the job has {} (mpirun -np {}); give one count per "
        "process or a single count for all",
        s.ep_counts.size(), processes, processes));
  }
  for (int p = 0; p < processes; ++p) {
    for (int l = 0; l < counts_[static_cast<std::size_t>(p)]; ++l) {
      process_of_.push_back(p);
      local_of_.push_back(l);
    }
  }
  if (process_of_.empty()) throw ScenarioError("create --ep: the scenario has no endpoint at all");
  begin_step(0);
  ModelComm world;
  world.op = Op::create;
  for (int e = 0; e < endpoints(); ++e) {
    world.members[0].push_back(e);
    by_endpoint_[0][static_cast<std::size_t>(e)].comm = 0;
    by_endpoint_[0][static_cast<std::size_t>(e)].rank = e;
  }
  comms_[0].push_back(std::move(world));
}

void Model::begin_step(int step) {
  comms_.resize(static_cast<std::size_t>(step) + 1);
  by_endpoint_.resize(static_cast<std::size_t>(step) + 1);
  by_endpoint_.back().assign(static_cast<std::size_t>(endpoints()), EndpointStep{});
}

// The variables of an endpoint as it enters `step`: its rank and size in the
// communicator (its group, for an inter-communicator) the previous step gave it.
Bindings Model::bindings(int step, int endpoint) const {
  const EndpointStep& before = at(step - 1, endpoint);
  const ModelComm& c =
      comms_[static_cast<std::size_t>(step - 1)][static_cast<std::size_t>(before.comm)];
  const int size = static_cast<int>(c.members[c.inter ? before.group : 0].size());
  return make_bindings(before.rank, size, process_of(endpoint), local_of(endpoint), before.group);
}

int Model::evaluate(const OptionExpr& e, const Step& s, int step, int endpoint, const Bindings& b,
                    bool allow_undef) const {
  const auto context = [&] {
    return fmt::format(
        "\n  (evaluated for endpoint {} with rank={} size={} process={} local={}{})", endpoint,
        b.get(Var::rank), b.get(Var::size), b.get(Var::process), b.get(Var::local),
        e.option == "--local-leader" || e.option == "--remote-leader" || e.option == "--high"
            ? fmt::format(" group={}", b.get(Var::group))
            : "");
  };
  Value v;
  try {
    v = e.expr.eval(b);
  } catch (const ExprError& error) {
    throw ScenarioError(fmt::format("{}: {}{}", step_label(s, step),
                                    describe_error(e.option, e.expr.text(), error), context()));
  }
  if (v.undef && !allow_undef)
    throw ScenarioError(fmt::format("{}: {} '{}' is undef, which it cannot be{}",
                                    step_label(s, step), e.option, e.expr.text(), context()));
  if (v.undef) return INT_MIN;  // the caller maps it to MPI_UNDEFINED
  // INT_MIN is that mark, so a color or group that evaluates to it would
  // pass for undef: refused as the negative number it is.
  if (allow_undef && v.number == INT_MIN)
    throw ScenarioError(fmt::format("{}: {} '{}' is {}{}; {}", step_label(s, step), e.option,
                                    e.expr.text(), v.number, context(),
                                    e.option == "--group"
                                        ? "a group is 0, 1 or undef"
                                        : "MPI requires a non-negative color or undef"));
  if (v.number < INT_MIN || v.number > INT_MAX)
    throw ScenarioError(fmt::format("{}: {} '{}' is {}, which does not fit an int{}",
                                    step_label(s, step), e.option, e.expr.text(), v.number,
                                    context()));
  return static_cast<int>(v.number);
}

void Model::dup(int step) {
  const auto& previous = comms_[static_cast<std::size_t>(step - 1)];
  for (std::size_t c = 0; c < previous.size(); ++c) {
    ModelComm copy = previous[c];
    copy.step = step;
    copy.op = Op::dup;
    copy.parent = static_cast<int>(c);
    comms_.back().push_back(copy);
  }
  for (int e = 0; e < endpoints(); ++e) {
    EndpointStep& now = by_endpoint_.back()[static_cast<std::size_t>(e)];
    const EndpointStep& before = at(step - 1, e);
    now.comm = before.comm;
    now.group = before.group;
    now.rank = before.rank;
  }
}

void Model::split(const Step& s, int step) {
  const auto& previous = comms_[static_cast<std::size_t>(step - 1)];
  for (std::size_t c = 0; c < previous.size(); ++c) {
    std::map<int, std::vector<std::tuple<int, int, int>>> by_color;
    for (int e : previous[c].members[0]) {
      const Bindings b = bindings(step, e);
      EndpointStep& now = by_endpoint_.back()[static_cast<std::size_t>(e)];
      now.color = evaluate(*s.color, s, step, e, b, true);
      now.key = s.key ? evaluate(*s.key, s, step, e, b, false) : static_cast<int>(b.get(Var::rank));
      if (now.color == INT_MIN) continue;  // undef: no communicator
      if (now.color < 0)
        throw ScenarioError(fmt::format(
            "{}: --color '{}' is {} for endpoint {} (rank {}); MPI requires a non-negative color "
            "or undef",
            step_label(s, step), s.color->expr.text(), now.color, e, b.get(Var::rank)));
      by_color[now.color].emplace_back(now.key, static_cast<int>(b.get(Var::rank)), e);
    }
    for (auto& [color, entries] : by_color) {
      ModelComm made;
      made.step = step;
      made.op = Op::split;
      made.parent = static_cast<int>(c);
      made.color = color;
      made.members[0] = order_by_key(std::move(entries));
      const int index = static_cast<int>(comms_.back().size());
      for (int r = 0; r < static_cast<int>(made.members[0].size()); ++r) {
        EndpointStep& now =
            by_endpoint_
                .back()[static_cast<std::size_t>(made.members[0][static_cast<std::size_t>(r)])];
        now.comm = index;
        now.rank = r;
      }
      comms_.back().push_back(std::move(made));
    }
  }
}

// Each endpoint names its group with --group (0, 1 or undef) and its order in
// the group with --key; the two groups are made with Comm_split (color =
// group), so a group's ranks follow (key, old rank). Leaders are ranks in
// their group; the remote leader is the peer (parent) rank of the other
// group's leader, which the model works out so that a user need not.
void Model::intercomm(const Step& s, int step) {
  const auto& previous = comms_[static_cast<std::size_t>(step - 1)];
  for (std::size_t c = 0; c < previous.size(); ++c) {
    std::vector<std::tuple<int, int, int>> entries[2];
    for (int e : previous[c].members[0]) {
      const Bindings b = bindings(step, e);
      EndpointStep& now = by_endpoint_.back()[static_cast<std::size_t>(e)];
      const int g = evaluate(*s.group, s, step, e, b, true);
      now.color = g;
      if (g == INT_MIN) continue;
      if (g != 0 && g != 1)
        throw ScenarioError(fmt::format(
            "{}: --group '{}' is {} for endpoint {} (rank {}); a group is 0, 1 or undef",
            step_label(s, step), s.group->expr.text(), g, e, b.get(Var::rank)));
      now.key = s.key ? evaluate(*s.key, s, step, e, b, false) : static_cast<int>(b.get(Var::rank));
      entries[g].emplace_back(now.key, static_cast<int>(b.get(Var::rank)), e);
    }
    ModelComm made;
    made.step = step;
    made.op = Op::intercomm;
    made.parent = static_cast<int>(c);
    made.inter = true;
    for (int g = 0; g < 2; ++g) {
      made.members[g] = order_by_key(std::move(entries[g]));
      if (made.members[g].empty())
        throw ScenarioError(
            fmt::format("{}: --group '{}' leaves group {} empty in communicator {} of step {}; an "
                        "inter-communicator needs two non-empty groups",
                        step_label(s, step), s.group->expr.text(), g, c, step - 1));
    }
    const int index = static_cast<int>(comms_.back().size());
    for (int g = 0; g < 2; ++g) {
      for (int r = 0; r < static_cast<int>(made.members[g].size()); ++r) {
        EndpointStep& now =
            by_endpoint_
                .back()[static_cast<std::size_t>(made.members[g][static_cast<std::size_t>(r)])];
        now.comm = index;
        now.group = g;
        now.rank = r;
      }
    }
    choose_leaders(s, step, made);
    comms_.back().push_back(std::move(made));
  }
}

void Model::choose_leaders(const Step& s, int step, ModelComm& made) {
  for (int g = 0; g < 2; ++g) {
    const auto& members = made.members[g];
    const int size = static_cast<int>(members.size());
    for (int r = 0; r < size; ++r) {
      const int e = members[static_cast<std::size_t>(r)];
      const Bindings b = make_bindings(r, size, process_of(e), local_of(e), g);
      const int leader = s.local_leader ? evaluate(*s.local_leader, s, step, e, b, false) : 0;
      if (leader < 0 || leader >= size)
        throw ScenarioError(
            fmt::format("{}: --local-leader '{}' is {} in group {}, which has ranks 0..{}",
                        step_label(s, step), s.local_leader->expr.text(), leader, g, size - 1));
      if (r > 0 && leader != made.leaders[g])
        throw ScenarioError(fmt::format(
            "{}: --local-leader '{}' names different leaders within group {} ({} for its rank 0, "
            "{} for its rank {}); MPI requires every member of a group to name the same leader",
            step_label(s, step), s.local_leader->expr.text(), g, made.leaders[g], leader, r));
      made.leaders[g] = leader;
    }
  }
  for (int g = 0; g < 2; ++g) {
    const int their_leader = made.members[1 - g][static_cast<std::size_t>(made.leaders[1 - g])];
    const int expected = at(step - 1, their_leader).rank;  // in the peer (parent) communicator
    for (int e : made.members[g]) {
      EndpointStep& now = by_endpoint_.back()[static_cast<std::size_t>(e)];
      now.local_leader = made.leaders[g];
      now.remote_leader = expected;
      if (!s.remote_leader) continue;
      Bindings b = bindings(step, e);
      b.set(Var::group, g);
      const int given = evaluate(*s.remote_leader, s, step, e, b, false);
      if (given != expected)
        throw ScenarioError(fmt::format(
            "{}: --remote-leader '{}' is {} for endpoint {} of group {}, but the leader of group "
            "{} (its rank {}) is rank {} of the peer communicator",
            step_label(s, step), s.remote_leader->expr.text(), given, e, g, 1 - g,
            made.leaders[1 - g], expected));
    }
  }
}

// MPI: the group whose members pass high = false comes first; each group
// keeps its rank order. With the same flag in both groups the order is the
// library's choice.
void Model::merge(const Step& s, int step) {
  const auto& previous = comms_[static_cast<std::size_t>(step - 1)];
  for (std::size_t c = 0; c < previous.size(); ++c) {
    const ModelComm& inter = previous[c];
    ModelComm made;
    made.step = step;
    made.op = Op::merge;
    made.parent = static_cast<int>(c);
    for (int g = 0; g < 2; ++g) {
      const int size = static_cast<int>(inter.members[g].size());
      for (int r = 0; r < size; ++r) {
        const int e = inter.members[g][static_cast<std::size_t>(r)];
        const Bindings b = make_bindings(r, size, process_of(e), local_of(e), g);
        const int high = (s.high ? evaluate(*s.high, s, step, e, b, false) : g) != 0 ? 1 : 0;
        if (r > 0 && high != made.high[g])
          throw ScenarioError(fmt::format(
              "{}: --high '{}' differs within group {} ({} for its rank 0, {} for its rank {}); "
              "MPI requires one value per group",
              step_label(s, step), s.high->expr.text(), g, made.high[g], high, r));
        made.high[g] = high;
        by_endpoint_.back()[static_cast<std::size_t>(e)].high = high;
      }
      made.parts[g] = inter.members[g];
    }
    made.either_order = made.high[0] == made.high[1];
    const int low = made.high[0] <= made.high[1] ? 0 : 1;
    made.members[0] = inter.members[low];
    made.members[0].insert(made.members[0].end(), inter.members[1 - low].begin(),
                           inter.members[1 - low].end());
    const int index = static_cast<int>(comms_.back().size());
    for (int r = 0; r < static_cast<int>(made.members[0].size()); ++r) {
      EndpointStep& now =
          by_endpoint_
              .back()[static_cast<std::size_t>(made.members[0][static_cast<std::size_t>(r)])];
      now.comm = index;
      now.rank = r;
    }
    comms_.back().push_back(std::move(made));
  }
}

}  // namespace ep::inspect
