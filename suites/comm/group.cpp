// Groups and the communicators made from them, as MPI defines them: the
// group operations on seeded random subsets and ranges of the test
// communicator's group, translated and compared across the communicator,
// its dup, its splits and an inter-communicator's local and remote groups
// (identities carry over, as MPI processes do);
// Comm_create with one group and with disjoint groups, and of an
// inter-communicator; Comm_create_group
// by two disjoint halves at once with one tag (in the uneven layouts one
// process hosts members of both, and a process hosts no member of one);
// and a ring Sendrecv and an Allreduce on every communicator made. Every
// rank prints what it saw, so the endpoint run must print what plain MPI
// prints; each rank also checks ranks against the ones it computes.
#include <algorithm>
#include <array>
#include <numeric>
#include <tuple>
#include <vector>

#include "comm_test.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

// Both MPIs return MPI_GROUP_EMPTY for an empty result, and Open MPI 4.1.4
// crashes freeing it (free(): invalid pointer), so the test never does.
void release(Context& t, api::Group* g) {
  if (*g != api::GROUP_EMPTY) t.check_rc(api::Group_free(g), "Group_free");
}

// What a group is, as ranks of `reference`: size, my rank, and its members
// translated (MPI_UNDEFINED as -32766 reads badly: "u").
std::string show(Context& t, api::Group g, api::Group reference) {
  int size = -1;
  int rank = -2;
  t.check_rc(api::Group_size(g, &size), "Group_size");
  t.check_rc(api::Group_rank(g, &rank), "Group_rank");
  std::vector<int> mine(static_cast<std::size_t>(size));
  std::iota(mine.begin(), mine.end(), 0);
  std::vector<int> there(mine.size(), -7);
  t.check_rc(api::Group_translate_ranks(g, size, mine.data(), reference, there.data()),
             "Group_translate_ranks");
  std::string members = "[";
  for (std::size_t i = 0; i < there.size(); ++i)
    members += (i ? ", " : "") + (there[i] == MPI_UNDEFINED ? "u" : std::to_string(there[i]));
  return fmt::format("size {} rank {} members {}]", size,
                     rank == MPI_UNDEFINED ? "u" : std::to_string(rank), members);
}

std::string compared(Context& t, api::Group a, api::Group b) {
  int result = -1;
  t.check_rc(api::Group_compare(a, b, &result), "Group_compare");
  return compare_name(result);
}

// A random subset of 0..size-1 in random order.
std::vector<int> random_ranks(Rng& rng, int size) {
  std::vector<int> all(static_cast<std::size_t>(size));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = all.size(); i > 1; --i)
    std::swap(all[i - 1], all[static_cast<std::size_t>(rng.below(static_cast<int>(i)))]);
  all.resize(static_cast<std::size_t>(rng.below(size + 1)));
  return all;
}

// Disjoint random triplets over 0..size-1, some walking down.
std::vector<std::array<int, 3>> random_ranges(Rng& rng, int size) {
  std::vector<std::array<int, 3>> ranges;
  int at = rng.below(2);
  while (at < size) {
    const int stride = 1 + rng.below(3);
    const int last = std::min(size - 1, at + rng.below(4));
    const int steps = (last - at) / stride;
    if (rng.below(2) == 0) {
      ranges.push_back({at, at + steps * stride, stride});
    } else {
      ranges.push_back({at + steps * stride, at, -stride});
    }
    at = last + 1 + rng.below(2);
  }
  return ranges;
}

