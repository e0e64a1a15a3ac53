// ep-bench intercomm: the time to create an inter-communicator
// (Intercomm_create) and to free it, and ping-pong latency across one;
// endpoints beside plain MPI processes. The two groups and their leaders are
// shared with ep-bench merge.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "comm_bench.hpp"
#include "subcommand.hpp"

namespace ep::bench {

/// A rank's place in the two groups of --groups.
///   halves     ranks below total/2 form group 0: with an even layout the
///              groups live in different processes
///   alternate  rank % 2: every process with 2+ endpoints hosts both groups
/// Each group's leader is its rank 0.
struct GroupSeat {
  int group = 0;
  int rank_in_group = 0;
  int remote_leader = 0;  ///< the other group's leader, as a rank of the parent
  int sizes[2] = {0, 0};
};
GroupSeat group_seat(const std::string& scheme, int rank, int total);

/// Adds --groups.
void add_groups_option(CLI::App& app, std::string& scheme);

/// Intercomm_create's tag in the benchmarks.
inline constexpr int intercomm_bench_tag = 77;

struct IntercommOptions {
  CommBenchOptions comm;
  std::string groups = "halves";
  std::vector<std::string> tests = {"create", "latency"};
  std::string sizes = "8,1K,64K";
};

/// Adds the "intercomm" subcommand to `parent`.
Subcommand setup_intercomm(CLI::App& parent);

/// Runs the benchmark and returns the exit status.
/// \note Collective over MPI_COMM_WORLD.
int run_intercomm(const IntercommOptions& options, const Invocation& invocation);

}  // namespace ep::bench
