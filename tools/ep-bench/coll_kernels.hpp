// The collective kernels of ep-bench bcast, allreduce and barrier (and the
// non-blocking starts that ibcast and iallreduce time, nbc_kernels.hpp): one handle type per
// implementation (so the loops call libep or MPI directly, with no
// indirection in the timed region), the timed loops, and the checks that
// --validate runs after the timed repetitions of a message size.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ep/ep.hpp>
#include <span>
#include <string>
#include <vector>

#include "mpi_check.hpp"
#include "p2p_kernels.hpp"
#include "watchdog.hpp"

namespace ep::bench {

/// libep: one endpoint of the communicator of all ranks.
struct EpColl {
  ep::Comm comm = ep::COMM_NULL;

  void bcast(void* buf, int count, MPI_Datatype type, int root) const {
    tools::check(ep::Bcast(buf, count, type, root, comm), "ep::Bcast");
  }
  void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op) const {
    tools::check(ep::Allreduce(in, out, count, type, op, comm), "ep::Allreduce");
  }
  void barrier() const { tools::check(ep::Barrier(comm), "ep::Barrier"); }

  using Request = ep::Request;
  Request ibcast(void* buf, int count, MPI_Datatype type, int root) const {
    Request r = ep::REQUEST_NULL;
    tools::check(ep::Ibcast(buf, count, type, root, comm, &r), "ep::Ibcast");
    return r;
  }
  Request iallreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op) const {
    Request r = ep::REQUEST_NULL;
    tools::check(ep::Iallreduce(in, out, count, type, op, comm, &r), "ep::Iallreduce");
    return r;
  }
  static void wait(Request& r) { tools::check(ep::Wait(&r, ep::STATUS_IGNORE), "ep::Wait"); }
  /// True once `r` has completed (then it is REQUEST_NULL).
  static bool test(Request& r) {
    int done = 0;
    tools::check(ep::Test(&r, &done, ep::STATUS_IGNORE), "ep::Test");
    return done != 0;
  }
};

/// Plain MPI: a rank of a duplicate of MPI_COMM_WORLD, one process per rank.
struct MpiColl {
  MPI_Comm comm = MPI_COMM_NULL;

  void bcast(void* buf, int count, MPI_Datatype type, int root) const {
    tools::check(MPI_Bcast(buf, count, type, root, comm), "MPI_Bcast");
  }
  void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op) const {
    tools::check(MPI_Allreduce(in, out, count, type, op, comm), "MPI_Allreduce");
  }
  void barrier() const { tools::check(MPI_Barrier(comm), "MPI_Barrier"); }

  using Request = MPI_Request;
  Request ibcast(void* buf, int count, MPI_Datatype type, int root) const {
    Request r = MPI_REQUEST_NULL;
    tools::check(MPI_Ibcast(buf, count, type, root, comm, &r), "MPI_Ibcast");
    return r;
  }
  Request iallreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op) const {
    Request r = MPI_REQUEST_NULL;
    tools::check(MPI_Iallreduce(in, out, count, type, op, comm, &r), "MPI_Iallreduce");
    return r;
  }
  static void wait(Request& r) { tools::check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait"); }
  /// True once `r` has completed (then it is MPI_REQUEST_NULL).
  static bool test(Request& r) {
    int done = 0;
    tools::check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    return done != 0;
  }
};

/// The reductions allreduce offers, on MPI_INT32_T.
enum class ReduceOp { sum, max, min };
MPI_Op mpi_op(ReduceOp op);
/// "sum", "max" or "min" (what --op accepts; anything else is sum).
ReduceOp parse_reduce_op(const std::string& text);

/// Back-to-back broadcasts of `bytes` bytes (MPI_BYTE), as a loop in an
/// application would issue them.
template <class Coll>
void bcast_loop(const Coll& coll, std::span<std::byte> buffer, int root, std::int64_t iterations) {
  const int bytes = static_cast<int>(buffer.size());
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    coll.bcast(buffer.data(), bytes, MPI_BYTE, root);
  }
}

/// Back-to-back allreduces of int32 elements, out of place.
template <class Coll>
void allreduce_loop(const Coll& coll, std::span<const std::int32_t> in, std::span<std::int32_t> out,
                    MPI_Op op, std::int64_t iterations) {
  const int count = static_cast<int>(in.size());
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    coll.allreduce(in.data(), out.data(), count, MPI_INT32_T, op);
  }
}

/// Back-to-back barriers.
template <class Coll>
void barrier_loop(const Coll& coll, std::int64_t iterations) {
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    coll.barrier();
  }
}

/// The memcpy reference of a broadcast in one process: every rank but the
/// root copies the root's buffer into its own, all at once. It moves the
/// data a shared-memory broadcast must move, with no synchronisation at all.
inline void memcpy_loop(std::span<const std::byte> source, std::span<std::byte> destination,
                        std::int64_t iterations) {
  for (std::int64_t i = 0; i < iterations; ++i) {
    kernel_progress();
    std::memcpy(destination.data(), source.data(), source.size());
    // Without this the compiler may keep only the last of identical copies.
    asm volatile("" : : "r"(destination.data()) : "memory");
  }
}

// --- checks (--validate), never timed -----------------------------------------

/// How many checked calls --validate makes per message size; each has its own
/// payload, so that a buffer left over from the previous call does not pass.
inline constexpr int check_rounds = 2;

/// Checked broadcasts: the root sends a payload that depends on the round and
/// on the byte index; everyone else starts from its complement. Returns the
/// number of rounds in which this rank's buffer came out wrong.
template <class Coll>
std::int64_t check_bcast(const Coll& coll, std::span<std::byte> buffer, int rank, int root) {
  std::int64_t wrong = 0;
  for (int round = 0; round < check_rounds; ++round) {
    const std::uint32_t seed = payload_seed(root, round, Role::sender);
    if (rank == root)
      fill_payload(buffer, seed);
    else
      clear_payload(buffer, seed);
    coll.bcast(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, root);
    wrong += payload_matches(buffer, seed) ? 0 : 1;
  }
  return wrong;
}

/// Rank `rank`'s contribution to element `index` in a checked round: small
/// positive numbers, so that sums over many ranks stay far from overflow and
/// every element's expected result is known exactly.
void fill_contribution(std::span<std::int32_t> values, int rank, int round);

/// What every rank must receive when all `ranks` contribute.
class ExpectedReduction {
 public:
  ExpectedReduction(int ranks, ReduceOp op);
  /// Elements of `result` that differ from the reduction of round `round`.
  std::int64_t count_wrong(std::span<const std::int32_t> result, int round) const;

 private:
  std::int64_t factor_;  ///< result = factor * (multiplier of the element)
};

/// Checked allreduces; returns the number of rounds in which this rank's
/// result had a wrong element.
template <class Coll>
std::int64_t check_allreduce(const Coll& coll, std::span<std::int32_t> in,
                             std::span<std::int32_t> out, int rank, const ExpectedReduction& want,
                             ReduceOp op) {
  std::int64_t wrong = 0;
  for (int round = 0; round < check_rounds; ++round) {
    fill_contribution(in, rank, round);
    std::fill(out.begin(), out.end(), -1);  // no reduction of positive numbers gives -1
    coll.allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_INT32_T, mpi_op(op));
    wrong += want.count_wrong(out, round) == 0 ? 0 : 1;
  }
  return wrong;
}

}  // namespace ep::bench
