// How a worker measures create/free pairs and ping-pong across an
// inter-communicator. Every worker of every process runs these in lockstep
// (Team) and gets the same reduced numbers back.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bench_options.hpp"
#include "comm_bench.hpp"
#include "p2p_kernels.hpp"
#include "p2p_measure.hpp"
#include "team.hpp"
#include "watchdog.hpp"

namespace ep::bench {

/// Untimed pairs before calibration when --warmup is not given: enough for
/// the MPI below to have set up its connections and caches.
inline constexpr std::int64_t default_pair_warmup = 3;

/// Times `create()` then `destroy()` (the free of what create made), in
/// pairs. The first pair is the cold one and is timed alone; then warm-up,
/// calibration (as p2p: growing trial runs up to --min-time) and the timed
/// repetitions, create and free summed separately. Worker 0 calls
/// on_repetition(r) after each repetition (the progress line).
template <class Create, class Destroy>
PairTimes measure_pairs(Team& team, int worker, Create&& create, Destroy&& destroy,
                        const BenchOptions& o,
                        const std::function<void(int repetition)>& on_repetition = {}) {
  PairTimes out;
  step_together(team, worker);
  const auto c = time_it(create);
  const auto d = time_it(destroy);
  const auto cold = team.allreduce(worker, std::array{c[0], c[1], d[0], d[1]}, MPI_MAX);
  std::copy(cold.begin(), cold.end(), out.cold.begin());

  std::array<double, 4> sums{};
  const auto pairs = [&](std::int64_t n) {
    sums = {};
    for (std::int64_t i = 0; i < n; ++i) {
      const auto tc = time_it(create);
      const auto td = time_it(destroy);
      sums = {sums[0] + tc[0], sums[1] + tc[1], sums[2] + td[0], sums[3] + td[1]};
    }
  };
  step_together(team, worker);
  pairs(o.warmup >= 0 ? o.warmup : default_pair_warmup);
  out.iterations = o.iterations > 0 ? o.iterations : calibrate(team, worker, pairs, o.min_time);
  for (int r = 0; r < o.repetitions; ++r) {
    step_together(team, worker);
    pairs(out.iterations);
    const auto slowest = team.allreduce(worker, sums, MPI_MAX);
    std::array<double, 4> per_call{};
    for (std::size_t k = 0; k < 4; ++k)
      per_call[k] = slowest[k] / static_cast<double>(out.iterations);
    out.repetitions.push_back(per_call);
    if (worker == 0 && on_repetition) on_repetition(r);
  }
  return out;
}

/// --validate, after the timed pairs: one more creation, whose communicator
/// `check()` inspects (returning the number of wrong facts this rank sees),
/// summed over all ranks. Never timed.
template <class Create, class Destroy, class Check>
std::int64_t validate_pair(Team& team, int worker, Create&& create, Destroy&& destroy,
                           Check&& check) {
  step_together(team, worker);
  create();
  const double wrong = check();
  destroy();
  return static_cast<std::int64_t>(team.allreduce(worker, std::array{wrong}, MPI_SUM)[0]);
}

/// measure_pairs, then with --validate one more creation whose `facts()`
/// must be `expected` on every rank.
template <class Create, class Destroy, class Facts>
PairTimes measure_and_validate(Team& team, int worker, Create& create, Destroy& destroy,
                               Facts&& facts, const CommFacts& expected, const BenchOptions& o,
                               const std::function<void(int repetition)>& on_repetition = {}) {
  PairTimes times = measure_pairs(team, worker, create, destroy, o, on_repetition);
  if (o.validate)
    times.validation_errors = validate_pair(team, worker, create, destroy, [&] {
      return static_cast<double>(count_wrong(facts(), expected));
    });
  return times;
}

/// Ping-pong of `bytes` over `link` (a rank of one group and its partner in
/// the other); ranks without a partner (no link) take part in the team's
/// steps only. Returns {wall, cpu} seconds per repetition of `*iterations`
/// round trips, reduced over ranks; with --validate, `*errors` is the number
/// of wrong payloads of one checked round trip per pair, over all ranks.
template <class Link>
std::vector<std::array<double, 2>> measure_latency(
    Team& team, int worker, const std::optional<Link>& link, Role role, int pair,
    std::int64_t bytes, const BenchOptions& o, std::int64_t* iterations,
    std::optional<std::int64_t>* errors, const std::function<void(int)>& on_repetition = {}) {
  Buffers buffers(bytes, 1);
  const auto kernel = [&](std::int64_t n) {
    if (link) ping_pong(*link, role, buffers, n);
  };
  step_together(team, worker);
  kernel(o.warmup >= 0 ? o.warmup : default_warmup(P2pCase{Family::latency, bytes, 1}));
  *iterations = o.iterations > 0 ? o.iterations : calibrate(team, worker, kernel, o.min_time);
  std::vector<std::array<double, 2>> reps;
  for (int r = 0; r < o.repetitions; ++r) {
    step_together(team, worker);
    const auto mine = time_it([&] { kernel(*iterations); });
    const auto slowest = team.allreduce(worker, mine, MPI_MAX);
    reps.push_back({slowest[0], slowest[1]});
    if (worker == 0 && on_repetition) on_repetition(r);
  }
  if (o.validate) {
    step_together(team, worker);
    const double wrong =
        link ? static_cast<double>(check_ping_pong(*link, role, pair, buffers)) : 0.0;
    *errors = static_cast<std::int64_t>(team.allreduce(worker, std::array{wrong}, MPI_SUM)[0]);
  }
  return reps;
}

}  // namespace ep::bench
