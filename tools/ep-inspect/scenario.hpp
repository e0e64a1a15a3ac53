// Scenarios: the chain of steps ep-inspect runs, and the model of what MPI
// says each step must produce.
//
// A scenario is a chain "create ... then split ... then intercomm ... then
// merge ...". Each step acts on the communicator every endpoint got from the
// step before (an endpoint whose split color was undef has none and sits the
// rest of the chain out). Every rank parses the same command line and builds
// the same Model, a pure function of the scenario and the number of
// processes: it evaluates every expression for every endpoint, so a bad
// expression fails on all ranks alike before any communicator exists, and it
// predicts every communicator from the MPI rules alone (split: key, then old
// rank; merge: low group first, each group in rank order), independently of
// libep, so that --check can hold libep's maps against it.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "expr.hpp"

namespace ep::inspect {

enum class Op { create, dup, split, intercomm, merge };
std::string_view op_name(Op op);

/// An option's expression as typed, parsed when the step is made.
struct OptionExpr {
  std::string option;  // "--color"
  Expr expr;
};

struct Step {
  Op op = Op::create;
  std::string text;                      // the step as typed, for messages and the output
  std::vector<int> ep_counts;            // create: endpoints per process (one value: all alike)
  std::optional<OptionExpr> color, key;  // split; intercomm: key orders a group
  std::optional<OptionExpr> group, local_leader, remote_leader;  // intercomm
  std::optional<OptionExpr> high;                                // merge
};

/// A scenario that cannot run: a bad expression value, a wrong layout, a
/// step that does not fit the communicator it gets. Every rank throws it
/// alike; one prints it.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One communicator the scenario makes, as MPI defines it. Endpoints are
/// named by their rank in the communicator of the create step ("endpoint
/// ids"), which is fixed by process then handle index.
struct ModelComm {
  int step = 0;
  Op op = Op::create;
  int parent = -1;  // index into the previous step's comms
  int color = 0;    // split
  bool inter = false;
  // Intra: members[0] by rank. Inter: members[g] by rank for --group value g.
  std::vector<int> members[2];
  int leaders[2] = {0, 0};  // intercomm: the local leader of each group, a rank in the group
  int high[2] = {0, 0};     // merge: the high flag of each group of the parent
  // Merge with the same high in both groups: MPI leaves the group order open.
  // members[0] then holds one order; `parts` the two groups in rank order.
  bool either_order = false;
  std::vector<int> parts[2];
};

/// What one endpoint does in one step, and where it ends up.
struct EndpointStep {
  int comm = -1;  // index into the step's comms; -1: no communicator
  int group = 0;  // inter: --group value
  int rank = -1;  // in the communicator (its group, for inter)
  // The arguments the endpoint passes.
  int color = 0, key = 0, local_leader = 0, remote_leader = 0, high = 0;
};

class Model {
 public:
  /// Evaluates the scenario on `processes` processes. Throws ScenarioError.
  Model(const std::vector<Step>& steps, int processes);

  int processes() const { return static_cast<int>(counts_.size()); }
  const std::vector<int>& counts() const { return counts_; }
  int endpoints() const { return static_cast<int>(process_of_.size()); }
  int process_of(int endpoint) const { return process_of_[static_cast<std::size_t>(endpoint)]; }
  int local_of(int endpoint) const { return local_of_[static_cast<std::size_t>(endpoint)]; }
  /// The endpoint id of handle `local` of `process`.
  int endpoint_of(int process, int local) const;

  int steps() const { return static_cast<int>(comms_.size()); }
  const std::vector<ModelComm>& comms(int step) const {
    return comms_[static_cast<std::size_t>(step)];
  }
  const EndpointStep& at(int step, int endpoint) const {
    return by_endpoint_[static_cast<std::size_t>(step)][static_cast<std::size_t>(endpoint)];
  }

 private:
  void create(const Step& s);
  void dup(int step);
  void split(const Step& s, int step);
  void intercomm(const Step& s, int step);
  void choose_leaders(const Step& s, int step, ModelComm& made);
  void merge(const Step& s, int step);
  void begin_step(int step);
  Bindings bindings(int step, int endpoint) const;
  int evaluate(const OptionExpr& e, const Step& s, int step, int endpoint, const Bindings& b,
               bool allow_undef) const;

  std::vector<int> counts_;
  std::vector<int> process_of_, local_of_;
  std::vector<std::vector<ModelComm>> comms_;           // by step
  std::vector<std::vector<EndpointStep>> by_endpoint_;  // by step, endpoint
  std::vector<const Step*> step_defs_;
};

/// The variables each option accepts (rank, size, process, local; leaders
/// and high also group).
std::vector<Var> variables_for(std::string_view option);

}  // namespace ep::inspect
