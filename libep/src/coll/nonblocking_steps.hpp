// The hierarchical forms of the non-blocking collectives (ProcessStep in
// coll/nonblocking.hpp): once a process's endpoints have handed in their
// contributions, one of MPI's own non-blocking collectives among the
// processes, on the communicator's step carrier.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/datatype.hpp"
#include "base/held_op.hpp"
#include "coll/nonblocking.hpp"

namespace ep::detail {

/// Ibarrier: MPI_Ibarrier.
class BarrierStep final : public ProcessStep {
 public:
  int start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
            std::vector<std::byte>* result, std::vector<MPI_Request>* requests) override;
};

/// Ibcast on an intra-communicator: the root's packed contribution (its
/// header included; every process knows its length) from the root's process
/// to every process, by MPI_Ibcast. The result is that contribution.
class BcastStep final : public ProcessStep {
 public:
  BcastStep(int root_process, int root_local, std::int64_t bytes)
      : root_process_(root_process), root_local_(root_local), bytes_(bytes) {}
  int start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
            std::vector<std::byte>* result, std::vector<MPI_Request>* requests) override;
  /// The root's contribution on its process, nobody's elsewhere.
  int reads(const CommShared& shared) const override {
    return shared.mpi_rank == root_process_ ? root_local_ : kNobody;
  }

 private:
  int root_process_;
  int root_local_;
  std::int64_t bytes_;
};

/// Iallreduce (root_process < 0) or Ireduce on an intra-communicator: the
/// process's operands combined in local rank order, then MPI_Iallreduce or
/// MPI_Ireduce among the processes. Exact where the blocking reductions'
/// hierarchical algorithms are (a commutative op, or the block layout), for
/// a datatype whose elements lie contiguously, so that the packed operands
/// are buffers of the datatype. The result is the reduction's elements.
class ReduceStep final : public ProcessStep {
 public:
  ReduceStep(Typed element, MPI_Op op, int root_process)
      : count_(element.count),
        type_(element.type),
        layout_(element.layout),
        op_(op),
        root_process_(root_process) {}
  /// Holds the datatype (HeldTypes) for the MPI step; the op is held from
  /// construction (HeldOp), since the step may start after the user freed
  /// theirs. Returns an MPI error code.
  int hold();
  int start(const CommShared& shared, std::vector<std::vector<std::byte>>& mine,
            std::vector<std::byte>* result, std::vector<MPI_Request>* requests) override;

 private:
  int count_;
  MPI_Datatype type_;
  TypeLayout layout_;
  HeldOp op_;
  int root_process_;
  HeldTypes held_;
};

}  // namespace ep::detail
