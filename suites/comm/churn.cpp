// Communicators of every kind created and freed many times in a row
// (--cycles, default 1000): Comm_dup, Comm_split, Comm_split_type,
// Intercomm_create and Intercomm_merge, and a split_type of a split of a
// duplicate ("nested"). Every tenth new communicator carries
// an Allreduce. Nothing may grow with the cycles:
//  - memory: the process's resident set after the last cycle is within
//    kRssSlack of what it was after the first tenth;
//  - MPI communicators: a communicator duplicated from MPI_COMM_SELF gets a
//    Fortran handle (MPI_Comm_c2f), which both MPIs take from a table of live
//    communicators, lowest free slot first (Open MPI) or from a free list
//    (MPICH); if communicators leaked, it would climb with the cycles.
// Both hold for plain MPI processes, the reference program, as well. On
// endpoints, a third: after the first tenth, no MPI communicator is made
// (libep takes the sets of MPI communicators its freed communicators left
// in its pool, comm/build.hpp), also where two leaders of a process make
// sibling communicators at once (the nested kind).
// With --live=N, N duplicates are alive at once instead (see live()).
#include <atomic>
#include <fstream>
#include <string>
#include <vector>

#include "comm_test.hpp"

#ifdef EPTEST_MODE_EP
namespace {
// The MPI communicators this process made, counted through MPI's profiling
// interface, which libep's calls reach since it is linked into the program.
std::atomic<long> mpi_made{0};
}  // namespace

extern "C" {
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  ++mpi_made;
  return PMPI_Comm_dup(comm, newcomm);
}
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  ++mpi_made;
  return PMPI_Comm_idup(comm, newcomm, request);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  ++mpi_made;
  return PMPI_Comm_split(comm, color, key, newcomm);
}
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  ++mpi_made;
  return PMPI_Comm_create_group(comm, group, tag, newcomm);
}
}
#endif

namespace {

using namespace eptest;
using namespace eptest::comm;

// Allowed growth of the resident set between the checkpoint and the end:
// a communicator's process part is tens of kilobytes (its team's mailboxes),
// so a leak of one per cycle would pass it within the first hundred.
constexpr long kRssSlackKib = 4096;
// Allowed growth of the probe's handle index: other threads of the process
// create and free communicators at the same moment.
constexpr int kHandleSlack = 64;
// Allowed MPI communicators made after the first tenth: none were, on every
// layout tested; a set missed now and then would not fail the test, a set
// made every cycle (two sibling creations reserving each other's sets made
// 4 per cycle) does.
constexpr long kMadeSlack = 8;
// Under AddressSanitizer freed memory waits in its quarantine (256 MiB by
// default), and ThreadSanitizer keeps shadow memory of its own: the resident
// set says nothing there. LeakSanitizer's check at exit stands in for it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kResidentSetMeaningful = false;
#else
constexpr bool kResidentSetMeaningful = true;
#endif

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = -1;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 12, '\n');
  }
  return value;
}

int communicator_handle_index() {
  MPI_Comm probe = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_SELF, &probe) != MPI_SUCCESS) return -1;
  // The index bits: MPICH's handles also carry their kind in the top bits,
  // which change between a direct and an indirect object.
  const int index = static_cast<int>(MPI_Comm_c2f(probe)) & 0x03ffffff;
  MPI_Comm_free(&probe);
  return index;
}

// The MPI communicators made in this process so far (0 on plain MPI, where
// the program makes them itself).
long mpi_communicators_made() {
#ifdef EPTEST_MODE_EP
  return mpi_made.load();
#else
  return 0;
#endif
}

struct Watch {
  long rss = 0;
  int handle = 0;
  long made = 0;
};

