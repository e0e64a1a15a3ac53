// Comm_idup: the duplicate's ranks, congruence, traffic and attributes;
// several outstanding at once, mixed with non-blocking collectives on the
// same communicator and completed in any order; duplicates that complete
// while the endpoints of a process all block in a receive (the duplicate
// must progress in any call, as MPI's does); rounds of create and free; and
// the duplicate of an inter-communicator.
#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

// The attribute every duplicate must carry: copied by MPI_COMM_DUP_FN. Each
// rank makes its own (a thread per rank on endpoints).
thread_local int keyval = MPI_KEYVAL_INVALID;

void check_duplicate(Context& t, api::Comm parent, api::Comm dup, const std::string& what) {
  int rank = -1;
  int size = 0;
  int parent_rank = -1;
  int parent_size = 0;
  t.check_rc(api::Comm_rank(dup, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(dup, &size), "Comm_size");
  t.check_rc(api::Comm_rank(parent, &parent_rank), "Comm_rank");
  t.check_rc(api::Comm_size(parent, &parent_size), "Comm_size");
  t.expect_eq(rank, parent_rank, what + ": rank");
  t.expect_eq(size, parent_size, what + ": size");
  int result = -1;
  t.check_rc(api::Comm_compare(parent, dup, &result), "Comm_compare");
  t.expect_eq(compare_name(result), std::string("MPI_CONGRUENT"), what + ": compare");
  void* value = nullptr;
  int flag = 0;
  t.check_rc(api::Comm_get_attr(dup, keyval, &value, &flag), "Comm_get_attr");
  t.expect_eq(flag, 1, what + ": the attribute was copied");
  if (flag) t.expect_eq(*static_cast<int*>(value), 1000 + parent_rank, what + ": attribute value");
}

// One duplicate, then traffic on it and on its parent with the same tag.
void single(Context& t) {
  api::Comm dup = api::COMM_NULL;
  api::Request request = api::REQUEST_NULL;
  t.check_rc(api::Comm_idup(t.comm(), &dup, &request), "Comm_idup");
  t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
  t.check(request == api::REQUEST_NULL, "Wait resets the request");
  check_duplicate(t, t.comm(), dup, "single");
  ring_check(t, dup, t.rank(), 4, "idup");
  ring_check(t, t.comm(), 100 + t.rank(), 4, "parent after idup");
  int sum = 0;
  const int rank = t.rank();
  t.check_rc(api::Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup), "Allreduce");
  t.out("single: rank {} of the duplicate, sum of ranks {}", t.rank(), sum);
  t.check_rc(api::Comm_free(&dup), "Comm_free");
}

// Two duplicates and two collectives outstanding on one communicator,
// completed last first.
void mixed(Context& t, int round) {
  api::Comm first = api::COMM_NULL;
  api::Comm second = api::COMM_NULL;
  api::Request requests[4];
  int word = t.rank() == 0 ? 7000 + round : -1;
  int mine = t.rank() + round;
  int sum = -1;
  t.check_rc(api::Comm_idup(t.comm(), &first, &requests[0]), "Comm_idup");
  t.check_rc(api::Ibcast(&word, 1, MPI_INT, 0, t.comm(), &requests[1]), "Ibcast");
  t.check_rc(api::Comm_idup(t.comm(), &second, &requests[2]), "Comm_idup");
  t.check_rc(api::Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, t.comm(), &requests[3]),
             "Iallreduce");
  for (int i = 3; i >= 0; --i) t.check_rc(api::Wait(&requests[i], api::STATUS_IGNORE), "Wait");
  t.expect_eq(word, 7000 + round, "Ibcast between two Comm_idup");
  t.expect_eq(sum, t.size() * (t.size() - 1) / 2 + t.size() * round, "Iallreduce after them");
  check_duplicate(t, t.comm(), first, "mixed first");
  check_duplicate(t, t.comm(), second, "mixed second");
  // Each duplicate keeps its own traffic: the same tag on both, receives
  // posted on both before either send.
  const int next = (t.rank() + 1) % t.size();
  const int previous = (t.rank() + t.size() - 1) % t.size();
  int in[2] = {-1, -1};
  int out[2] = {10 * t.rank() + 1, 10 * t.rank() + 2};
  api::Request ring[4];
  t.check_rc(api::Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 5, first, &ring[0]), "Irecv");
  t.check_rc(api::Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 5, second, &ring[1]), "Irecv");
  t.check_rc(api::Isend(&out[1], 1, MPI_INT, next, 5, second, &ring[2]), "Isend");
  t.check_rc(api::Isend(&out[0], 1, MPI_INT, next, 5, first, &ring[3]), "Isend");
  t.check_rc(api::Waitall(4, ring, api::STATUSES_IGNORE), "Waitall");
  t.expect_eq(in[0], 10 * previous + 1, "payload on the first duplicate");
  t.expect_eq(in[1], 10 * previous + 2, "payload on the second duplicate");
  if (round == 0) t.out("mixed: Ibcast {}, Iallreduce {}, ring {} {}", word, sum, in[0], in[1]);
  t.check_rc(api::Comm_free(&first), "Comm_free");
  t.check_rc(api::Comm_free(&second), "Comm_free");
}

