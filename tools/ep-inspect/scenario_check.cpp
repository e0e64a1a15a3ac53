// merge_scenario: the reports of a scenario run, merged per communicator and,
// with --check, held against the model of scenario.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "collect.hpp"
#include "map_book.hpp"

namespace ep::inspect {

namespace {

using json = nlohmann::json;

// The rule that orders a communicator's ranks, for messages.
const char* order_rule(Op op) {
  switch (op) {
    case Op::create:
      return "creation order (process, then handle)";
    case Op::dup:
      return "its parent's order";
    case Op::split:
      return "MPI's split order (key, then old rank)";
    case Op::intercomm:
      return "its group's split order (key, then old rank)";
    case Op::merge:
      return "the merge order (low group first, each group in its rank order)";
  }
  return "?";
}

class ScenarioMerger {
 public:
  ScenarioMerger(const Model& m, const std::vector<Step>& steps, bool check, Findings& f)
      : m_(m), steps_(steps), check_(check), f_(f) {}

  ordered_json run(const json& reports);

 private:
  const json* report(int step, int e) const {
    return at_[static_cast<std::size_t>(step)][static_cast<std::size_t>(e)];
  }
  // What a report's map says, learned once (index): a report may hold only
  // a patch (map_book.hpp), and a whole document is then made again from it
  // (map) only where one is read.
  struct Seen {
    std::string id;       // its communicator, "" if it names none
    bool usable = false;  // the shape of a rank-map document (shape_error)
    int group = 0;        // the viewer's group, in a usable inter-communicator's map
  };
  const Seen& seen(int step, int e) const {
    return seen_[static_cast<std::size_t>(step)][static_cast<std::size_t>(e)];
  }
  json map(int step, int e) const;
  std::string endpoint_name(int e) const {
    return fmt::format("endpoint {} (process {}, handle {})", e, m_.process_of(e), m_.local_of(e));
  }
  std::string where(int step, int mi) const;
  void index(const json& reports);
  void check_presence(int step);
  void check_comm(int step, int mi);
  void check_ranks(int step, const ModelComm& c, const std::string& where);
  void check_views(int step, const ModelComm& c, const std::string& where);
  ordered_json entry(int step, int mi) const;
  ordered_json origin(int step, int mi) const;

