#include "watchdog.hpp"

#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "mpi_check.hpp"
#include "subcommand.hpp"

namespace ep::bench {

namespace {
// More than any layout ep-bench accepts (--ep counts up to 256, --pairs 128).
constexpr int max_workers = 1024;
using Clock = std::chrono::steady_clock;
// Never freed: a worker's current_progress may point here after the watchdog
// that armed it is gone.
std::array<detail::Progress, max_workers> progress;
}  // namespace

struct Watchdog::State {
  int world_rank = 0;
  int world_size = 1;
  std::function<void(const std::string&)> on_stall;

  std::mutex mutex;  // guards everything below
  std::condition_variable wake;
  bool stop = false;
  bool armed = false;
  std::string run;
  std::string label;
  int first_rank = 0;
  int workers = 0;
  std::uint64_t generation = 0;  // bumped by watch(), so the monitor restarts its clock
  std::thread monitor;
};

namespace {

std::atomic<Watchdog::State*> active{nullptr};

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (const int r : ranks) text += fmt::format("{}{}", text.empty() ? "" : ", ", r);
  return text;
}

// What this process knows about the stall: its ranks' steps.
std::string describe_stall(Watchdog::State& s, double seconds) {
  std::vector<std::uint64_t> steps;
  for (int w = 0; w < s.workers; ++w)
    steps.push_back(progress[static_cast<std::size_t>(w)].steps.load(std::memory_order_relaxed));
  std::string what = s.run.empty() ? s.label : s.label.empty() ? s.run : s.run + ", " + s.label;
  if (what.empty()) what = "the run";
  std::string where = fmt::format("no progress for {:g} s in {} (process {} of {})", seconds, what,
                                  s.world_rank, s.world_size);
  if (steps.empty()) return where;
  const auto [low, high] = std::minmax_element(steps.begin(), steps.end());
  if (*low == *high) {
    const char* why = *low == 0 ? " (still setting up)"
                                : " (waiting for a rank of another process, or stuck inside MPI)";
    if (s.workers == 1)
      return fmt::format("{}: its rank {} stopped at step {}{}", where, s.first_rank, *low, why);
    return fmt::format("{}: all {} of its ranks ({}-{}) stopped at step {}{}", where, s.workers,
                       s.first_rank, s.first_rank + s.workers - 1, *low, why);
  }
  std::vector<int> behind;
  for (int w = 0; w < s.workers; ++w)
    if (steps[static_cast<std::size_t>(w)] == *low) behind.push_back(s.first_rank + w);
  return fmt::format(
      "{}: rank{} {} {} behind, at step {} (the other ranks of this process "
      "reached step {} and wait there)",
      where, behind.size() == 1 ? "" : "s", rank_list(behind), behind.size() == 1 ? "is" : "are",
      *low, *high);
}

void monitor(Watchdog::State& s, double seconds) {
  const auto poll = std::chrono::duration<double>(std::clamp(seconds / 4, 0.05, 1.0));
  std::unique_lock lock(s.mutex);
  std::uint64_t generation = s.generation;
  std::uint64_t last_sum = 0;
  auto last_change = Clock::now();
  while (!s.stop) {
    s.wake.wait_for(lock, poll);
    if (s.stop) break;
    std::uint64_t sum = 0;
    bool all_passive = s.workers > 0;
    for (int w = 0; w < s.workers; ++w) {
      const detail::Progress& p = progress[static_cast<std::size_t>(w)];
      sum += p.steps.load(std::memory_order_relaxed);
      all_passive = all_passive && p.passive.load(std::memory_order_relaxed);
    }
    const auto now = Clock::now();
    // All ranks waiting for other processes' kernels: those processes'
    // monitors judge.
    if (!s.armed || generation != s.generation || sum != last_sum || all_passive) {
      generation = s.generation;
      last_sum = sum;
      last_change = now;
      continue;
    }
    if (std::chrono::duration<double>(now - last_change).count() < seconds) continue;
    const std::string report = describe_stall(s, seconds);
    lock.unlock();  // on_stall may take its own locks
    fmt::print(stderr,
               "{}: watchdog: {}; ending the job (--watchdog SECONDS sets the limit, 0 "
               "turns it off)\n",
               tools::program_name(), report);
    std::fflush(stderr);
    if (s.on_stall) s.on_stall(report);
    // The other processes' monitors fire within a poll or two: give them
    // time to say what they saw before the abort takes them down.
    std::this_thread::sleep_for(2 * poll + std::chrono::milliseconds(200));
    MPI_Abort(MPI_COMM_WORLD, exit_failed);
    std::_Exit(exit_failed);
  }
}

// Test hook for suites/runsuite only: EP_BENCH_TEST_STALL makes the last
// worker of the last process stop forever at a step, so that the watchdog
// test has a stall to catch. "1" stalls in the first case measured; other
// text, in the first case whose label contains it. Never set in real runs.
void test_hook_stall(Watchdog::State& s, int worker) {
  static const char* const wanted = std::getenv("EP_BENCH_TEST_STALL");
  if (wanted == nullptr || *wanted == '\0') return;
  {
    std::lock_guard lock(s.mutex);
    if (s.world_rank != s.world_size - 1 || worker != s.workers - 1) return;
    const std::string_view text(wanted);
    if (text != "1" && s.label.find(text) == std::string::npos) return;
  }
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

Watchdog::Watchdog(double seconds, int world_rank, int world_size,
                   std::function<void(const std::string&)> on_stall)
    : seconds_(seconds) {
  if (seconds <= 0) return;
  state_ = std::make_unique<State>();
  state_->world_rank = world_rank;
  state_->world_size = world_size;
  state_->on_stall = std::move(on_stall);
  state_->monitor = std::thread(monitor, std::ref(*state_), seconds);
  active.store(state_.get(), std::memory_order_release);
}

Watchdog::~Watchdog() {
  if (!state_) return;
  active.store(nullptr, std::memory_order_release);
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->wake.notify_all();
  state_->monitor.join();
}

void Watchdog::watch(std::string run, int first_rank, int workers) {
  if (!state_) return;
  std::lock_guard lock(state_->mutex);
  for (auto& p : progress) {
    p.steps.store(0, std::memory_order_relaxed);
    p.passive.store(false, std::memory_order_relaxed);
  }
  state_->run = std::move(run);
  state_->label.clear();
  state_->first_rank = first_rank;
  state_->workers = std::clamp(workers, 1, max_workers);
  state_->armed = true;
  ++state_->generation;
}

void Watchdog::unwatch() {
  if (!state_) return;
  std::lock_guard lock(state_->mutex);
  state_->armed = false;
}

void heartbeat(int worker) {
  Watchdog::State* s = active.load(std::memory_order_acquire);
  if (s == nullptr || worker < 0 || worker >= max_workers) return;
  detail::Progress& p = progress[static_cast<std::size_t>(worker)];
  p.passive.store(false, std::memory_order_relaxed);
  p.steps.fetch_add(1, std::memory_order_relaxed);
}

void watchdog_case(std::string label) {
  Watchdog::State* s = active.load(std::memory_order_acquire);
  if (s == nullptr) return;
  std::lock_guard lock(s->mutex);
  s->label = std::move(label);
}

void step_together(Team& team, int worker) {
  // Before the heartbeat, as a rank stuck in the step before would be.
  if (Watchdog::State* s = active.load(std::memory_order_acquire)) test_hook_stall(*s, worker);
  heartbeat(worker);
  // The kernels that follow count their iterations here (kernel_progress).
  const bool watched =
      active.load(std::memory_order_acquire) != nullptr && worker >= 0 && worker < max_workers;
  detail::current_progress = watched ? &progress[static_cast<std::size_t>(worker)] : nullptr;
  team.start_together(worker);
}

}  // namespace ep::bench
