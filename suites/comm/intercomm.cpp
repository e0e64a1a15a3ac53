// Intercomm_create over every placement an MPI program can produce, point-to-
// point across, and Intercomm_merge in both orders.
//
// Each scheme splits the test communicator into two groups and names a
// leader in each. Over the registered layouts they give every placement:
//
//   scheme     groups             leaders          2,2 (ranks 01|23)     1,3,2 (0|123|45)
//   halves     rank < size/2      rank 0 of each   disjoint processes    process 1 hosts both
//   alternate  rank % 2           last of each     both groups in every  both groups in
//                                                  process; both leaders process 2; leaders
//                                                  in process 1          5 and 4 in one process
//   last-one   rank == size-1     middle / 0       process 1 hosts both  ...
//   reversed   rank % 2, key -r   rank 1 of each   leaders not rank 0 of their group's order
//
// and with layout 3 (one process) everything, leaders included, shares one
// process. The body is the same for plain MPI, so the endpoint run must
// print the same lines.
#include <algorithm>

#include "comm_test.hpp"

namespace {

using namespace eptest;
using namespace eptest::comm;

struct Scheme {
  const char* name;
  int (*group)(int rank, int size);
  int (*key)(int rank);
  int (*leader)(int group_size, int group);  // a rank in the group
};

const Scheme schemes[] = {
    {"halves", [](int r, int n) { return r < n / 2 ? 0 : 1; }, [](int r) { return r; },
     [](int, int) { return 0; }},
    {"alternate", [](int r, int) { return r % 2; }, [](int r) { return r; },
     [](int n, int) { return n - 1; }},
    {"last-one", [](int r, int n) { return r == n - 1 ? 1 : 0; }, [](int r) { return r; },
     [](int n, int g) { return g == 0 ? n / 2 : 0; }},
    {"reversed", [](int r, int) { return r % 2; }, [](int r) { return -r; },
     [](int n, int) { return n > 1 ? 1 : 0; }},
};

// Both groups of a scheme over `size` ranks, each in its split order.
struct Groups {
  std::vector<int> members[2];  // old ranks by rank in the group
  int leaders[2] = {0, 0};      // ranks in the group
};

Groups groups_of(const Scheme& s, int size) {
  std::vector<int> colors;
  std::vector<int> keys;
  for (int r = 0; r < size; ++r) {
    colors.push_back(s.group(r, size));
    keys.push_back(s.key(r));
  }
  Groups g;
  for (int i = 0; i < 2; ++i) {
    g.members[i] = split_members(colors, keys, i);
    g.leaders[i] = s.leader(static_cast<int>(g.members[i].size()), i);
  }
  return g;
}

// Every rank sends its (group, rank) to remote rank (rank % remote size) and
// receives with MPI_ANY_SOURCE what the remote group sends it; the status
// source must be a remote rank, the one in the payload.
void p2p_across(Context& t, api::Comm inter, int group, int rank, int size, int remote,
                const std::string& where) {
  constexpr int tag = 9;
  const int out[2] = {group, rank};
  api::Request send = api::REQUEST_NULL;
  t.check_rc(api::Isend(out, 2, MPI_INT, rank % remote, tag, inter, &send), "Isend");
  std::vector<int> sources;
  for (int s = 0; s < remote; ++s) {
    if (s % size != rank) continue;
    int in[2] = {-1, -1};
    api::Status st{};
    t.check_rc(api::Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st), "Recv");
    t.expect_eq(in[0], 1 - group, where + ": sender's group");
    t.expect_eq(in[1], st.MPI_SOURCE, where + ": MPI_SOURCE is the sender's remote rank");
    sources.push_back(st.MPI_SOURCE);
  }
  t.check_rc(api::Wait(&send, api::STATUS_IGNORE), "Wait");
  std::sort(sources.begin(), sources.end());
  t.out("{}: received from remote ranks {}", where, list(sources));
}

