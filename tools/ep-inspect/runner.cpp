#include "runner.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <ep/ep.hpp>
#include <mutex>
#include <string>
#include <thread>

#include "json_input.hpp"
#include "json_output.hpp"
#include "map_book.hpp"
#include "mpi_check.hpp"

namespace ep::inspect {

namespace {

// Intercomm_create's tag: one per step, so that leaders of a later step
// cannot take an earlier step's group description.
constexpr int intercomm_tag_base = 100;

int mpi_color(int color) { return color == INT_MIN ? MPI_UNDEFINED : color; }

// What the endpoints of this process share while they report: their rank
// maps (map_book.hpp), and a lock that lets one endpoint at a time hold a
// whole document, so that a process holds one document of each
// communicator, not one per endpoint, also while they all report at once.
// ep::Comm_inspect is local: an endpoint waiting here holds up no other.
struct Reporting {
  std::mutex lock;
  MapBook book;
};

nlohmann::json report(const Model& model, int step, int endpoint, ep::Comm comm,
                      Reporting& shared) {
  nlohmann::json r = {{"step", step},
                      {"endpoint", endpoint},
                      {"process", model.process_of(endpoint)},
                      {"local", model.local_of(endpoint)},
                      {"has_comm", comm != ep::COMM_NULL}};
  if (comm == ep::COMM_NULL) return r;
  int rank = -1;
  int size = -1;
  int inter = 0;
  int remote_size = 0;
  tools::check(ep::Comm_rank(comm, &rank), "ep::Comm_rank");
  tools::check(ep::Comm_size(comm, &size), "ep::Comm_size");
  tools::check(ep::Comm_test_inter(comm, &inter), "ep::Comm_test_inter");
  if (inter) tools::check(ep::Comm_remote_size(comm, &remote_size), "ep::Comm_remote_size");
  r["rank"] = rank;
  r["size"] = size;
  r["inter"] = inter != 0;
  r["remote_size"] = remote_size;
  std::lock_guard hold(shared.lock);
  std::string text;
  tools::check(ep::Comm_inspect(comm, &text), "ep::Comm_inspect");
  try {
    shared.book.file(r, step, endpoint, tools::parse_json(text, "ep::Comm_inspect's document"));
  } catch (const tools::JsonInputError& e) {
    // Kept, so that --check says so instead of the tool failing here.
    r["map"] = nullptr;
    r["map_error"] = fmt::format("ep::Comm_inspect returned unusable JSON: {}", e.what());
  }
  return r;
}

// One step of one endpoint: the libep calls an application would make.
ep::Comm take_step(const Step& s, const EndpointStep& args, int step, ep::Comm current) {
  ep::Comm next = ep::COMM_NULL;
  switch (s.op) {
    case Op::create:
      break;
    case Op::dup:
      tools::check(ep::Comm_dup(current, &next), "ep::Comm_dup");
      break;
    case Op::split:
      tools::check(ep::Comm_split(current, mpi_color(args.color), args.key, &next),
                   "ep::Comm_split");
      break;
    case Op::intercomm: {
      // The two groups are the colors of a split of the parent, which is
      // also the peer communicator the leaders talk over.
      ep::Comm local = ep::COMM_NULL;
      tools::check(ep::Comm_split(current, mpi_color(args.color), args.key, &local),
                   "ep::Comm_split (intercomm groups)");
      if (local == ep::COMM_NULL) break;
      tools::check(ep::Intercomm_create(local, args.local_leader, current, args.remote_leader,
                                        intercomm_tag_base + step, &next),
                   "ep::Intercomm_create");
      tools::check(ep::Comm_free(&local), "ep::Comm_free");
      break;
    }
    case Op::merge:
      tools::check(ep::Intercomm_merge(current, args.high, &next), "ep::Intercomm_merge");
      break;
  }
  return next;
}

void run_endpoint(const Model& model, const std::vector<Step>& steps, int endpoint, ep::Comm world,
                  Reporting& shared, nlohmann::json& reports) {
  std::vector<ep::Comm> owned{world};
  ep::Comm current = world;
  reports.push_back(report(model, 0, endpoint, current, shared));
  for (int step = 1; step < static_cast<int>(steps.size()); ++step) {
    if (current == ep::COMM_NULL) break;  // out of the chain since an undef color
    current =
        take_step(steps[static_cast<std::size_t>(step)], model.at(step, endpoint), step, current);
    reports.push_back(report(model, step, endpoint, current, shared));
    if (current != ep::COMM_NULL) owned.push_back(current);
  }
  // Newest first, the same order on every endpoint.
  for (auto it = owned.rbegin(); it != owned.rend(); ++it)
    tools::check(ep::Comm_free(&*it), "ep::Comm_free");
}

}  // namespace

nlohmann::json run_scenario(const Model& model, const std::vector<Step>& steps, int process) {
  const int count = model.counts()[static_cast<std::size_t>(process)];
  std::vector<ep::Comm> created(static_cast<std::size_t>(std::max(count, 1)), ep::COMM_NULL);
  tools::check(ep::Comm_create_endpoints(MPI_COMM_WORLD, count, MPI_INFO_NULL, created.data()),
               "ep::Comm_create_endpoints");
  std::vector<nlohmann::json> reports(static_cast<std::size_t>(count), nlohmann::json::array());
  Reporting shared;
  std::vector<std::thread> threads;
  for (int l = 0; l < count; ++l) {
    threads.emplace_back([&, l] {
      run_endpoint(model, steps, model.endpoint_of(process, l),
                   created[static_cast<std::size_t>(l)], shared,
                   reports[static_cast<std::size_t>(l)]);
    });
  }
  for (auto& t : threads) t.join();
  nlohmann::json all = nlohmann::json::array();
  for (auto& r : reports)
    for (auto& entry : r) all.push_back(std::move(entry));
  return all;
}

nlohmann::json gather_reports(const nlohmann::json& mine) {
  const std::string text = tools::dump_json(mine);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  tools::check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
               "MPI_Gather");
  std::vector<int> offsets(static_cast<std::size_t>(size), 0);
  for (int p = 1; p < size; ++p)
    offsets[static_cast<std::size_t>(p)] =
        offsets[static_cast<std::size_t>(p - 1)] + lengths[static_cast<std::size_t>(p - 1)];
  std::string gathered(rank == 0 ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0,
                       '\0');
  tools::check(MPI_Gatherv(text.data(), length, MPI_CHAR, gathered.data(), lengths.data(),
                           offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
               "MPI_Gatherv");
  if (rank != 0) return nullptr;
  nlohmann::json all = nlohmann::json::array();
  for (int p = 0; p < size; ++p) {
    // What this tool wrote on every rank, parsed as bounded as any input.
    auto part =
        tools::parse_json(std::string_view(gathered).substr(
                              static_cast<std::size_t>(offsets[static_cast<std::size_t>(p)]),
                              static_cast<std::size_t>(lengths[static_cast<std::size_t>(p)])),
                          fmt::format("the reports of world rank {}", p));
    for (auto& entry : part) all.push_back(std::move(entry));
  }
  return all;
}

}  // namespace ep::inspect
