#include "team.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <exception>
#include <thread>

#include "mpi_check.hpp"

namespace ep::bench {

namespace {
// Runs one worker's body; an escaping exception takes the job down with a
// message rather than leaving the other ranks blocked in a barrier.
void guarded(const std::function<void(int)>& body, int worker) {
  try {
    body(worker);
  } catch (const std::exception& e) {
    tools::abort_job(fmt::format("worker {} failed: {}", worker, e.what()));
  }
}
}  // namespace

Team::Team(int workers)
    : workers_(workers), local_(workers), contributions_(static_cast<std::size_t>(workers)) {}

void Team::run(const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers_));
  for (int w = 1; w < workers_; ++w) threads.emplace_back(guarded, std::cref(body), w);
  guarded(body, 0);
  for (auto& t : threads) t.join();
}

void Team::start_together(int worker) {
  local_.arrive_and_wait();
  if (worker == 0) tools::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  local_.arrive_and_wait();
}

std::vector<double> Team::allreduce(int worker, std::span<const double> values, MPI_Op op) {
  assert(op == MPI_MAX || op == MPI_SUM);
  contributions_[static_cast<std::size_t>(worker)].assign(values.begin(), values.end());
  local_.arrive_and_wait();
  if (worker == 0) {
    std::vector<double> combined = contributions_.front();
    for (std::size_t w = 1; w < contributions_.size(); ++w) {
      const auto& other = contributions_[w];
      for (std::size_t i = 0; i < combined.size(); ++i)
        combined[i] = op == MPI_MAX ? std::max(combined[i], other[i]) : combined[i] + other[i];
    }
    result_.resize(combined.size());
    tools::check(MPI_Allreduce(combined.data(), result_.data(), static_cast<int>(combined.size()),
                               MPI_DOUBLE, op, MPI_COMM_WORLD),
                 "MPI_Allreduce");
  }
  // result_ is rewritten only after the next call's first barrier, which every
  // worker reaches after copying it here.
  local_.arrive_and_wait();
  return result_;
}

}  // namespace ep::bench
