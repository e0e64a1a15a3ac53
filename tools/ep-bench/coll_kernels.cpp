#include "coll_kernels.hpp"

#include <algorithm>

namespace ep::bench {

namespace {

// A contribution is weight(rank) * multiplier(index, round): the weights
// 1..16 repeat every 16 ranks, the multipliers 1..7 move with the round. A
// sum over T ranks is then at most 112 T, far from overflowing an int32,
// and every reduction is weight_reduction x multiplier, computed once.
constexpr int weight_period = 16;

std::int32_t weight(int rank) { return rank % weight_period + 1; }

std::int32_t multiplier(std::size_t index, int round) {
  return static_cast<std::int32_t>((index + 3 * static_cast<std::size_t>(round)) % 7 + 1);
}

}  // namespace

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return MPI_SUM;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::min:
      return MPI_MIN;
  }
  return MPI_OP_NULL;
}

ReduceOp parse_reduce_op(const std::string& text) {
  if (text == "max") return ReduceOp::max;
  if (text == "min") return ReduceOp::min;
  return ReduceOp::sum;
}

void fill_contribution(std::span<std::int32_t> values, int rank, int round) {
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = weight(rank) * multiplier(i, round);
}

ExpectedReduction::ExpectedReduction(int ranks, ReduceOp op) : factor_(0) {
  switch (op) {
    case ReduceOp::sum:
      for (int r = 0; r < ranks; ++r) factor_ += weight(r);
      break;
    case ReduceOp::max:
      factor_ = std::min(ranks, weight_period);
      break;
    case ReduceOp::min:
      factor_ = 1;
      break;
  }
}

std::int64_t ExpectedReduction::count_wrong(std::span<const std::int32_t> result, int round) const {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < result.size(); ++i)
    wrong += result[i] == factor_ * multiplier(i, round) ? 0 : 1;
  return wrong;
}

}  // namespace ep::bench
