// How a worker measures create/free pairs and ping-pong across an
// inter-communicator, with the runner of measure.hpp. Every worker of every
// process runs these in lockstep (Team) and gets the same reduced numbers
// back.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bench_options.hpp"
#include "comm_bench.hpp"
#include "measure.hpp"
#include "p2p_kernels.hpp"
#include "team.hpp"
#include "watchdog.hpp"

namespace ep::bench {

/// Untimed pairs before calibration when --warmup is not given: enough for
/// the MPI below to have set up its connections and caches.
inline constexpr std::int64_t default_pair_warmup = 3;

/// Times `create()` then `destroy()` (the free of what create made), in
/// pairs. The first pair is the cold one and is timed alone; then the
/// runner's warm-up, calibration and timed repetitions of pairs, create and
/// free summed separately. Worker 0 calls on_repetition(r) after each
/// repetition (the progress line).
template <class Create, class Destroy>
PairTimes measure_pairs(Team& team, int worker, Create&& create, Destroy&& destroy,
                        const BenchOptions& o, const OnRepetition& on_repetition = {}) {
  PairTimes out;
  step_together(team, worker);
  const auto c = time_it(create);
  const auto d = time_it(destroy);
  const auto cold = team.allreduce(worker, std::array{c[0], c[1], d[0], d[1]}, MPI_MAX);
  std::copy(cold.begin(), cold.end(), out.cold.begin());

  // {create wall, create cpu, free wall, free cpu} summed over n pairs.
  const auto pairs = [&](std::int64_t n) {
    std::array<double, 4> sums{};
    for (std::int64_t i = 0; i < n; ++i) {
      kernel_progress();
      const auto tc = time_it(create);
      const auto td = time_it(destroy);
      sums = {sums[0] + tc[0], sums[1] + tc[1], sums[2] + td[0], sums[3] + td[1]};
    }
    return sums;
  };
  const auto m = measure(team, worker, pairs, Schedule::of(o, default_pair_warmup), on_repetition);
  out.iterations = m.iterations;
  for (const auto& slowest : m.repetitions) {  // {wall, cpu, then the four sums}
    std::array<double, 4> per_call{};
    for (std::size_t k = 0; k < 4; ++k)
      per_call[k] = slowest[2 + k] / static_cast<double>(m.iterations);
    out.repetitions.push_back(per_call);
  }
  return out;
}

/// --validate, after the timed pairs: one more creation, whose communicator
/// `check()` inspects (returning the number of wrong facts this rank sees),
/// summed over all ranks. Never timed.
template <class Create, class Destroy, class Check>
std::int64_t validate_pair(Team& team, int worker, Create&& create, Destroy&& destroy,
                           Check&& check) {
  return validate_together(team, worker, [&] {
    create();
    const auto wrong = check();
    destroy();
    return wrong;
  });
}

/// measure_pairs, then with --validate one more creation whose `facts()`
/// must be `expected` on every rank.
template <class Create, class Destroy, class Facts>
PairTimes measure_and_validate(Team& team, int worker, Create& create, Destroy& destroy,
                               Facts&& facts, const CommFacts& expected, const BenchOptions& o,
                               const OnRepetition& on_repetition = {}) {
  PairTimes times = measure_pairs(team, worker, create, destroy, o, on_repetition);
  if (o.validate)
    times.validation_errors = validate_pair(team, worker, create, destroy,
                                            [&] { return count_wrong(facts(), expected); });
  return times;
}

/// Ping-pong of `bytes` over `link` (a rank of one group and its partner in
/// the other); ranks without a partner (no link) take part in the team's
/// steps only. Returns {wall, cpu} seconds per repetition of its iterations
/// round trips, reduced over ranks; with --validate, the wrong payloads of
/// one checked round trip per pair, over all ranks.
template <class Link>
Measurement<> measure_latency(Team& team, int worker, const std::optional<Link>& link, Role role,
                              int pair, std::int64_t bytes, const BenchOptions& o,
                              const OnRepetition& on_repetition = {}) {
  Buffers buffers(bytes, 1);
  const auto kernel = [&](std::int64_t n) {
    if (link)
      ping_pong(*link, role, buffers, n);
    else
      kernel_passive();  // waits for the pairs, which may be in other processes
  };
  Measurement<> m =
      measure(team, worker, kernel, Schedule::of(o, default_warmup(bytes, true)), on_repetition);
  if (o.validate)
    m.validation_errors = validate_together(team, worker, [&] {
      return link ? check_ping_pong(*link, role, pair, buffers) : std::int64_t{0};
    });
  return m;
}

}  // namespace ep::bench
