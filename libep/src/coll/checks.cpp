#include "coll/checks.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "coll/mpi_step.hpp"
#include "p2p/checks.hpp"
#include "ranks/block_layout.hpp"
#include "team/meeting.hpp"

namespace ep::detail {

const char* name_of(CollId id) {
  static constexpr std::array kNames{"Barrier",        "Bcast",
                                     "Gather",         "Gatherv",
                                     "Scatter",        "Scatterv",
                                     "Allgather",      "Allgatherv",
                                     "Alltoall",       "Alltoallv",
                                     "Reduce",         "Allreduce",
                                     "Reduce_scatter", "Reduce_scatter_block",
                                     "Scan",           "Exscan",
                                     "Alltoallw"};
  return kNames[static_cast<std::size_t>(id)];
}

int check_root(Endpoint* e, int root, const char* function) {
  const CommShared& shared = *e->shared;
  if (shared.inter) {
    const int remote = shared.peer_count(*e);
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < remote))
      return MPI_SUCCESS;
    return raise(e, MPI_ERR_ROOT, function,
                 "invalid root {}: neither MPI_ROOT, MPI_PROC_NULL nor one of the {} ranks of the "
                 "remote group",
                 root, remote);
  }
  const int size = shared.map.size();
  if (root >= 0 && root < size) return MPI_SUCCESS;
  return raise(e, MPI_ERR_ROOT, function, "invalid root {}: the communicator has {} endpoints",
               root, size);
}

int check_count(Endpoint* e, int count, const char* what, const char* function) {
  if (count >= 0) return MPI_SUCCESS;
  return raise(e, MPI_ERR_COUNT, function, "negative {} {}", what, count);
}

int check_type(Endpoint* e, MPI_Datatype type, TypeLayout* layout, const char* what,
               const char* function) {
  if (type == MPI_DATATYPE_NULL) {
    return raise(e, MPI_ERR_TYPE, function, "{} is MPI_DATATYPE_NULL", what);
  }
  if (query_layout(type, layout) != MPI_SUCCESS) {
    return raise(e, MPI_ERR_TYPE, function, "{} is not a valid datatype", what);
  }
  if (!committed(type)) {
    return raise(e, MPI_ERR_TYPE, function, "{} is not committed (MPI_Type_commit)", what);
  }
  return MPI_SUCCESS;
}

int check_op(Endpoint* e, MPI_Op op, bool* commutative, const char* function) {
  if (op == MPI_OP_NULL) return raise(e, MPI_ERR_OP, function, "the op is MPI_OP_NULL");
  int flag = 0;
  if (MPI_Op_commutative(op, &flag) != MPI_SUCCESS) {
    return raise(e, MPI_ERR_OP, function, "the op is not a valid MPI_Op");
  }
  *commutative = flag != 0;
  return MPI_SUCCESS;
}

bool local_count(int* count, const char* what, LocalError& err) {
  if (*count >= 0) return true;
  err.note(MPI_ERR_COUNT, "negative {} {}", what, *count);
  *count = 0;
  return false;
}

bool local_type(MPI_Datatype* type, TypeLayout* layout, const char* what, LocalError& err) {
  const bool valid = *type != MPI_DATATYPE_NULL && query_layout(*type, layout) == MPI_SUCCESS;
  if (valid && committed(*type)) return true;
  err.note(MPI_ERR_TYPE, "{} is {}", what,
           *type == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
           : valid                    ? "not committed (MPI_Type_commit)"
                                      : "not a valid datatype");
  *type = MPI_BYTE;
  *layout = {1, 1, 0, 1};  // MPI_BYTE's, without asking MPI
  return false;
}

bool check_counts(const int* counts, int n, const char* what, LocalError& err) {
  if (counts == nullptr && n > 0) return err.note(MPI_ERR_ARG, "{} is a null pointer", what);
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0)
      return err.note(MPI_ERR_COUNT, "{}[{}] is negative ({})", what, i, counts[i]);
  }
  return true;
}

int LocalError::finish(const Endpoint* e, const char* function, int rc, const char* step) const {
  if (class_ != MPI_SUCCESS) return raise(e, class_, function, why_);
  return check_mpi(rc, e, function, step);
}

