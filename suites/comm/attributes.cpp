// Predefined attributes on every kind of communicator: MPI sets MPI_HOST,
// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM and
// MPI_LASTUSEDCODE on MPI_COMM_WORLD, and an endpoint communicator answers
// them as the hosting process's MPI_COMM_WORLD does, on the world of
// endpoints, a duplicate, a split and an inter-communicator alike. The
// reference program asks its MPI_COMM_WORLD (the only communicator the
// standard promises them on; Open MPI 4.1.4 has none of them on a split
// communicator). Values that legitimately differ between the two programs
// (MPI_TAG_UB, the universe size: processes, not endpoints) are printed as
// validity; the endpoint program also checks each answer against its own
// process's MPI_COMM_WORLD.
#include <string>
#include <vector>

#include "comm_test.hpp"

namespace {

using namespace eptest;

struct Key {
  int keyval;
  const char* name;
};
const Key kKeys[] = {{MPI_TAG_UB, "MPI_TAG_UB"},
                     {MPI_HOST, "MPI_HOST"},
                     {MPI_IO, "MPI_IO"},
                     {MPI_WTIME_IS_GLOBAL, "MPI_WTIME_IS_GLOBAL"},
                     {MPI_UNIVERSE_SIZE, "MPI_UNIVERSE_SIZE"},
                     {MPI_APPNUM, "MPI_APPNUM"},
                     {MPI_LASTUSEDCODE, "MPI_LASTUSEDCODE"}};

struct Answer {
  int flag = 0;
  int value = 0;
};

Answer from_world(Context& t, int keyval) {
  int* value = nullptr;
  Answer a;
  t.check_rc(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &a.flag),
             "MPI_Comm_get_attr(MPI_COMM_WORLD)");
  if (a.flag) a.value = *value;
  return a;
}

#if defined(EPTEST_MODE_MPI)
constexpr bool kReference = true;
#else
constexpr bool kReference = false;
#endif

Answer from(Context& t, api::Comm comm, int keyval) {
#if defined(EPTEST_MODE_MPI)
  (void)comm;
  return from_world(t, keyval);
#else
  int* value = nullptr;
  Answer a;
  t.check_rc(api::Comm_get_attr(comm, keyval, &value, &a.flag), "Comm_get_attr");
  if (a.flag && t.check(value != nullptr, "Comm_get_attr set the flag but no value")) {
    a.value = *value;
  }
  return a;
#endif
}

// A rank attribute as the two programs can print it alike.
std::string rank_kind(int value, int my_rank) {
  if (value == MPI_PROC_NULL) return "MPI_PROC_NULL";
  if (value == MPI_ANY_SOURCE) return "MPI_ANY_SOURCE";
  return value == my_rank ? "own rank" : "another rank";
}

void report(Context& t, const std::string& name, api::Comm comm, int my_world_rank) {
  int rank = -1;
  t.check_rc(api::Comm_rank(comm, &rank), "Comm_rank");
  for (const Key& key : kKeys) {
    const Answer a = from(t, comm, key.keyval);
    const Answer world = from_world(t, key.keyval);
    std::string shown;
    if (!a.flag) {
      shown = "not set";
    } else if (key.keyval == MPI_TAG_UB) {
      shown = a.value >= 32767 ? "at least 32767" : "BELOW 32767";
    } else if (key.keyval == MPI_HOST || key.keyval == MPI_IO) {
      // A rank of MPI_COMM_WORLD names the hosting process; on an endpoint
      // communicator, its own rank stands for it.
      shown = rank_kind(a.value, kReference ? my_world_rank : rank);
      if (world.flag && world.value == my_world_rank) {
        if (!kReference) {
          t.expect_eq(a.value, rank, fmt::format("{} on {}: the own rank", key.name, name));
        }
      } else {
        t.expect_eq(a.value, world.value, fmt::format("{} on {}", key.name, name));
      }
    } else if (key.keyval == MPI_UNIVERSE_SIZE) {
      shown = a.value >= 1 ? "positive" : "NOT POSITIVE";
      t.expect_eq(a.value, world.value, fmt::format("{} on {}", key.name, name));
    } else if (key.keyval == MPI_LASTUSEDCODE) {
      shown = a.value >= MPI_ERR_LASTCODE ? "at least MPI_ERR_LASTCODE" : "BELOW MPI_ERR_LASTCODE";
      t.expect_eq(a.value, world.value, fmt::format("{} on {}", key.name, name));
    } else {
      shown = std::to_string(a.value);
      t.expect_eq(a.value, world.value, fmt::format("{} on {}", key.name, name));
    }
    if (key.keyval != MPI_TAG_UB) {
      t.expect_eq(a.flag, world.flag, fmt::format("{} on {}: flag", key.name, name));
    } else {
      t.check(a.flag == 1, fmt::format("MPI_TAG_UB on {}: not set", name));
    }
    t.out("{} on {}: flag {}, {}", key.name, name, a.flag, shown);
  }
}

}  // namespace

void eptest::run(Context& t) {
  int my_world_rank = -1;
  t.check_rc(MPI_Comm_rank(MPI_COMM_WORLD, &my_world_rank), "MPI_Comm_rank(MPI_COMM_WORLD)");
  report(t, "the world", t.comm(), my_world_rank);

  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
  report(t, "a duplicate", dup, my_world_rank);

  api::Comm half = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), t.rank() % 2, t.size() - t.rank(), &half), "Comm_split");
  report(t, "a split", half, my_world_rank);

  api::Comm split_dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(half, &split_dup), "Comm_dup");
  report(t, "a duplicate of a split", split_dup, my_world_rank);

  if (t.size() >= 2) {
    // The evens and the odds; their leaders are ranks 0 and 1 of the world.
    api::Comm inter = api::COMM_NULL;
    const int remote_leader = t.rank() % 2 == 0 ? 1 : 0;
    int local_leader = -1;
    {
      // The leader's rank in `half`, whose keys run against the world ranks.
      int half_size = 0;
      t.check_rc(api::Comm_size(half, &half_size), "Comm_size");
      local_leader = half_size - 1;
    }
    t.check_rc(api::Intercomm_create(half, local_leader, t.comm(), remote_leader, 77, &inter),
               "Intercomm_create");
    report(t, "an inter-communicator", inter, my_world_rank);
    api::Comm inter_dup = api::COMM_NULL;
    t.check_rc(api::Comm_dup(inter, &inter_dup), "Comm_dup");
    report(t, "a duplicate of an inter-communicator", inter_dup, my_world_rank);
    t.check_rc(api::Comm_free(&inter_dup), "Comm_free");
    t.check_rc(api::Comm_free(&inter), "Comm_free");
  }
  t.check_rc(api::Comm_free(&split_dup), "Comm_free");
  t.check_rc(api::Comm_free(&half), "Comm_free");
  t.check_rc(api::Comm_free(&dup), "Comm_free");
}