void group_ops(Context& t, std::uint64_t seed, int round) {
  api::Group world = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  Rng rng(seed);
  const std::vector<int> in = random_ranks(rng, t.size());
  const std::vector<int> out = random_ranks(rng, t.size());
  api::Group a = api::GROUP_NULL;
  api::Group b = api::GROUP_NULL;
  t.check_rc(api::Group_incl(world, static_cast<int>(in.size()), in.data(), &a), "Group_incl");
  t.check_rc(api::Group_excl(world, static_cast<int>(out.size()), out.data(), &b), "Group_excl");
  const std::string r = fmt::format("round {}", round);
  t.out("{}: incl {} -> {}", r, list(in), show(t, a, world));
  t.out("{}: excl {} -> {}", r, list(out), show(t, b, world));
  int ranges[16][3];
  std::vector<std::array<int, 3>> triplets = random_ranges(rng, t.size());
  triplets.resize(std::min<std::size_t>(triplets.size(), 16));
  for (std::size_t i = 0; i < triplets.size(); ++i)
    for (int k = 0; k < 3; ++k) ranges[i][k] = triplets[i][static_cast<std::size_t>(k)];
  const int n = static_cast<int>(triplets.size());
  api::Group c = api::GROUP_NULL;
  api::Group d = api::GROUP_NULL;
  t.check_rc(api::Group_range_incl(world, n, ranges, &c), "Group_range_incl");
  t.check_rc(api::Group_range_excl(world, n, ranges, &d), "Group_range_excl");
  std::string shown;
  for (const auto& tr : triplets) shown += fmt::format("({},{},{})", tr[0], tr[1], tr[2]);
  t.out("{}: range_incl {} -> {}", r, shown, show(t, c, world));
  t.out("{}: range_excl {} -> {}", r, shown, show(t, d, world));
  struct Named {
    const char* name;
    int (*op)(api::Group, api::Group, api::Group*);
  };
  const Named ops[] = {{"union", api::Group_union},
                       {"intersection", api::Group_intersection},
                       {"difference", api::Group_difference}};
  for (const Named& op : ops) {
    for (auto [x, y, names] : {std::tuple{a, b, "a,b"}, std::tuple{b, a, "b,a"},
                               std::tuple{a, c, "a,c"}, std::tuple{d, a, "d,a"}}) {
      api::Group result = api::GROUP_NULL;
      t.check_rc(op.op(x, y, &result), op.name);
      t.out("{}: {}({}) -> {}, vs a {}", r, op.name, names, show(t, result, world),
            compared(t, result, a));
      release(t, &result);
    }
  }
  // Translating into a group that lacks some: MPI_UNDEFINED; MPI_PROC_NULL
  // stays; a permutation of the same members is similar.
  std::vector<int> all(static_cast<std::size_t>(t.size()) + 1);
  std::iota(all.begin(), all.end(), 0);
  all.back() = MPI_PROC_NULL;
  std::vector<int> into(all.size(), -7);
  t.check_rc(
      api::Group_translate_ranks(world, static_cast<int>(all.size()), all.data(), a, into.data()),
      "Group_translate_ranks");
  if (kEndpoints || !reference::kTranslateProcNullIntoEmptyUndefined || !in.empty())
    t.expect_eq(into.back(), MPI_PROC_NULL, "MPI_PROC_NULL translates to MPI_PROC_NULL");
  into.pop_back();
  t.out("{}: world into a: {}", r, list(into));
  std::vector<int> reversed(static_cast<std::size_t>(t.size()));
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  api::Group back = api::GROUP_NULL;
  t.check_rc(api::Group_incl(world, t.size(), reversed.data(), &back), "Group_incl");
  t.out("{}: reversed vs world {}, world vs world {}, a vs b {}", r, compared(t, back, world),
        compared(t, world, world), compared(t, a, b));
  for (api::Group* g : {&a, &b, &c, &d, &back, &world}) release(t, g);
}