// Merges with the given high flags and checks the order: low group first,
// each group in its rank order; equal flags leave the order to MPI.
void merge(Context& t, api::Comm inter, const Groups& g, int group, int rank, int high_of[2],
           const std::string& where) {
  api::Comm merged = api::COMM_NULL;
  if (!t.check_rc(api::Intercomm_merge(inter, high_of[group], &merged), "Intercomm_merge")) return;
  int new_rank = -1;
  int new_size = 0;
  int is_inter = -1;
  t.check_rc(api::Comm_rank(merged, &new_rank), "Comm_rank");
  t.check_rc(api::Comm_size(merged, &new_size), "Comm_size");
  t.check_rc(api::Comm_test_inter(merged, &is_inter), "Comm_test_inter");
  t.expect_eq(is_inter, 0, where + ": a merge is an intra-communicator");
  const int other_size = static_cast<int>(g.members[1 - group].size());
  const std::string name = fmt::format("{} merge high {}/{}", where, high_of[0], high_of[1]);
  if (high_of[0] == high_of[1]) {
    // Either group first, as a block, in its rank order.
    t.check(new_rank == rank || new_rank == other_size + rank,
            name + ": a group is not a block in its rank order");
    t.out("{}: size {}", name, new_size);
  } else {
    const bool first = high_of[group] == 0;
    t.expect_eq(new_rank, first ? rank : other_size + rank, name + ": low group first");
    const std::vector<int> ids = exchange_ids(t, merged, t.rank(), 13);
    t.out("{}: rank {} of {}, members {}", name, new_rank, new_size, list(ids));
  }
  ring_check(t, merged, t.rank(), 14, name);
  t.check_rc(api::Comm_free(&merged), "Comm_free");
}

void run_scheme(Context& t, int index) {
  const Scheme& s = schemes[index];
  const Groups g = groups_of(s, t.size());
  const std::string where = fmt::format("{}", s.name);
  if (g.members[0].empty() || g.members[1].empty()) {
    t.out("{}: one group would be empty with {} ranks; skipped", where, t.size());
    return;
  }
  const int group = s.group(t.rank(), t.size());
  api::Comm local = api::COMM_NULL;
  t.check_rc(api::Comm_split(t.comm(), group, s.key(t.rank()), &local), "Comm_split");
  // The remote leader as a rank of the peer communicator (the test's own).
  const int remote_leader = g.members[1 - group][static_cast<std::size_t>(g.leaders[1 - group])];
  api::Comm inter = api::COMM_NULL;
  if (!t.check_rc(api::Intercomm_create(local, g.leaders[group], t.comm(), remote_leader,
                                        30 + index, &inter),
                  "Intercomm_create"))
    return;
  int rank = -1;
  int size = 0;
  int remote = 0;
  int is_inter = 0;
  t.check_rc(api::Comm_rank(inter, &rank), "Comm_rank");
  t.check_rc(api::Comm_size(inter, &size), "Comm_size");
  t.check_rc(api::Comm_remote_size(inter, &remote), "Comm_remote_size");
  t.check_rc(api::Comm_test_inter(inter, &is_inter), "Comm_test_inter");
  const auto& mine = g.members[group];
  t.expect_eq(rank, static_cast<int>(std::find(mine.begin(), mine.end(), t.rank()) - mine.begin()),
              where + ": rank in the group");
  t.out("{}: group {} rank {} of {}, remote size {}, inter {}, leaders {}/{} (peer ranks {}/{})",
        where, group, rank, size, remote, is_inter, g.leaders[0], g.leaders[1],
        g.members[0][static_cast<std::size_t>(g.leaders[0])],
        g.members[1][static_cast<std::size_t>(g.leaders[1])]);
  p2p_across(t, inter, group, rank, size, remote, where);
  const std::vector<int> remote_ids = exchange_ids(t, inter, t.rank(), 12);
  t.out("{}: remote group by rank {}", where, list(remote_ids));
  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(inter, &dup), "Comm_dup");
  int result = -1;
  t.check_rc(api::Comm_compare(inter, dup, &result), "Comm_compare");
  t.out("{}: compare with its dup {}", where, compare_name(result));
  for (int order = 0; order < 3; ++order) {
    int high_of[2] = {order == 1 ? 1 : 0, order == 0 ? 1 : 0};  // 0/1, 1/0, then 0/0
    merge(t, order == 2 ? dup : inter, g, group, rank, high_of, where);
  }
  t.check_rc(api::Comm_free(&dup), "Comm_free");
  t.check_rc(api::Comm_free(&inter), "Comm_free");
  t.check_rc(api::Comm_free(&local), "Comm_free");
}

}  // namespace

void eptest::run(Context& t) {
  const int only = t.params().get_int("scheme", -1);  // --scheme=N narrows a failure down
  for (int i = 0; i < static_cast<int>(std::size(schemes)); ++i)
    if (only < 0 || only == i) run_scheme(t, i);
}
