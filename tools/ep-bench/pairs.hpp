// The layout that p2p and rma share: --pairs k pairs of ranks, ranks 0..k-1
// one end of each pair (senders, origins) and k..2k-1 the other, played by
// endpoints, MPI processes or threads sharing a rank (--impl), the two ends
// in one process or in two (--placement).
#pragma once

#include <ep/ep.hpp>
#include <string>
#include <vector>

#include "bench_options.hpp"

namespace ep::bench {

/// Which process and thread plays which rank of the pattern.
struct PairLayout {
  Impl impl = Impl::ep;
  bool intra = true;  ///< both ends of every pair in one process
  int pairs = 1;
  int processes = 1;  ///< what mpirun -np must be
  int workers = 1;    ///< threads per process, one per rank it hosts

  const char* placement() const { return intra ? "intra" : "inter"; }
  /// Processes host consecutive ranks (as Comm_create_endpoints orders them).
  int rank_of(int process, int worker) const { return process * workers + worker; }
  /// Ranks 0..pairs-1: the end that starts (sender, origin).
  bool first_end(int rank) const { return rank < pairs; }
  int pair_of(int rank) const { return rank % pairs; }
  int peer_of(int rank) const { return (rank + pairs) % (2 * pairs); }
};

/// The layout of --impl, --pairs and --placement ("": intra, inter for mpi).
/// Throws UsageError for --impl mpi --placement intra, which cannot be.
PairLayout plan_pair_layout(Impl impl, int pairs, const std::string& placement);

/// Throws UsageError unless the job has the layout's number of processes,
/// saying why: `ends` names the two ends in the subcommand's words
/// ({"sender(s)", "receiver(s)"}), `subcommand` the help to see.
void check_pair_world(const PairLayout& l, int world_size, const char* const (&ends)[2],
                      const char* subcommand);

/// This process's endpoints of a new endpoint communicator over
/// MPI_COMM_WORLD, one per worker; aborts the job unless worker w's endpoint
/// has rank l.rank_of(process, w), the order the patterns rest on.
std::vector<ep::Comm> create_pair_endpoints(const PairLayout& l, int process);

}  // namespace ep::bench
