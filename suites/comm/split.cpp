// Comm_split as MPI defines it, across processes: seeded random colors (some
// MPI_UNDEFINED) and keys with many ties, nested three levels deep, each
// level splitting the communicators the one before made; then
// Comm_split_type(MPI_COMM_TYPE_SHARED) with reversed keys. Every rank
// prints what it got and who the members are, in rank order, so the
// endpoint run must print what plain MPI prints; each rank also checks its
// rank against the order it computes itself (key, then old rank).
#include <algorithm>

#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

constexpr int kLevels = 3;
constexpr int kRounds = 4;  // independent splits of the test communicator

// One level of a nested split of `comm`; recurses into the result. `id` is
// the rank in the test communicator: it names the endpoint at every level.
void split_level(Context& t, api::Comm comm, int level, int round, std::uint64_t seed,
                 const std::string& path) {
  int rank = -1;
  int size = 0;
  t.check_rc(api::Comm_rank(comm, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(comm, &size), "Comm_size");
  // Every rank of `comm` draws every rank's color and key alike. Few colors
  // and a key range of 3 give several colors per process and many ties.
  Rng rng(seed);
  const int colors_in_use = 1 + rng.below(3);
  std::vector<int> colors(static_cast<std::size_t>(size));
  std::vector<int> keys(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    colors[static_cast<std::size_t>(r)] =
        rng.below(6) == 0 ? MPI_UNDEFINED : rng.below(colors_in_use);
    keys[static_cast<std::size_t>(r)] = rng.below(3) - 1;
  }
  const int color = colors[static_cast<std::size_t>(rank)];
  const int key = keys[static_cast<std::size_t>(rank)];
  api::Comm sub = api::COMM_NULL;
  if (!t.check_rc(api::Comm_split(comm, color, key, &sub), "Comm_split")) return;
  const std::string where = fmt::format("round {} level {}{}", round, level, path);
  if (color == MPI_UNDEFINED) {
    t.check(sub == api::COMM_NULL, where + ": MPI_UNDEFINED did not give COMM_NULL");
    t.out("{}: rank {} color undefined key {} -> COMM_NULL", where, rank, key);
    return;
  }
  int new_rank = -1;
  int new_size = 0;
  t.check_rc(api::Comm_rank(sub, &new_rank), "Comm_rank");
  t.check_rc(api::Comm_size(sub, &new_size), "Comm_size");
  const std::vector<int> expected = split_members(colors, keys, color);
  const auto at = std::find(expected.begin(), expected.end(), rank) - expected.begin();
  t.expect_eq(new_rank, static_cast<int>(at),
              where + ": rank after the split (key, then old rank)");
  t.expect_eq(new_size, static_cast<int>(expected.size()), where + ": size after the split");
  int versus_parent = -1;
  t.check_rc(api::Comm_compare(comm, sub, &versus_parent), "Comm_compare");
  const std::vector<int> ids = exchange_ids(t, sub, t.rank(), 11 + level);
  t.out("{}: rank {} color {} key {} -> rank {} of {}, members {}, vs parent {}", where, rank,
        color, key, new_rank, new_size, list(ids), compare_name(versus_parent));
  if (level + 1 < kLevels)
    split_level(t, sub, level + 1, round, seed * 31 + static_cast<std::uint64_t>(color) + 7,
                fmt::format("{}/{}", path, color));
  t.check_rc(api::Comm_free(&sub), "Comm_free");
}

void split_type(Context& t) {
  // All ranks share this machine's memory: one communicator, ranks reversed.
  api::Comm node = api::COMM_NULL;
  t.check_rc(api::Comm_split_type(t.comm(), MPI_COMM_TYPE_SHARED, -t.rank(), MPI_INFO_NULL, &node),
             "Comm_split_type");
  int rank = -1;
  int size = 0;
  t.check_rc(api::Comm_rank(node, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(node, &size), "Comm_size");
  t.expect_eq(rank, t.size() - 1 - t.rank(), "split_type: rank with key -rank");
  const std::vector<int> ids = exchange_ids(t, node, t.rank(), 20);
  t.out("split_type shared key -rank: rank {} of {}, members {}", rank, size, list(ids));
  t.check_rc(api::Comm_free(&node), "Comm_free");

  // MPI_UNDEFINED as the type: no communicator.
  api::Comm none = api::COMM_NULL;
  const int type = t.rank() % 2 == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
  t.check_rc(api::Comm_split_type(t.comm(), type, 0, MPI_INFO_NULL, &none), "Comm_split_type");
  t.check((none == api::COMM_NULL) == (type == MPI_UNDEFINED),
          "split_type: MPI_UNDEFINED gives COMM_NULL, the others a communicator");
  if (none != api::COMM_NULL) {
    int size_odd = 0;
    t.check_rc(api::Comm_size(none, &size_odd), "Comm_size");
    t.out("split_type odd ranks: size {}", size_odd);
    t.check_rc(api::Comm_free(&none), "Comm_free");
  } else {
    t.out("split_type even ranks: COMM_NULL");
  }
}

}  // namespace

void eptest::run(Context& t) {
  const int seed = t.params().get_int("seed", 2024);
  for (int round = 0; round < kRounds; ++round)
    split_level(t, t.comm(), 0, round, static_cast<std::uint64_t>(seed) * 1000 + round, "");
  split_type(t);
}