// The groups of a dup and of a split hold the same endpoints as the
// communicator's: translate and compare across them.
void across_communicators(Context& t) {
  api::Group world = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
  api::Group of_dup = api::GROUP_NULL;
  t.check_rc(api::Comm_group(dup, &of_dup), "Comm_group");
  t.out("dup: group vs world {}", compared(t, of_dup, world));
  // Two splits: by parity with reversed keys, and everyone reversed.
  for (const bool parity : {true, false}) {
    api::Comm sub = api::COMM_NULL;
    t.check_rc(api::Comm_split(t.comm(), parity ? t.rank() % 2 : 0, -t.rank(), &sub), "Comm_split");
    api::Group g = api::GROUP_NULL;
    t.check_rc(api::Comm_group(sub, &g), "Comm_group");
    std::vector<int> all(static_cast<std::size_t>(t.size()));
    std::iota(all.begin(), all.end(), 0);
    std::vector<int> into(all.size(), -7);
    t.check_rc(api::Group_translate_ranks(world, t.size(), all.data(), g, into.data()),
               "Group_translate_ranks");
    int sub_rank = -1;
    t.check_rc(api::Comm_rank(sub, &sub_rank), "Comm_rank");
    t.expect_eq(into[static_cast<std::size_t>(t.rank())], sub_rank, "my rank translated");
    t.out("split {}: world into split {}, split vs world {}, vs dup's {}",
          parity ? "parity" : "reversed", list(into), compared(t, g, world),
          compared(t, g, of_dup));
    release(t, &g);
    t.check_rc(api::Comm_free(&sub), "Comm_free");
  }
  release(t, &of_dup);
  // An inter-communicator between the even and the odd ranks: its local
  // and remote groups, as ranks of the world's group.
  if (t.size() >= 2) {
    api::Comm half = api::COMM_NULL;
    t.check_rc(api::Comm_split(t.comm(), t.rank() % 2, 0, &half), "Comm_split");
    api::Comm inter = api::COMM_NULL;
    t.check_rc(api::Intercomm_create(half, 0, t.comm(), 1 - t.rank() % 2, 9, &inter),
               "Intercomm_create");
    api::Group local = api::GROUP_NULL;
    api::Group remote = api::GROUP_NULL;
    api::Group of_half = api::GROUP_NULL;
    t.check_rc(api::Comm_group(inter, &local), "Comm_group");
    t.check_rc(api::Comm_remote_group(inter, &remote), "Comm_remote_group");
    t.check_rc(api::Comm_group(half, &of_half), "Comm_group");
    t.out("inter: local {}, remote {}, local vs its half {}, remote vs local {}",
          show(t, local, world), show(t, remote, world), compared(t, local, of_half),
          compared(t, remote, local));
    for (api::Group* g : {&local, &remote, &of_half}) release(t, g);
    t.check_rc(api::Comm_free(&inter), "Comm_free");
    t.check_rc(api::Comm_free(&half), "Comm_free");
  }
  release(t, &world);
  t.check_rc(api::Comm_free(&dup), "Comm_free");
}