  const Model& m_;
  const std::vector<Step>& steps_;
  bool check_;
  Findings& f_;
  std::vector<std::vector<const json*>> at_;   // [step][endpoint] -> report
  std::vector<std::vector<Seen>> seen_;        // [step][endpoint]
  std::vector<std::vector<std::string>> ids_;  // [step][model comm] -> communicator id
  std::set<std::string> seen_ids_;
};

std::string ScenarioMerger::where(int step, int mi) const {
  const ModelComm& c = m_.comms(step)[static_cast<std::size_t>(mi)];
  std::string what = fmt::format("step {} ({})", step, steps_[static_cast<std::size_t>(step)].text);
  if (c.op == Op::split) what += fmt::format(", color {}", c.color);
  if (m_.comms(step).size() > 1 || c.parent > 0)
    what += fmt::format(", communicator {} of the step", mi);
  const std::string& id = ids_[static_cast<std::size_t>(step)][static_cast<std::size_t>(mi)];
  return id.empty() ? what : fmt::format("{} [{}]", what, id);
}

json ScenarioMerger::map(int step, int e) const {
  const json* r = report(step, e);
  if (!r) return nullptr;
  const json* base = nullptr;
  if (r->contains("map_base")) {
    const int b = (*r)["map_base"].get<int>();
    if (b >= 0 && b < m_.endpoints()) base = report(step, b);
  }
  return map_of(*r, base);
}

void ScenarioMerger::index(const json& reports) {
  at_.assign(static_cast<std::size_t>(m_.steps()),
             std::vector<const json*>(static_cast<std::size_t>(m_.endpoints()), nullptr));
  for (const json& r : reports) {
    const int step = r["step"].get<int>();
    const int e = r["endpoint"].get<int>();
    at_[static_cast<std::size_t>(step)][static_cast<std::size_t>(e)] = &r;
  }
  // One document at a time: the memory of one map, however many endpoints.
  seen_.assign(static_cast<std::size_t>(m_.steps()),
               std::vector<Seen>(static_cast<std::size_t>(m_.endpoints())));
  for (int step = 0; step < m_.steps(); ++step) {
    for (int e = 0; e < m_.endpoints(); ++e) {
      const json doc = map(step, e);
      Seen& s = seen_[static_cast<std::size_t>(step)][static_cast<std::size_t>(e)];
      if (doc.is_object() && doc.contains("communicator") && doc["communicator"].is_string())
        s.id = doc["communicator"].get<std::string>();
      s.usable = shape_error(doc).empty();
      if (s.usable) s.group = doc["viewer"].value("group", 0);
    }
  }
  ids_.assign(static_cast<std::size_t>(m_.steps()), {});
  for (int step = 0; step < m_.steps(); ++step) {
    for (const ModelComm& c : m_.comms(step)) {
      // The communicator as its lowest member endpoint names it.
      std::string id;
      for (int g = 0; g < 2 && id.empty(); ++g) {
        for (int e : c.members[g]) {
          if (!seen(step, e).id.empty()) {
            id = seen(step, e).id;
            break;
          }
        }
      }
      ids_[static_cast<std::size_t>(step)].push_back(id);
    }
  }
}

// Every endpoint has a communicator after a step exactly when MPI says so.
void ScenarioMerger::check_presence(int step) {
  for (int e = 0; e < m_.endpoints(); ++e) {
    const bool expected = m_.at(step, e).comm >= 0;
    const bool previous = step == 0 || m_.at(step - 1, e).comm >= 0;
    const json* r = report(step, e);
    const bool got = r && (*r)["has_comm"].get<bool>();
    if (previous && expected != got)
      f_.fail(fmt::format("step {} ({}): {} {} a communicator, but {}", step,
                          steps_[static_cast<std::size_t>(step)].text, endpoint_name(e),
                          got ? "got" : "did not get",
                          expected ? "its color puts it in one" : "its color is undef"));
  }
}

void ScenarioMerger::check_comm(int step, int mi) {
  const ModelComm& c = m_.comms(step)[static_cast<std::size_t>(mi)];
  const std::string& id = ids_[static_cast<std::size_t>(step)][static_cast<std::size_t>(mi)];
  const std::string w = where(step, mi);
  if (id.empty()) {
    f_.fail(fmt::format("{}: no member endpoint reported a rank map", w));
    return;
  }
  if (!seen_ids_.insert(id).second)
    f_.fail(
        fmt::format("{}: the id {} is already another communicator's; every new "
                    "communicator needs its own",
                    w, id));
  // Exactly the model's members carry this id.
  std::set<int> expected(c.members[0].begin(), c.members[0].end());
  expected.insert(c.members[1].begin(), c.members[1].end());
  for (int e = 0; e < m_.endpoints(); ++e) {
    const bool here = seen(step, e).id == id;
    if (here != (expected.count(e) > 0))
      f_.fail(fmt::format("{}: {} {} in it, but MPI's rules put it {}", w, endpoint_name(e),
                          here ? "is" : "is not", here ? "elsewhere" : "there"));
  }
  check_ranks(step, c, w);
  check_views(step, c, w);
}

void ScenarioMerger::check_ranks(int step, const ModelComm& c, const std::string& w) {
  std::vector<int> groups[2] = {c.members[0], c.members[1]};
  if (c.either_order) {
    // Both groups passed the same high: either may come first, as a block.
    const json* r = report(step, c.parts[1].front());
    const bool second_first = r && r->value("rank", -1) == 0;
    groups[0] = second_first ? c.parts[1] : c.parts[0];
    groups[0].insert(groups[0].end(), (second_first ? c.parts[0] : c.parts[1]).begin(),
                     (second_first ? c.parts[0] : c.parts[1]).end());
  }
  const int sides = c.inter ? 2 : 1;
  for (int g = 0; g < sides; ++g) {
    const int size = static_cast<int>(groups[g].size());
    const int remote = c.inter ? static_cast<int>(groups[1 - g].size()) : 0;
    for (int r = 0; r < size; ++r) {
      const int e = groups[g][static_cast<std::size_t>(r)];
      const json* rep = report(step, e);
      if (!rep || !(*rep)["has_comm"].get<bool>()) continue;  // check_presence said so
      const std::string who =
          c.inter ? fmt::format("{} (group {})", endpoint_name(e), g) : endpoint_name(e);
      if ((*rep)["rank"].get<int>() != r)
        f_.fail(fmt::format("{}: {} has rank {}, but {} puts it at rank {}", w, who,
                            (*rep)["rank"].get<int>(), order_rule(c.op), r));
      if ((*rep)["size"].get<int>() != size || (*rep)["inter"].get<bool>() != c.inter ||
          (*rep)["remote_size"].get<int>() != remote)
        f_.fail(fmt::format(
            "{}: {} sees {} {}-communicator of size {} (remote size {}), expected {} of size {} "
            "(remote size {})",
            w, who, "an", (*rep)["inter"].get<bool>() ? "inter" : "intra",
            (*rep)["size"].get<int>(), (*rep)["remote_size"].get<int>(),
            c.inter ? "an inter-communicator" : "an intra-communicator", size, remote));
    }
  }
}

// Every member's document: well-formed, consistent, about the member itself,
// and the same communicator as the first member sees it.
void ScenarioMerger::check_views(int step, const ModelComm& c, const std::string& w) {
  json first;  // its common part
  int first_endpoint = -1;
  int libep_group_of[2] = {-1, -1};  // by --group value
  for (int g = 0; g < 2; ++g) {
    for (int e : c.members[g]) {
      const json* rep = report(step, e);
      if (!rep || !(*rep)["has_comm"].get<bool>()) continue;
      const std::string who = fmt::format("{}: as {} sees it", w, endpoint_name(e));
      if (rep->contains("map_error")) {
        f_.fail(fmt::format("{}: {}", who, (*rep)["map_error"].get<std::string>()));
        continue;
      }
      const json doc = map(step, e);
      if (const std::string why = shape_error(doc); !why.empty()) {
        f_.fail(fmt::format("{}: {}", who, why));
        continue;
      }
      check_document(doc, who, f_);
      const json& viewer = doc["viewer"];
      if (viewer.value("rank", -1) != (*rep)["rank"].get<int>() ||
          viewer["world_rank"].get<int>() != m_.process_of(e))
        f_.fail(
            fmt::format("{}: the viewer is rank {} on world rank {}, but the endpoint is rank "
                        "{} on world rank {}",
                        who, viewer.value("rank", -1), viewer["world_rank"].get<int>(),
                        (*rep)["rank"].get<int>(), m_.process_of(e)));
      if (c.inter) {
        const int lg = viewer.value("group", -1);
        if (libep_group_of[g] < 0) libep_group_of[g] = lg;
        if (lg != libep_group_of[g] || (g == 1 && lg == libep_group_of[0]))
          f_.fail(
              fmt::format("{}: the viewer is in libep group {}, which does not separate "
                          "--group {} from the other group",
                          who, lg, g));
      }
      if (first_endpoint < 0) {
        first = common_part(doc);
        first_endpoint = e;
      } else if (const std::string diff = first_difference(first, common_part(doc));
                 !diff.empty()) {
        f_.fail(fmt::format("{}: the view of {} and that of {} differ {}", w,
                            endpoint_name(first_endpoint), endpoint_name(e), diff));
      }
    }
  }
}

ordered_json ScenarioMerger::origin(int step, int mi) const {
  const ModelComm& c = m_.comms(step)[static_cast<std::size_t>(mi)];
  ordered_json o = {{"step", step}, {"operation", op_name(c.op)}};
  o["parent"] =
      step == 0 ? ordered_json(nullptr)
                : ordered_json(
                      ids_[static_cast<std::size_t>(step - 1)][static_cast<std::size_t>(c.parent)]);
  if (c.op == Op::split) o["color"] = c.color;
  if (c.op == Op::intercomm) o["local_leaders"] = {c.leaders[0], c.leaders[1]};
  if (c.op == Op::merge) o["high"] = {c.high[0], c.high[1]};
  return o;
}

// The communicator as its lowest endpoint sees it, where it came from, and
// which endpoint (by its rank in the create step) holds each rank.
ordered_json ScenarioMerger::entry(int step, int mi) const {
  const ModelComm& c = m_.comms(step)[static_cast<std::size_t>(mi)];
  const std::string& id = ids_[static_cast<std::size_t>(step)][static_cast<std::size_t>(mi)];
  int doc_endpoint = -1;
  std::vector<std::pair<int, int>> ranks[2];  // by libep group: (rank, endpoint)
  ordered_json group_of_value = {nullptr, nullptr};
  int views = 0;
  for (int g = 0; g < 2; ++g) {
    for (int e : c.members[g]) {
      const json* rep = report(step, e);
      if (!rep || !seen(step, e).usable || seen(step, e).id != id) continue;
      ++views;
      const int lg = c.inter ? seen(step, e).group : 0;
      group_of_value[static_cast<std::size_t>(g)] = lg;
      ranks[lg == 1 ? 1 : 0].emplace_back((*rep)["rank"].get<int>(), e);
      if (doc_endpoint < 0 || e < doc_endpoint) doc_endpoint = e;
    }
  }
  if (doc_endpoint < 0) return nullptr;
  const json common = common_part(map(step, doc_endpoint));
  ordered_json endpoints[2] = {ordered_json::array(), ordered_json::array()};
  for (int lg = 0; lg < 2; ++lg) {
    std::sort(ranks[lg].begin(), ranks[lg].end());
    for (const auto& [rank, e] : ranks[lg]) endpoints[lg].push_back(e);
  }
  ordered_json o = origin(step, mi);
  if (c.inter) o["libep_group_of_group"] = group_of_value;
  ordered_json extra = {{"origin", o}};
  extra["endpoints"] = c.inter ? ordered_json{endpoints[0], endpoints[1]} : endpoints[0];
  extra["views"] = views;
  return communicator_entry(common, extra);
}

ordered_json ScenarioMerger::run(const json& reports) {
  index(reports);
  ordered_json communicators = ordered_json::array();
  for (int step = 0; step < m_.steps(); ++step) {
    if (check_) check_presence(step);
    for (int mi = 0; mi < static_cast<int>(m_.comms(step).size()); ++mi) {
      if (check_) check_comm(step, mi);
      ordered_json e = entry(step, mi);
      if (!e.is_null()) communicators.push_back(std::move(e));
    }
  }
  ordered_json texts = ordered_json::array();
  for (const Step& s : steps_) texts.push_back(s.text);
  return {{"schema", "ep-inspect"},
          {"schema_version", 1},
          {"source",
           {{"kind", "scenario"},
            {"processes", m_.processes()},
            {"endpoints_per_process", m_.counts()},
            {"steps", texts}}},
          {"communicators", communicators}};
}

}  // namespace

ordered_json merge_scenario(const Model& model, const std::vector<Step>& steps, const json& reports,
                            bool check, Findings& f) {
  return ScenarioMerger(model, steps, check, f).run(reports);
}

}  // namespace ep::inspect