void churn(Context& t, const std::string& kind, int cycles, api::Comm local, api::Comm inter) {
  const int half = t.size() / 2;
  const int group = t.rank() < half ? 0 : 1;
  Watch start;
  int bad = 0;
  for (int i = 0; i < cycles && bad < 3; ++i) {
    if (i == cycles / 10) {
      start.rss = resident_kib();
      start.handle = communicator_handle_index();
      start.made = mpi_communicators_made();
    }
    api::Comm made = api::COMM_NULL;
    int rc = MPI_SUCCESS;
    if (kind == "dup") {
      rc = api::Comm_dup(t.comm(), &made);
    } else if (kind == "split") {
      rc = api::Comm_split(t.comm(), (t.rank() + i) % 2, -t.rank(), &made);
    } else if (kind == "split_type") {
      rc = api::Comm_split_type(t.comm(), MPI_COMM_TYPE_SHARED, t.rank(), MPI_INFO_NULL, &made);
    } else if (kind == "nested") {
      // A split of a duplicate, and a split_type of that: with two colors,
      // the sibling communicators of a process are made at once by two
      // leaders (issue 11: 20 to 500 times MPI's time on some layouts).
      api::Comm dup = api::COMM_NULL;
      api::Comm split = api::COMM_NULL;
      rc = api::Comm_dup(t.comm(), &dup);
      if (rc == MPI_SUCCESS) rc = api::Comm_split(dup, t.rank() % 2, t.rank(), &split);
      if (rc == MPI_SUCCESS) {
        rc = api::Comm_split_type(split, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &made);
      }
      if (split != api::COMM_NULL) t.check_rc(api::Comm_free(&split), "Comm_free");
      if (dup != api::COMM_NULL) t.check_rc(api::Comm_free(&dup), "Comm_free");
    } else if (kind == "intercomm") {
      rc = api::Intercomm_create(local, 0, t.comm(), group == 0 ? half : 0, 21, &made);
    } else {
      rc = api::Intercomm_merge(inter, group, &made);
    }
    if (!t.check_rc(rc, kind + " creation")) {
      ++bad;
      continue;
    }
    if (i % 10 == 0) {
      int one = 1;
      int sum = 0;
      t.check_rc(api::Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, made), "Allreduce");
      int expected = 0;
      int inter_flag = 0;
      api::Comm_test_inter(made, &inter_flag);
      if (inter_flag) {
        api::Comm_remote_size(made, &expected);
      } else {
        api::Comm_size(made, &expected);
      }
      if (!t.expect_eq(sum, expected, kind + " Allreduce")) ++bad;
    }
    if (!t.check_rc(api::Comm_free(&made), kind + " Comm_free")) ++bad;
  }
  const long rss = resident_kib();
  const int handle = communicator_handle_index();
  t.check(!kResidentSetMeaningful || rss - start.rss <= kRssSlackKib,
          fmt::format("{}: resident set grew from {} KiB to {} KiB over {} cycles", kind, start.rss,
                      rss, cycles - cycles / 10));
  t.check(handle - start.handle <= kHandleSlack,
          fmt::format("{}: MPI communicator handles climbed from {} to {}: communicators leak",
                      kind, start.handle, handle));
  const long made = mpi_communicators_made() - start.made;
  t.check(made <= kMadeSlack,
          fmt::format("{}: {} MPI communicators made in this process after the first tenth of the "
                      "cycles: freed communicators' sets are not taken again",
                      kind, made));
  t.out("{}: {} cycles, {}", kind, cycles, bad == 0 ? "all good" : "FAILED");
}

// `count` duplicates alive at once, then freed. Each endpoint communicator
// used to cost 1 + 2 x (endpoints per process) MPI communicators: with 32 per
// process Open MPI ran out of communicators after 2^16 / 65, about 1000.
void live(Context& t, int count) {
  std::vector<api::Comm> comms(static_cast<std::size_t>(count), api::COMM_NULL);
  int made = 0;
  for (api::Comm& c : comms) {
    if (!t.check_rc(api::Comm_dup(t.comm(), &c), fmt::format("Comm_dup number {}", made + 1))) {
      break;
    }
    ++made;
  }
  if (made == count) {
    int one = 1;
    int sum = 0;
    t.check_rc(api::Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comms.back()), "Allreduce");
    t.expect_eq(sum, t.size(), "Allreduce on the last duplicate");
  }
  for (int i = made; i-- > 0;) {
    t.check_rc(api::Comm_free(&comms[static_cast<std::size_t>(i)]), "Comm_free");
  }
  t.out("{} communicators alive at once: {}", count, made == count ? "all good" : "FAILED");
}

}  // namespace

void eptest::run(Context& t) {
  if (const int count = t.params().get_int("live", 0); count > 0) return live(t, count);
  const int cycles = t.params().get_int("cycles", 1000);
  for (const char* kind : {"dup", "split", "split_type", "nested"}) {
    churn(t, kind, cycles, api::COMM_NULL, api::COMM_NULL);
  }
  if (t.size() < 2) {
    t.out("one rank: no inter-communicator");
    return;
  }
  const int half = t.size() / 2;
  const int group = t.rank() < half ? 0 : 1;
  api::Comm local = api::COMM_NULL;
  api::Comm inter = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), group, t.rank(), &local), "Comm_split");
  t.check_rc(api::Intercomm_create(local, 0, t.comm(), group == 0 ? half : 0, 22, &inter),
             "Intercomm_create");
  churn(t, "intercomm", cycles, local, inter);
  churn(t, "merge", cycles, local, inter);
  t.check_rc(api::Comm_free(&inter), "Comm_free");
  t.check_rc(api::Comm_free(&local), "Comm_free");
}