// A new communicator works: ranks as the group gives them, a ring, and an
// Allreduce of the test ranks.
void traffic(Context& t, api::Comm c, const std::vector<int>& members, int tag,
             const std::string& what) {
  int rank = -1;
  int size = 0;
  t.check_rc(api::Comm_rank(c, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(c, &size), "Comm_size");
  t.expect_eq(size, static_cast<int>(members.size()), what + ": size");
  const auto at = std::find(members.begin(), members.end(), t.rank()) - members.begin();
  t.expect_eq(rank, static_cast<int>(at), what + ": rank is the rank in the group");
  ring_check(t, c, t.rank(), tag, what);
  const int id = t.rank();
  int sum = 0;
  t.check_rc(api::Allreduce(&id, &sum, 1, MPI_INT, MPI_SUM, c), "Allreduce");
  t.expect_eq(sum, std::accumulate(members.begin(), members.end(), 0), what + ": Allreduce");
  t.out("{}: rank {} of {}, Allreduce {}", what, rank, size, sum);
}

void create(Context& t, std::uint64_t seed) {
  api::Group world = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  Rng rng(seed);
  // One group, passed by everyone.
  const std::vector<int> members = random_ranks(rng, t.size());
  api::Group g = api::GROUP_NULL;
  t.check_rc(api::Group_incl(world, static_cast<int>(members.size()), members.data(), &g),
             "Group_incl");
  api::Comm c = api::COMM_NULL;
  t.check_rc(api::Comm_create(t.comm(), g, &c), "Comm_create");
  const bool in = std::find(members.begin(), members.end(), t.rank()) != members.end();
  t.check((c != api::COMM_NULL) == in, "Comm_create: a communicator exactly for the members");
  if (c != api::COMM_NULL) {
    traffic(t, c, members, 31, "create one group " + list(members));
    t.check_rc(api::Comm_free(&c), "Comm_free");
  } else {
    t.out("create one group {}: COMM_NULL", list(members));
  }
  release(t, &g);

  // Disjoint groups, each in random order; class 3 passes GROUP_EMPTY.
  std::vector<std::vector<int>> classes(4);
  for (int r = 0; r < t.size(); ++r) classes[static_cast<std::size_t>(rng.below(4))].push_back(r);
  for (auto& k : classes) {
    for (std::size_t i = k.size(); i > 1; --i)
      std::swap(k[i - 1], k[static_cast<std::size_t>(rng.below(static_cast<int>(i)))]);
  }
  std::size_t mine = 0;
  while (std::find(classes[mine].begin(), classes[mine].end(), t.rank()) == classes[mine].end())
    ++mine;
  api::Group part = api::GROUP_EMPTY;
  if (mine < 3) {
    const std::vector<int>& k = classes[mine];
    t.check_rc(api::Group_incl(world, static_cast<int>(k.size()), k.data(), &part), "Group_incl");
  }
  t.check_rc(api::Comm_create(t.comm(), part, &c), "Comm_create");
  t.check((c != api::COMM_NULL) == (mine < 3), "Comm_create: disjoint groups");
  if (c != api::COMM_NULL) {
    traffic(t, c, classes[mine], 32, fmt::format("create disjoint {}", list(classes[mine])));
    t.check_rc(api::Comm_free(&c), "Comm_free");
  } else {
    t.out("create disjoint: GROUP_EMPTY -> COMM_NULL");
  }
  release(t, &part);
  release(t, &world);
}

// Two halves create their communicators at once with the same tag; the
// upper half is reversed. A third call names a group without this rank
// (COMM_NULL at once) or with it.
void create_group(Context& t) {
  api::Group world = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  const int half = t.size() / 2;
  std::vector<int> lower(static_cast<std::size_t>(half));
  std::iota(lower.begin(), lower.end(), 0);
  std::vector<int> upper(static_cast<std::size_t>(t.size() - half));
  std::iota(upper.rbegin(), upper.rend(), half);
  const std::vector<int>& members = t.rank() < half ? lower : upper;
  api::Group g = api::GROUP_NULL;
  t.check_rc(api::Group_incl(world, static_cast<int>(members.size()), members.data(), &g),
             "Group_incl");
  api::Comm c = api::COMM_NULL;
  t.check_rc(api::Comm_create_group(t.comm(), g, 5, &c), "Comm_create_group");
  if (t.check(c != api::COMM_NULL, "Comm_create_group: a member gets a communicator")) {
    traffic(t, c, members, 33, fmt::format("create_group {}", list(members)));
    // Again on the new communicator, by its group: the same endpoints.
    api::Group again = api::GROUP_NULL;
    t.check_rc(api::Comm_group(c, &again), "Comm_group");
    api::Comm c2 = api::COMM_NULL;
    t.check_rc(api::Comm_create_group(t.comm(), again, 6, &c2), "Comm_create_group");
    int same = -1;
    t.check_rc(api::Comm_compare(c, c2, &same), "Comm_compare");
    t.out("create_group again from its group: vs the first {}", compare_name(same));
    t.check_rc(api::Comm_free(&c2), "Comm_free");
    release(t, &again);
    t.check_rc(api::Comm_free(&c), "Comm_free");
  }
  release(t, &g);
  // Only the odd ranks: the even ones call too and get COMM_NULL at once.
  std::vector<int> odd;
  for (int r = 1; r < t.size(); r += 2) odd.push_back(r);
  t.check_rc(api::Group_incl(world, static_cast<int>(odd.size()), odd.data(), &g), "Group_incl");
  t.check_rc(api::Comm_create_group(t.comm(), g, 7, &c), "Comm_create_group");
  t.check((c != api::COMM_NULL) == (t.rank() % 2 == 1), "Comm_create_group: odd ranks only");
  if (c != api::COMM_NULL) {
    traffic(t, c, odd, 34, "create_group odd");
    t.check_rc(api::Comm_free(&c), "Comm_free");
  }
  release(t, &g);
  release(t, &world);
}

// Comm_create of an inter-communicator between the even and the odd ranks:
// each group names a part of itself (the even side its even local ranks,
// reversed where the reference allows; the odd side all but its local rank 0), and the parts make
// an inter-communicator; then the odd side names no one, and everybody gets COMM_NULL.
void create_inter(Context& t) {
  if (t.size() < 2) return;
  const int side = t.rank() % 2;
  api::Comm half = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), side, 0, &half), "Comm_split");
  api::Comm inter = api::COMM_NULL;
  t.check_rc(api::Intercomm_create(half, 0, t.comm(), 1 - side, 11, &inter), "Intercomm_create");
  api::Group world = api::GROUP_NULL;
  api::Group local = api::GROUP_NULL;
  t.check_rc(api::Comm_group(t.comm(), &world), "Comm_group");
  t.check_rc(api::Comm_group(inter, &local), "Comm_group");
  int local_size = 0;
  int local_rank = -1;
  t.check_rc(api::Comm_size(half, &local_size), "Comm_size");
  t.check_rc(api::Comm_rank(half, &local_rank), "Comm_rank");
  std::vector<int> part;
  if (side == 0) {
    for (int r = local_size - 1; r >= 0; --r)
      if (r % 2 == 0) part.push_back(r);
    if (reference::kInterCreateReorderedHangs) std::reverse(part.begin(), part.end());
  } else {
    for (int r = 1; r < local_size; ++r) part.push_back(r);
  }
  for (const bool empty_odd : {false, true}) {
    api::Group g = api::GROUP_EMPTY;
    if (!(empty_odd && side == 1) && !part.empty()) {
      t.check_rc(api::Group_incl(local, static_cast<int>(part.size()), part.data(), &g),
                 "Group_incl");
    }
    api::Comm c = api::COMM_NULL;
    t.check_rc(api::Comm_create(inter, g, &c), "Comm_create");
    const bool in = std::find(part.begin(), part.end(), local_rank) != part.end();
    // Both parts must be there for an inter-communicator to exist.
    int remote_count = 0;
    t.check_rc(api::Comm_remote_size(inter, &remote_count), "Comm_remote_size");
    const int odd_count = side == 1 ? local_size : remote_count;
    const bool expected = in && !empty_odd && odd_count > 1;
    t.check((c != api::COMM_NULL) == expected,
            "create inter: a communicator exactly for the parts");
    if (c == api::COMM_NULL) {
      t.out("create inter{}: COMM_NULL", empty_odd ? " (odd side empty)" : "");
    } else {
      int flag = 0;
      int size = 0;
      int remote_size = 0;
      int rank = -1;
      t.check_rc(api::Comm_test_inter(c, &flag), "Comm_test_inter");
      t.check_rc(api::Comm_size(c, &size), "Comm_size");
      t.check_rc(api::Comm_remote_size(c, &remote_size), "Comm_remote_size");
      t.check_rc(api::Comm_rank(c, &rank), "Comm_rank");
      t.expect_eq(rank,
                  static_cast<int>(std::find(part.begin(), part.end(), local_rank) - part.begin()),
                  "create inter: rank is the rank in the group");
      api::Group remote = api::GROUP_NULL;
      t.check_rc(api::Comm_remote_group(c, &remote), "Comm_remote_group");
      // Each group receives the sum of the other group's world ranks.
      const int id = t.rank();
      int sum = -1;
      t.check_rc(api::Allreduce(&id, &sum, 1, MPI_INT, MPI_SUM, c), "Allreduce");
      t.out("create inter: inter {}, rank {} of {}, remote {} ({}), Allreduce {}", flag, rank, size,
            remote_size, show(t, remote, world), sum);
      release(t, &remote);
      t.check_rc(api::Comm_free(&c), "Comm_free");
    }
    release(t, &g);
  }
  release(t, &local);
  release(t, &world);
  t.check_rc(api::Comm_free(&inter), "Comm_free");
  t.check_rc(api::Comm_free(&half), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  const int seed = t.params().get_int("seed", 12);
  for (int round = 0; round < 4; ++round)
    group_ops(t, static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(round),
              round);
  across_communicators(t);
  for (int round = 0; round < 3; ++round)
    create(t, static_cast<std::uint64_t>(seed) * 77 + static_cast<std::uint64_t>(round));
  create_group(t);
  create_inter(t);
}
