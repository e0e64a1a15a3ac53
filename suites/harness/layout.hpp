// Endpoint layouts: how many endpoints each MPI process hosts.
//
// Written as a list indexed by process rank: "1,3,2" means process 0 hosts
// one endpoint (rank 0), process 1 hosts three (ranks 1..3), process 2 two
// (ranks 4, 5). A single number means that count on every process, so
// "2" under 3 processes is "2,2,2". Zero is allowed: "2,0,3" has a process
// that takes part in creating the communicator but hosts no rank.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace eptest {

struct Layout {
  std::vector<int> per_process;  ///< endpoints hosted by each process, by process rank
  std::string error;             ///< non-empty if the text did not describe a layout

  bool ok() const { return error.empty(); }
  /// Number of ranks of the endpoint communicator.
  int total() const;
  /// Rank of the first endpoint hosted by `process`.
  int first_rank(int process) const;
};

/// Parses `text` for a job of `processes` MPI processes.
Layout parse_layout(std::string_view text, int processes);

}  // namespace eptest
