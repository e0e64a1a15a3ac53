// Unit tests of ep-inspect's parts that need no MPI processes: the
// expression language, the scenario model (MPI's ordering rules), the
// document checks, and --check's comparison of reports with the model, fed
// with reports made here, some of them wrong on purpose.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>

#include "collect.hpp"
#include "expr.hpp"
#include "map_book.hpp"
#include "maps.hpp"
#include "runs.hpp"
#include "scenario.hpp"

namespace ep::inspect {
namespace {

using json = nlohmann::json;

const std::array<Var, 4> basic{Var::rank, Var::size, Var::process, Var::local};

Value eval(const std::string& text, int rank = 0, int size = 4) {
  Bindings b;
  b.set(Var::rank, rank);
  b.set(Var::size, size);
  return Expr::parse(text, basic).eval(b);
}

// The position an expression error reports, or 0 if there is none.
int error_position(const std::string& text, int rank = 0) {
  try {
    eval(text, rank);
  } catch (const ExprError& e) {
    return e.position();
  }
  return 0;
}

TEST(Expr, PrecedenceAndCSemantics) {
  EXPECT_EQ(eval("1+2*3").number, 7);
  EXPECT_EQ(eval("(1+2)*3").number, 9);
  EXPECT_EQ(eval("-rank%3", 4).number, -1);  // C: the sign follows the dividend
  EXPECT_EQ(eval("-7/2").number, -3);        // C: truncation toward zero
  EXPECT_EQ(eval("size-1-rank", 1).number, 2);
  EXPECT_EQ(eval("rank<2", 1).number, 1);
  EXPECT_EQ(eval("2 ? 3 : 0 ? 5 : 6").number, 3);
  EXPECT_EQ(eval("0 ? 3 : 0 ? 5 : 6").number, 6);
  EXPECT_TRUE(eval("rank<2 ? undef : rank%2", 1).undef);
  EXPECT_EQ(eval("rank<2 ? undef : rank%2", 3).number, 1);
  EXPECT_EQ(eval(" - - rank ", 5).number, 5);
}

TEST(Expr, ErrorsSayWhere) {
  EXPECT_EQ(error_position("rank+foo"), 6);
  EXPECT_EQ(error_position("rank/(size-size)"), 5);
  EXPECT_EQ(error_position("1.5"), 1);
  EXPECT_EQ(error_position("(rank"), 6);
  EXPECT_EQ(error_position("rank +"), 7);
  EXPECT_EQ(error_position("undef+1"), 6);
  EXPECT_EQ(error_position("rank = 1"), 6);
  EXPECT_EQ(error_position("3 4"), 3);
  EXPECT_EQ(error_position("9223372036854775807+1"), 20);
  EXPECT_EQ(error_position("rank%rank", 0), 5);  // only for rank 0
  EXPECT_EQ(error_position("rank%rank", 1), 0);
  // `group` exists, but not for --color.
  EXPECT_THROW(Expr::parse("group", basic), ExprError);
  const std::array<Var, 5> with_group{Var::rank, Var::size, Var::process, Var::local, Var::group};
  EXPECT_NO_THROW(Expr::parse("1-group", with_group));
}

TEST(Expr, DescribedErrorPointsAtTheColumn) {
  try {
    eval("rank/(size-size)");
    FAIL() << "no error";
  } catch (const ExprError& e) {
    EXPECT_EQ(describe_error("--color", "rank/(size-size)", e),
              "--color 'rank/(size-size)': position 5: division by zero\n"
              "    rank/(size-size)\n"
              "        ^");
  }
}

std::string repeat(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// Every way an expression nests, far past the bound (the parser or the
// evaluator used to overflow the stack), and just within it.
TEST(Expr, NestingIsBoundedAndSaysWhere) {
  constexpr int deep = 100000;
  const int past = max_expr_depth + 1;
  struct Case {
    std::string text;
    int position;  // of the token one level too deep
  };
  const Case cases[] = {
      {repeat("(", deep) + "rank" + repeat(")", deep), past},
      {repeat("-", deep) + "rank", past},
      {repeat("+", deep) + "rank", past},
      {repeat("- (", deep) + "1" + repeat(")", deep), 3 * (past / 2) + 1},
      {repeat("1?", deep) + "0" + repeat(":0", deep), 2 * past},
      {repeat("0?0:", deep) + "0", 4 * past - 2},
      {"rank" + repeat("+rank", deep), 5 * (past - 1)},
      {"rank" + repeat("*2", deep), 2 * (past - 1) + 3},
  };
  for (const Case& c : cases) {
    try {
      Expr::parse(c.text, basic);
      ADD_FAILURE() << "no error for " << c.text.substr(0, 20);
    } catch (const ExprError& e) {
      EXPECT_EQ(e.position(), c.position) << c.text.substr(0, 20);
      EXPECT_NE(std::string(e.what()).find("nested too deeply"), std::string::npos);
      const std::string shown = describe_error("--color", c.text, e);
      EXPECT_LT(shown.size(), 400u) << "a long expression is shown in part";
      EXPECT_NE(shown.find(fmt::format("({} characters): position {}: nested too deeply",
                                       c.text.size(), c.position)),
                std::string::npos)
          << shown;
    }
  }
  const int within = max_expr_depth - 1;
  EXPECT_EQ(eval(repeat("(", within) + "rank" + repeat(")", within), 3).number, 3);
  EXPECT_EQ(eval(repeat("-", within) + "rank", 3).number, -3);
  EXPECT_EQ(eval("rank" + repeat("+rank", within), 1).number, max_expr_depth);
  EXPECT_EQ(eval(repeat("0?0:", within) + "7").number, 7);
}

OptionExpr option(const char* name, const char* text) {
  return {name, Expr::parse(text, variables_for(name))};
}

Step create(std::vector<int> counts) {
  Step s;
  s.op = Op::create;
  s.text = "create";
  s.ep_counts = std::move(counts);
  return s;
}

Step split(const char* color, const char* key) {
  Step s;
  s.op = Op::split;
  s.text = "split";
  s.color = option("--color", color);
  if (key) s.key = option("--key", key);
  return s;
}

Step intercomm(const char* group, const char* leader) {
  Step s;
  s.op = Op::intercomm;
  s.text = "intercomm";
  s.group = option("--group", group);
  if (leader) s.local_leader = option("--local-leader", leader);
  return s;
}

Step merge(const char* high) {
  Step s;
  s.op = Op::merge;
  s.text = "merge";
  if (high) s.high = option("--high", high);
  return s;
}

TEST(Model, SplitOrdersByKeyThenOldRankAcrossProcesses) {
  // 2 processes x 2 endpoints; the worked example of libep's split_map.hpp.
  const std::vector<Step> steps{create({2}), split("rank%2", "-rank")};
  const Model m(steps, 2);
  ASSERT_EQ(m.comms(1).size(), 2u);
  EXPECT_EQ(m.comms(1)[0].members[0], (std::vector<int>{2, 0}));
  EXPECT_EQ(m.comms(1)[1].members[0], (std::vector<int>{3, 1}));
  EXPECT_EQ(m.at(1, 0).rank, 1);
  EXPECT_EQ(m.process_of(3), 1);
  EXPECT_EQ(m.local_of(3), 1);
}

TEST(Model, TiesKeepTheOldOrderAndUndefLeaves) {
  const std::vector<Step> steps{create({1, 3, 2}), split("rank==0 ? undef : rank%2", "rank/4")};
  const Model m(steps, 3);
  EXPECT_EQ(m.at(1, 0).comm, -1);
  EXPECT_EQ(m.comms(1)[0].members[0], (std::vector<int>{2, 4}));
  EXPECT_EQ(m.comms(1)[1].members[0], (std::vector<int>{1, 3, 5}));
}

TEST(Model, IntercommLeadersAndMergeOrder) {
  const std::vector<Step> steps{create({1, 3, 2}), intercomm("rank%2", "size-1"), merge("1-group")};
  const Model m(steps, 3);
  const ModelComm& inter = m.comms(1)[0];
  EXPECT_EQ(inter.members[0], (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(inter.members[1], (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(inter.leaders[0], 2);
  EXPECT_EQ(m.at(1, 0).remote_leader, 5);  // group 1's leader (its rank 2) in the parent
  EXPECT_EQ(m.at(1, 1).remote_leader, 4);
  // Group 1 passes high 0: it comes first.
  EXPECT_EQ(m.comms(2)[0].members[0], (std::vector<int>{1, 3, 5, 0, 2, 4}));
  EXPECT_FALSE(m.comms(2)[0].either_order);
}

TEST(Model, BadScenariosFailAlike) {
  EXPECT_THROW(Model({create({1, 2})}, 3), ScenarioError);
  EXPECT_THROW(Model({create({2}), split("-1", nullptr)}, 2), ScenarioError);
  EXPECT_THROW(Model({create({2}), split("rank/(rank-rank)", nullptr)}, 2), ScenarioError);
  EXPECT_THROW(Model({create({2}), intercomm("rank", nullptr)}, 2), ScenarioError);
  EXPECT_THROW(Model({create({2}), intercomm("rank%2", "rank")}, 2), ScenarioError);
  EXPECT_THROW(Model({create({2}), merge(nullptr)}, 2), ScenarioError);
  EXPECT_THROW(
      Model({create({2}), intercomm("rank%2", nullptr), merge("0"), split("0", nullptr)}, 2),
      ScenarioError);
  try {
    Model({create({2}), split("rank%(rank-1)", nullptr)}, 2);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("--color 'rank%(rank-1)': position 5: modulo by zero"),
              std::string::npos)
        << e.what();
  }
}

// --- --check against reports made here ---------------------------------------

// The document libep would give endpoint `viewer` of an intra-communicator
// whose ranks are `members` (endpoint ids): processes in ascending order,
// local ranks in rank order.
json intra_document(const Model& m, const std::vector<int>& members, int viewer, std::string id) {
  std::vector<int> processes;
  for (int e : members) processes.push_back(m.process_of(e));
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  const auto mpi_of = [&](int p) {
    return static_cast<int>(std::find(processes.begin(), processes.end(), p) - processes.begin());
  };
  json doc = {{"schema", "libep-rank-map"},   {"schema_version", 1},
              {"communicator", id},           {"kind", "intra"},
              {"mpi_size", processes.size()}, {"size", members.size()}};
  std::map<int, int> next_local;
  json map = json::array();
  std::vector<int> leader(processes.size(), -1), count(processes.size(), 0);
  for (std::size_t r = 0; r < members.size(); ++r) {
    const int p = m.process_of(members[r]);
    const int local = next_local[p]++;
    if (local == 0) leader[static_cast<std::size_t>(mpi_of(p))] = static_cast<int>(r);
    ++count[static_cast<std::size_t>(mpi_of(p))];
    map.push_back({{"rank", r},
                   {"mpi_rank", mpi_of(p)},
                   {"world_rank", p},
                   {"host", "h"},
                   {"local_rank", local}});
  }
  json procs = json::array();
  for (std::size_t i = 0; i < processes.size(); ++i)
    procs.push_back({{"mpi_rank", i},
                     {"world_rank", processes[i]},
                     {"host", "h"},
                     {"endpoints", count[i]},
                     {"leader", leader[i]}});
  doc["processes"] = procs;
  doc["rank_map"] = map;
  const auto at = std::find(members.begin(), members.end(), viewer) - members.begin();
  doc["viewer"] = {{"mpi_rank", mpi_of(m.process_of(viewer))},
                   {"world_rank", m.process_of(viewer)},
                   {"rank", at}};
  return doc;
}

json reports_for(const Model& m, const std::vector<std::vector<int>>& actual_members) {
  json reports = json::array();
  for (int e = 0; e < m.endpoints(); ++e) {
    for (int step = 0; step < m.steps(); ++step) {
      const int c = m.at(step, e).comm;
      json r = {{"step", step},
                {"endpoint", e},
                {"process", m.process_of(e)},
                {"local", m.local_of(e)},
                {"has_comm", c >= 0}};
      if (c >= 0) {
        const auto& members =
            step == 0 ? m.comms(0)[0].members[0] : actual_members[static_cast<std::size_t>(c)];
        const json doc = intra_document(m, members, e, fmt::format("w0c{}", step * 10 + c));
        r["rank"] = doc["viewer"]["rank"];
        r["size"] = members.size();
        r["inter"] = false;
        r["remote_size"] = 0;
        r["map"] = doc;
      }
      reports.push_back(r);
    }
  }
  return reports;
}

TEST(Check, AgreesWithAModelRun) {
  const std::vector<Step> steps{create({2}), split("rank%2", "-rank")};
  const Model m(steps, 2);
  Findings f;
  const auto merged = merge_scenario(m, steps, reports_for(m, {{2, 0}, {3, 1}}), true, f);
  EXPECT_TRUE(f.failures.empty()) << f.failures.front();
  EXPECT_EQ(merged["communicators"].size(), 3u);
  EXPECT_EQ(merged["communicators"][1]["endpoints"], (json{2, 0}));
}

TEST(Check, CatchesAProcessFirstOrder) {
  // The order of the original endpoints note: by process, key only within a
  // process. MPI orders by key across processes.
  const std::vector<Step> steps{create({2}), split("rank%2", "-rank")};
  const Model m(steps, 2);
  Findings f;
  merge_scenario(m, steps, reports_for(m, {{0, 2}, {1, 3}}), true, f);
  ASSERT_FALSE(f.failures.empty());
  const bool named = std::any_of(f.failures.begin(), f.failures.end(), [](const std::string& s) {
    return s.find(
               "endpoint 2 (process 1, handle 0) has rank 1, but MPI's split order (key, then "
               "old rank) puts it at rank 0") != std::string::npos;
  });
  EXPECT_TRUE(named) << f.failures.front();
}

TEST(Check, CatchesABrokenDocument) {
  const Model m({create({2})}, 2);
  json doc = intra_document(m, {0, 1, 2, 3}, 0, "w0c0");
  Findings ok;
  check_document(doc, "d", ok);
  EXPECT_TRUE(ok.failures.empty());
  doc["rank_map"][1]["local_rank"] = 0;
  Findings f;
  check_document(doc, "d", f);
  ASSERT_FALSE(f.failures.empty());
  EXPECT_NE(f.failures.front().find("ranks 0 and 1 are both local rank 0 of mpi rank 0"),
            std::string::npos)
      << f.failures.front();
  json other = intra_document(m, {0, 1, 2, 3}, 2, "w0c0");
  other["rank_map"][3]["mpi_rank"] = 0;
  EXPECT_EQ(
      first_difference(common_part(intra_document(m, {0, 1, 2, 3}, 0, "w0c0")), common_part(other)),
      "at /rank_map/3/mpi_rank: 1 vs 0");
}

// The reports as the runner files them: each process keeps the first map
// of a communicator whole and the others as patches (map_book.hpp).
json filed(const Model& m, json reports) {
  std::vector<MapBook> books(static_cast<std::size_t>(m.processes()));
  for (json& r : reports) {
    if (!r.contains("map")) continue;
    json doc = std::move(r["map"]);
    r.erase("map");
    books[r["process"].get<std::size_t>()].file(r, r["step"].get<int>(), r["endpoint"].get<int>(),
                                                std::move(doc));
  }
  return reports;
}

// One whole map per communicator and process, whatever the endpoint count:
// N endpoints' reports held N x N map entries.
TEST(MapBook, OneMapPerCommunicatorAndProcess) {
  const std::vector<Step> steps{create({3, 2}), split("rank%2", "-rank")};
  const Model m(steps, 2);
  const json reports = filed(m, reports_for(m, {{4, 2, 0}, {3, 1}}));
  int whole = 0;
  for (const json& r : reports) {
    if (r.contains("map")) {
      ++whole;
      continue;
    }
    ASSERT_TRUE(r.contains("map_patch")) << r.dump();
    EXPECT_EQ(r["map_patch"].size(), 1u) << r.dump();  // the viewer's rank
    EXPECT_EQ(r["map_patch"][0]["path"], "/viewer/rank") << r.dump();
  }
  // Endpoints 0-2 on process 0, 3-4 on process 1. Step 0: one communicator
  // on both processes; step 1: color 0 (endpoints 4, 2, 0) and color 1 (3,
  // 1), each on both.
  EXPECT_EQ(whole, 2 + 2 + 2);
  for (const json& r : reports) {
    if (!r.contains("map_base")) continue;
    const json& base = reports[static_cast<std::size_t>(r["map_base"].get<int>() * m.steps() +
                                                        r["step"].get<int>())];
    EXPECT_EQ(map_of(r, &base)["viewer"]["rank"], r["rank"]);
  }
}

// The merge reads filed reports as the whole ones: the same document, and
// --check finds the same problems, one endpoint's own among them.
TEST(MapBook, MergedAndCheckedAsTheWholeMaps) {
  const std::vector<Step> steps{create({3, 2}), split("rank%2", "-rank")};
  const Model m(steps, 2);
  json whole = reports_for(m, {{4, 2, 0}, {3, 1}});
  for (const bool broken : {false, true}) {
    if (broken) {
      // Endpoint 2's view of the created communicator, filed as a patch
      // (endpoint 0 files process 0's first): rank 1 on local rank 0 too.
      json& r = whole[static_cast<std::size_t>(2 * m.steps() + 0)];
      r["map"]["rank_map"][1]["local_rank"] = 0;
    }
    Findings f_whole;
    Findings f_filed;
    const ordered_json a = merge_scenario(m, steps, whole, true, f_whole);
    const ordered_json b = merge_scenario(m, steps, filed(m, whole), true, f_filed);
    EXPECT_EQ(a, b);
    EXPECT_EQ(f_whole.failures, f_filed.failures);
    EXPECT_EQ(f_whole.documents, f_filed.documents);
    EXPECT_EQ(f_filed.failures.empty(), !broken);
  }
}

// Each thing one run cannot produce, alone; and what one run can (views of
// one communicator differing only in hosts libep did not learn, "?").
TEST(Runs, TellsRunsApart) {
  const Model two({create({2})}, 2);
  const Model three({create({1, 1, 2})}, 3);
  const auto has = [](const std::vector<std::string>& evidence, const std::string& text) {
    return std::any_of(evidence.begin(), evidence.end(),
                       [&](const std::string& e) { return e.find(text) != std::string::npos; });
  };
  const json a0 = intra_document(two, {0, 1, 2, 3}, 0, "w0c0");
  const json a1 = intra_document(two, {0, 1, 2, 3}, 2, "w0c0");
  EXPECT_TRUE(mixed_runs({{"a0", a0}, {"a1", a1}}).empty());

  const json b2 = intra_document(three, {0, 1, 2, 3}, 2, "w0c0");  // a 3-process run
  const auto sizes = mixed_runs({{"a0", a0}, {"a1", a1}, {"b2", b2}});
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_TRUE(has(sizes, "w0c0: a0 and b2 describe different communicators (at /mpi_size: 2 vs 3)"))
      << sizes.front();

  const auto twice = mixed_runs({{"a0", a0}, {"a1", a1}, {"again", a0}});
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_TRUE(has(twice, "w0c0: a0 and again are both the view of world rank 0")) << twice.front();

  json moved = intra_document(two, {0, 1, 2, 3}, 0, "w0c1");
  moved["processes"][1]["host"] = "other";
  const auto hosts = mixed_runs({{"a0", a0}, {"moved", moved}});
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_TRUE(has(hosts, "world rank 1 is on host 'h' in a0 but on 'other' in moved"))
      << hosts.front();

  json unknown = a1;
  unknown["processes"][0]["host"] = "?";
  unknown["rank_map"][0]["host"] = "?";
  EXPECT_TRUE(mixed_runs({{"a0", a0}, {"unknown", unknown}}).empty());
}

// Run ids: views of one run read together; views alike in everything but
// the run (a reused directory) are two runs, and so are views with and
// without an id; a malformed id is a broken document.
TEST(Runs, TellsRunsApartByTheirIds) {
  const Model two({create({2})}, 2);
  const auto has = [](const std::vector<std::string>& evidence, const std::string& text) {
    return std::any_of(evidence.begin(), evidence.end(),
                       [&](const std::string& e) { return e.find(text) != std::string::npos; });
  };
  const std::string first = "20261126T094624Z-5f0c9e2a6b3d1847";
  const std::string second = "20261126T094625Z-0000000000000001";
  json a0 = intra_document(two, {0, 1, 2, 3}, 0, "w0c0");
  json a1 = intra_document(two, {0, 1, 2, 3}, 2, "w0c0");
  json a2 = intra_document(two, {0, 1, 2, 3}, 0, "w0c1");
  a0["run"] = a1["run"] = first;
  EXPECT_TRUE(shape_error(a0).empty()) << shape_error(a0);
  EXPECT_TRUE(mixed_runs({{"a0", a0}, {"a1", a1}}).empty());

  a2["run"] = second;
  const auto runs = mixed_runs({{"a0", a0}, {"a1", a1}, {"a2", a2}});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(has(runs, "run " + first + ": 2 files: a0, a1")) << runs.front();
  EXPECT_TRUE(has(runs, "run " + second + ": 1 file: a2")) << runs.back();

  a2.erase("run");
  const auto older = mixed_runs({{"a0", a0}, {"a1", a1}, {"a2", a2}});
  EXPECT_TRUE(has(older, "1 file names no run (libep before run ids): a2")) << older.back();

  for (const json& bad : {json("20261126T094624Z-5F0C9E2A6B3D1847"), json("x"), json(7)}) {
    a0["run"] = bad;
    EXPECT_NE(shape_error(a0).find("'run' is "), std::string::npos) << shape_error(a0);
  }
}

// Names are per process (each lists its own endpoints'), so views that
// differ in them still agree; read places each by rank, and a document
// without names (older dumps) reads as before.
TEST(Names, MergedByRankAndOptional) {
  const Model m({create({2})}, 2);
  json d0 = intra_document(m, {0, 1, 2, 3}, 0, "w0c0");
  json d1 = intra_document(m, {0, 1, 2, 3}, 2, "w0c0");  // process 1: ranks 2 and 3
  Findings plain;
  const ordered_json unnamed = merge_dumps({{"d0", d0}, {"d1", d1}}, true, plain);
  EXPECT_TRUE(plain.failures.empty());
  EXPECT_FALSE(unnamed["communicators"][0].contains("names"));

  d0["names"] = {"a", ""};
  d1["names"] = {"b", "c"};
  Findings f;
  const ordered_json merged = merge_dumps({{"d0", d0}, {"d1", d1}}, true, f);
  EXPECT_TRUE(f.failures.empty()) << f.failures.front();
  EXPECT_EQ(merged["communicators"][0]["names"], ordered_json({"a", "", "b", "c"}));

  d1["names"] = {"b", 7};
  EXPECT_EQ(shape_error(d1), "'names[1]' is not a string");
}

}  // namespace
}  // namespace ep::inspect
