// Comm_dup and Comm_compare, and the context of every communicator: the same
// (source, tag) sent on the test communicator, a duplicate and a split of
// it, with wildcard receives posted on all of them before anything is sent,
// must each arrive on the communicator it was sent on.
#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

void compare_all(Context& t, api::Comm dup) {
  int result = -1;
  t.check_rc(api::Comm_compare(t.comm(), t.comm(), &result), "Comm_compare");
  t.out("compare self: {}", compare_name(result));
  t.check_rc(api::Comm_compare(t.comm(), dup, &result), "Comm_compare");
  t.out("compare dup: {}", compare_name(result));

  // One color, keys reversed: the same group in another order.
  api::Comm reversed = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), 0, -t.rank(), &reversed), "Comm_split");
  t.check_rc(api::Comm_compare(t.comm(), reversed, &result), "Comm_compare");
  t.out("compare reversed split: {}", compare_name(result));
  // One color, keys equal: ties keep the old order.
  api::Comm same = api::COMM_NULL;
  t.check_rc(api::Comm_split(dup, 0, 7, &same), "Comm_split");
  t.check_rc(api::Comm_compare(t.comm(), same, &result), "Comm_compare");
  t.out("compare tied split: {}", compare_name(result));
  int rank = -1;
  t.check_rc(api::Comm_rank(same, &rank), "Comm_rank");
  t.expect_eq(rank, t.rank(), "tied keys keep the old order");
  t.check_rc(api::Comm_compare(reversed, same, &result), "Comm_compare");
  t.out("compare reversed vs tied: {}", compare_name(result));
  t.check_rc(api::Comm_free(&reversed), "Comm_free");
  t.check_rc(api::Comm_free(&same), "Comm_free");
}

// Receives are posted on all three before the sends; a message matched on
// the wrong communicator shows up as a wrong payload or a missing message.
void isolation(Context& t, api::Comm dup) {
  api::Comm half = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), t.rank() % 2, t.rank(), &half), "Comm_split");
  int half_rank = -1;
  int half_size = 0;
  t.check_rc(api::Comm_rank(half, &half_rank), "Comm_rank");
  t.check_rc(api::Comm_size(half, &half_size), "Comm_size");
  const api::Comm comms[3] = {t.comm(), dup, half};
  const int sizes[3] = {t.size(), t.size(), half_size};
  const int ranks[3] = {t.rank(), t.rank(), half_rank};
  constexpr int tag = 3;
  int in[3] = {-1, -1, -1};
  api::Request requests[6];
  for (int c = 0; c < 3; ++c)
    t.check_rc(api::Irecv(&in[c], 1, MPI_INT, MPI_ANY_SOURCE, tag, comms[c], &requests[c]),
               "Irecv");
  t.barrier();  // every receive is posted before any send
  int out[3];
  for (int c = 0; c < 3; ++c) {
    out[c] = 100 * (c + 1) + ranks[c];
    const int next = (ranks[c] + 1) % sizes[c];
    t.check_rc(api::Isend(&out[c], 1, MPI_INT, next, tag, comms[c], &requests[3 + c]), "Isend");
  }
  api::Status st[6];
  t.check_rc(api::Waitall(6, requests, st), "Waitall");
  const char* names[3] = {"test comm", "dup", "half"};
  for (int c = 0; c < 3; ++c) {
    const int previous = (ranks[c] + sizes[c] - 1) % sizes[c];
    t.expect_eq(in[c], 100 * (c + 1) + previous, fmt::format("payload on {}", names[c]));
    t.expect_eq(st[c].MPI_SOURCE, previous, fmt::format("MPI_SOURCE on {}", names[c]));
    t.out("isolation {}: got {} from rank {}", names[c], in[c], st[c].MPI_SOURCE);
  }
  t.check_rc(api::Comm_free(&half), "Comm_free");
}

// libep keeps a freed communicator's MPI communicators and builds the next
// communicator over the same processes on them (libep/src/comm/build.hpp):
// communicators made and freed in turn, beside one that lives through every
// round, must each keep their own traffic.
void recycled(Context& t, api::Comm dup) {
  constexpr int tag = 9;
  for (int round = 0; round < 6; ++round) {
    api::Comm fresh = api::COMM_NULL;
    if (round % 2 == 0) {
      t.check_rc(api::Comm_dup(t.comm(), &fresh), "Comm_dup");
    } else {
      t.check_rc(api::Comm_split(dup, 0, t.rank(), &fresh), "Comm_split");
    }
    const api::Comm comms[2] = {dup, fresh};
    int in[2] = {-1, -1};
    api::Request requests[4];
    for (int c = 0; c < 2; ++c)
      t.check_rc(api::Irecv(&in[c], 1, MPI_INT, MPI_ANY_SOURCE, tag, comms[c], &requests[c]),
                 "Irecv");
    t.barrier();  // every receive is posted before any send
    int out[2];
    const int next = (t.rank() + 1) % t.size();
    const int previous = (t.rank() + t.size() - 1) % t.size();
    for (int c = 0; c < 2; ++c) {
      out[c] = 1000 * round + 10 * c + t.rank();
      t.check_rc(api::Isend(&out[c], 1, MPI_INT, next, tag, comms[c], &requests[2 + c]), "Isend");
    }
    api::Status st[4];
    t.check_rc(api::Waitall(4, requests, st), "Waitall");
    for (int c = 0; c < 2; ++c) {
      t.expect_eq(in[c], 1000 * round + 10 * c + previous,
                  fmt::format("round {}: payload on {}", round, c == 0 ? "dup" : "fresh"));
    }
    t.out("recycled round {}: got {} and {}", round, in[0], in[1]);
    t.check_rc(api::Comm_free(&fresh), "Comm_free");
  }
}

}  // namespace

void eptest::run(Context& t) {
  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
  int rank = -1;
  int size = 0;
  t.check_rc(api::Comm_rank(dup, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(dup, &size), "Comm_size");
  t.expect_eq(rank, t.rank(), "rank in the duplicate");
  t.expect_eq(size, t.size(), "size of the duplicate");
  int inter = -1;
  t.check_rc(api::Comm_test_inter(dup, &inter), "Comm_test_inter");
  t.out("dup: rank {} of {}, inter {}", rank, size, inter);
  compare_all(t, dup);
  isolation(t, dup);
  recycled(t, dup);
  // A duplicate of a duplicate carries traffic too.
  api::Comm dup2 = api::COMM_NULL;
  t.check_rc(api::Comm_dup(dup, &dup2), "Comm_dup");
  ring_check(t, dup2, t.rank(), 4, "dup of dup");
  t.check_rc(api::Comm_free(&dup2), "Comm_free");
  t.check_rc(api::Comm_free(&dup), "Comm_free");
  t.check(dup == api::COMM_NULL, "Comm_free leaves COMM_NULL");
}
