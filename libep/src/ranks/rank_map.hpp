// Rank arithmetic of endpoint communicators: pure functions, no MPI.
//
// An endpoint communicator lives on an ordinary MPI communicator (its "MPI
// communicator"). Every endpoint rank is hosted by one MPI process of it and
// is that process's local endpoint number `local_rank` in this communicator.
//
// Worked example: Comm_create_endpoints over 3 processes asking for 2, 0 and
// 3 endpoints. Ranks are ordered by parent rank, then handle index:
//
//   endpoint rank   0  1  2  3  4
//   mpi_rank        0  0  2  2  2
//   local_rank      0  1  0  1  2
//
// so rank_of(2, 1) == 3, count_on(1) == 0 and max_per_process() == 3.
// Nothing here assumes that a process's endpoints have contiguous ranks:
// after a split ordered by key they need not (e.g. ranks 0 and 2 on process
// 0, rank 1 on process 1), so the inverse map is a table, not an offset.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ep::detail {

struct Location {
  int mpi_rank = -1;    // rank of the hosting process in the MPI communicator
  int local_rank = -1;  // index among that process's endpoints of this communicator

  friend bool operator==(const Location&, const Location&) = default;
};

class RankMap {
 public:
  RankMap() = default;

  /// The map of Comm_create_endpoints: `counts[p]` endpoints on process p.
  static RankMap from_counts(std::span<const int> counts);

  /// A map given endpoint by endpoint over `num_processes` MPI processes.
  /// Returns nullopt and a reason when it is not a valid map (a location
  /// used twice, a process out of range, local ranks not 0..n-1).
  static std::optional<RankMap> from_locations(std::vector<Location> locations, int num_processes,
                                               std::string* why);

  int size() const { return static_cast<int>(locations_.size()); }
  int num_processes() const { return static_cast<int>(ranks_on_.size()); }
  Location at(int rank) const { return locations_[static_cast<std::size_t>(rank)]; }
  int rank_of(int mpi_rank, int local_rank) const {
    return ranks_on_[static_cast<std::size_t>(mpi_rank)][static_cast<std::size_t>(local_rank)];
  }
  int count_on(int mpi_rank) const {
    return static_cast<int>(ranks_on_[static_cast<std::size_t>(mpi_rank)].size());
  }
  /// Endpoint ranks of process `mpi_rank`, by local rank.
  std::span<const int> ranks_on(int mpi_rank) const {
    return ranks_on_[static_cast<std::size_t>(mpi_rank)];
  }
  int max_per_process() const { return max_per_process_; }

 private:
  std::vector<Location> locations_;         // by endpoint rank
  std::vector<std::vector<int>> ranks_on_;  // [mpi_rank][local_rank] -> endpoint rank
  int max_per_process_ = 0;
};

}  // namespace ep::detail