namespace {

bool checking_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("EP_CHECK_COLLECTIVES");
    return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

// A call as the endpoints compare it: the datatype by its size.
struct Called {
  CollId id = CollId::Barrier;
  int root = -1;
  long long count = 0;
  int type_size = 0;
};

Called called(const Signature& s, const Endpoint& e) {
  const bool at_root = s.root_in_place && e.rank == s.root;
  long long count = at_root ? s.root_count : s.count;
  const MPI_Datatype type = at_root ? s.root_type : s.type;
  if (s.count_per_rank != nullptr) {
    count = std::accumulate(s.count_per_rank, s.count_per_rank + e.shared->map.size(), 0LL);
  }
  int size = 0;
  // A null or invalid datatype counts as size 0 here; the checks of the
  // agreed arguments that follow report it.
  if (count >= 0 && type != MPI_DATATYPE_NULL && MPI_Type_size(type, &size) != MPI_SUCCESS)
    size = 0;
  return {s.id, s.root, count, size};
}

// A call as it travels between processes.
using Wire = std::array<long long, 4>;

Wire to_wire(const Called& c) {
  return {static_cast<long long>(c.id), c.root, c.count, c.type_size};
}
Called from_wire(const Wire& w) {
  return {static_cast<CollId>(w[0]), static_cast<int>(w[1]), w[2], static_cast<int>(w[3])};
}

bool same_call(const Called& a, const Called& b) {
  if (a.id != b.id || a.root != b.root) return false;
  if (a.count < 0 || b.count < 0) return true;
  return a.count * a.type_size == b.count * b.type_size;
}

std::string describe_call(const Called& c) {
  std::string text = std::string(name_of(c.id)) + "(";
  if (c.root >= 0) text += fmt::format("root {}, ", c.root);
  if (c.count >= 0) {
    text += fmt::format("count {}, datatype size {}", c.count, c.type_size);
  } else {
    text += "counts per rank";
  }
  return text + ")";
}

// What the endpoints publish; the leader adds every rank's signature.
struct CheckPost {
  Called mine;
  int rc = MPI_SUCCESS;
  std::vector<Called> by_rank;
};

// The leader's part: every rank's signature, from every process.
int gather_signatures(const CommShared& shared, Meeting& m, std::vector<Called>* by_rank) {
  const RankMap& map = shared.map;
  std::vector<Wire> local;
  for (int l = 0; l < m.size(); ++l) local.push_back(to_wire(m.args<CheckPost>(l).mine));
  const ProcessOrder order(map);
  std::vector<Wire> all(static_cast<std::size_t>(map.size()));
  int rc = MPI_SUCCESS;
  if (m.multi_process()) {
    constexpr int kWords = static_cast<int>(std::tuple_size_v<Wire>);
    std::vector<int> counts;
    std::vector<int> displs;
    for (int p = 0; p < shared.mpi_size; ++p) {
      counts.push_back(kWords * map.count_on(p));
      displs.push_back(kWords * order.first(p));
    }
    MPI_Request request = MPI_REQUEST_NULL;
    rc = complete(
        MPI_Iallgatherv(local.data(), kWords * m.size(), MPI_LONG_LONG, all.data(), counts.data(),
                        displs.data(), MPI_LONG_LONG, shared.mpi_comm, &request),
        &request);
  } else {
    all = local;
  }
  by_rank->resize(all.size());
  for (int r = 0; r < map.size(); ++r) {
    (*by_rank)[static_cast<std::size_t>(r)] =
        from_wire(all[static_cast<std::size_t>(order.slot_of(r))]);
  }
  return rc;
}

}  // namespace

int check_signature(Endpoint* e, const Signature& mine, const char* function) {
  if (!checking_enabled() || e->shared->inter) return MPI_SUCCESS;
  CheckPost post;
  post.mine = called(mine, *e);
  Meeting m(e, &post);
  const std::vector<Called>* by_rank = nullptr;
  int rc = MPI_SUCCESS;
  if (m.leader()) {
    m.wait_all_posted();
    rc = gather_signatures(m.shared(), m, &post.by_rank);
    post.rc = rc;
    m.signal(1, rc);
    by_rank = &post.by_rank;
  } else {
    rc = m.wait(0, 1);
    by_rank = &m.args<CheckPost>(0).by_rank;
  }
  std::string verdict;
  if (rc == MPI_SUCCESS) {
    for (std::size_t r = 1; r < by_rank->size(); ++r) {
      if (same_call((*by_rank)[r], (*by_rank)[0])) continue;
      verdict = fmt::format("EP_CHECK_COLLECTIVES: rank {} called {}, but rank 0 called {}", r,
                            describe_call((*by_rank)[r]), describe_call((*by_rank)[0]));
      break;
    }
  }
  // The leader's table lives on its stack until everyone has read it.
  if (m.leader()) {
    m.wait_readers(m.size() - 1);
  } else {
    m.read_done(0);
  }
  if (rc != MPI_SUCCESS) return check_mpi(rc, e, function, "the EP_CHECK_COLLECTIVES exchange");
  if (!verdict.empty()) return raise(e, MPI_ERR_OTHER, function, verdict);
  return MPI_SUCCESS;
}

}  // namespace ep::detail