// Every rank but the last starts a duplicate and then blocks in a receive
// from the last rank, which sends only once its own duplicate completed:
// the duplicate must progress while the others block elsewhere (a process
// whose endpoints all receive has no Test or Wait to move it on).
void blocked(Context& t) {
  api::Comm dup = api::COMM_NULL;
  api::Request request = api::REQUEST_NULL;
  const int last = t.size() - 1;
  t.check_rc(api::Comm_idup(t.comm(), &dup, &request), "Comm_idup");
  if (t.rank() == last) {
    t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
    for (int r = 0; r < last; ++r) {
      t.check_rc(api::Send(&r, 1, MPI_INT, r, 6, t.comm()), "Send");
    }
  } else {
    int got = -1;
    t.check_rc(api::Recv(&got, 1, MPI_INT, last, 6, t.comm(), api::STATUS_IGNORE), "Recv");
    t.expect_eq(got, t.rank(), "the last rank's message");
    t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
  }
  check_duplicate(t, t.comm(), dup, "blocked");
  ring_check(t, dup, t.rank(), 7, "idup completed while blocked");
  t.out("blocked: the duplicate completed");
  t.check_rc(api::Comm_free(&dup), "Comm_free");
}

// Four outstanding, then all freed: eight rounds, so that later rounds
// build on MPI communicators recycled from earlier ones.
void rounds(Context& t) {
  constexpr int kRounds = 8;
  constexpr int kAtOnce = 4;
  int checked = 0;
  for (int round = 0; round < kRounds; ++round) {
    api::Comm dups[kAtOnce];
    api::Request requests[kAtOnce];
    for (int i = 0; i < kAtOnce; ++i) {
      t.check_rc(api::Comm_idup(t.comm(), &dups[i], &requests[i]), "Comm_idup");
    }
    int done = 0;
    // Tested in a loop, as programs written for MPI do.
    while (!done) {
      t.check_rc(api::Testall(kAtOnce, requests, &done, api::STATUSES_IGNORE), "Testall");
    }
    for (int i = 0; i < kAtOnce; ++i) {
      int sum = -1;
      const int value = round * kAtOnce + i;
      t.check_rc(api::Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, dups[i]), "Allreduce");
      checked += t.expect_eq(sum, value * t.size(), "Allreduce on a duplicate") ? 1 : 0;
    }
    for (int i = kAtOnce; i-- > 0;) t.check_rc(api::Comm_free(&dups[i]), "Comm_free");
  }
  t.out("rounds: {} of {} duplicates carried an Allreduce", checked, kRounds * kAtOnce);
}

// The duplicate of an inter-communicator between the even and the odd ranks.
void inter(Context& t) {
  if (t.size() < 2) return;
  api::Comm local = api::COMM_NULL;
  api::Comm bridge = api::COMM_NULL;
  const int color = t.rank() % 2;
  t.check_rc(api::Comm_split(t.comm(), color, t.rank(), &local), "Comm_split");
  t.check_rc(api::Intercomm_create(local, 0, t.comm(), 1 - color, 8, &bridge), "Intercomm_create");
  api::Comm dup = api::COMM_NULL;
  api::Request requests[2];
  t.check_rc(api::Comm_idup(bridge, &dup, &requests[0]), "Comm_idup");
  t.check_rc(api::Ibarrier(bridge, &requests[1]), "Ibarrier");
  t.check_rc(api::Waitall(2, requests, api::STATUSES_IGNORE), "Waitall");
  int flag = 0;
  int remote = 0;
  int expected_remote = 0;
  t.check_rc(api::Comm_test_inter(dup, &flag), "Comm_test_inter");
  t.check_rc(api::Comm_remote_size(dup, &remote), "Comm_remote_size");
  t.check_rc(api::Comm_remote_size(bridge, &expected_remote), "Comm_remote_size");
  t.expect_eq(flag, 1, "the duplicate of an inter-communicator is one");
  t.expect_eq(remote, expected_remote, "remote size of the duplicate");
  int result = -1;
  t.check_rc(api::Comm_compare(bridge, dup, &result), "Comm_compare");
  t.expect_eq(compare_name(result), std::string("MPI_CONGRUENT"), "inter: compare");
  const std::vector<int> ids = exchange_ids(t, dup, 500 + t.rank(), 9);
  t.out("inter: group {} sees remote ids {}", color, list(ids));
  t.check_rc(api::Comm_free(&dup), "Comm_free");
  t.check_rc(api::Comm_free(&bridge), "Comm_free");
  t.check_rc(api::Comm_free(&local), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_create_keyval(api::COMM_DUP_FN, api::COMM_NULL_DELETE_FN, &keyval, nullptr),
             "Comm_create_keyval");
  static thread_local int value;
  value = 1000 + t.rank();
  t.check_rc(api::Comm_set_attr(t.comm(), keyval, &value), "Comm_set_attr");
  single(t);
  for (int round = 0; round < 5; ++round) mixed(t, round);
  blocked(t);
  rounds(t);
  inter(t);
  t.check_rc(api::Comm_delete_attr(t.comm(), keyval), "Comm_delete_attr");
}
