#include "coll/inter.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "base/datatype.hpp"
#include "object/error.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

namespace {

// Each endpoint's packed contribution, gathered to every process, indexed
// by union rank. Run by the process's leader; `mine[l]` is local endpoint
// l's packed data.
struct Gathered {
  int rc = MPI_SUCCESS;
  std::vector<std::byte> bytes;
  std::vector<std::int64_t> offset;  // by union rank
  std::vector<std::int64_t> length;  // by union rank
};

int gather_all(const CommShared& shared, const std::vector<std::vector<std::byte>>& mine,
               Gathered* out) {
  // Per union rank lengths first (one int each), then the bytes.
  const int n = shared.map.size();
  std::vector<int> process_counts(static_cast<std::size_t>(shared.mpi_size));
  std::vector<int> process_displs(process_counts.size());
  int total = 0;
  for (int p = 0; p < shared.mpi_size; ++p) {
    process_counts[static_cast<std::size_t>(p)] = shared.map.count_on(p);
    process_displs[static_cast<std::size_t>(p)] = total;
    total += shared.map.count_on(p);
  }
  std::vector<int> my_lengths;
  for (const auto& m : mine) my_lengths.push_back(static_cast<int>(m.size()));
  std::vector<int> lengths(static_cast<std::size_t>(total));
  int rc = MPI_Allgatherv(my_lengths.data(), static_cast<int>(my_lengths.size()), MPI_INT,
                          lengths.data(), process_counts.data(), process_displs.data(), MPI_INT,
                          shared.mpi_comm);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> byte_counts(process_counts.size(), 0);
  std::vector<int> byte_displs(process_counts.size(), 0);
  out->offset.assign(static_cast<std::size_t>(n), 0);
  out->length.assign(static_cast<std::size_t>(n), 0);
  std::int64_t at = 0;
  for (int p = 0; p < shared.mpi_size; ++p) {
    byte_displs[static_cast<std::size_t>(p)] = static_cast<int>(at);
    for (int l = 0; l < shared.map.count_on(p); ++l) {
      const int len =
          lengths[static_cast<std::size_t>(process_displs[static_cast<std::size_t>(p)] + l)];
      const auto u = static_cast<std::size_t>(shared.map.rank_of(p, l));
      out->offset[u] = at;
      out->length[u] = len;
      at += len;
      byte_counts[static_cast<std::size_t>(p)] += len;
    }
  }
  std::vector<std::byte> flat;
  for (const auto& m : mine) flat.insert(flat.end(), m.begin(), m.end());
  out->bytes.resize(static_cast<std::size_t>(at));
  return MPI_Allgatherv(flat.data(), static_cast<int>(flat.size()), MPI_BYTE, out->bytes.data(),
                        byte_counts.data(), byte_displs.data(), MPI_BYTE, shared.mpi_comm);
}

std::vector<std::byte> packed(const void* buf, int count, MPI_Datatype type) {
  TypeLayout layout;
  query_layout(type, &layout);
  const ConstTyped data{buf, count, type, layout};
  std::vector<std::byte> out(static_cast<std::size_t>(data.bytes()));
  pack(data, out.data());
  return out;
}

// What each endpoint brings to a gathering collective.
struct Contribution {
  std::vector<std::byte> data;
};

// Meets the team and gathers every endpoint's contribution everywhere. The
// leader gathers into its `storage`; every endpoint gets a pointer to the
// leader's, valid until the caller's final team sync (which the caller must
// make before `storage` goes away).
int gather_contributions(Endpoint* e, const Contribution& mine, Gathered& storage,
                         const Gathered** gathered) {
  const CommShared& shared = *e->shared;
  LocalTeam& team = *shared.team;
  team.slot(e->local) = &mine;
  team.sync();
  int rc = MPI_SUCCESS;
  if (e->local == 0) {
    std::vector<std::vector<std::byte>> all_mine;
    for (int l = 0; l < team.size(); ++l) all_mine.push_back(team.peer<Contribution>(l).data);
    rc = gather_all(shared, all_mine, &storage);
    storage.rc = rc;
    team.slot(0) = &storage;
  }
  team.sync();
  *gathered = &team.peer<Gathered>(0);
  return (*gathered)->rc;
}

}  // namespace

int inter_barrier(Endpoint* e) {
  LocalTeam& team = *e->shared->team;
  team.sync();
  int rc = MPI_SUCCESS;
  if (e->local == 0) {
    rc = MPI_Barrier(e->shared->mpi_comm);
    team.slot(0) = &rc;
  }
  team.sync();
  const int shared_rc = team.peer<int>(0);
  team.sync();
  return check_mpi(shared_rc, e, "Barrier", "MPI_Barrier");
}

int inter_bcast(Endpoint* e, void* buf, int count, MPI_Datatype type, int root) {
  const CommShared& shared = *e->shared;
  LocalTeam& team = *shared.team;
  struct Arrival {
    void* buf;
    int count;
    MPI_Datatype type;
    int root;
  };
  const Arrival mine{buf, count, type, root};
  team.slot(e->local) = &mine;
  team.sync();
  struct Result {
    int rc = MPI_SUCCESS;
    std::vector<std::byte> data;
  };
  Result result;
  if (e->local == 0) {
    // Which carrier rank holds the root, and how many bytes: known to the
    // root's process and to every process of the receiving group.
    long long known[2] = {-1, -1};
    const Arrival* root_arrival = nullptr;
    for (int l = 0; l < team.size(); ++l) {
      const Arrival& a = team.peer<Arrival>(l);
      const Endpoint& who = *shared.endpoints[static_cast<std::size_t>(l)];
      if (a.root == MPI_ROOT) {
        root_arrival = &a;
        known[0] = shared.mpi_rank;
      } else if (a.root >= 0) {
        const int u = shared.members(1 - who.group)[static_cast<std::size_t>(a.root)];
        known[0] = shared.map.at(u).mpi_rank;
      }
      if (a.root != MPI_PROC_NULL) {
        TypeLayout layout;
        query_layout(a.type, &layout);
        known[1] = std::int64_t{a.count} * layout.size;
      }
    }
    long long agreed[2] = {-1, -1};
    result.rc = MPI_Allreduce(known, agreed, 2, MPI_LONG_LONG, MPI_MAX, shared.mpi_comm);
    if (result.rc == MPI_SUCCESS) {
      result.data = root_arrival
                        ? packed(root_arrival->buf, root_arrival->count, root_arrival->type)
                        : std::vector<std::byte>(static_cast<std::size_t>(agreed[1]));
      result.rc = MPI_Bcast(result.data.data(), static_cast<int>(agreed[1]), MPI_BYTE,
                            static_cast<int>(agreed[0]), shared.mpi_comm);
    }
    team.slot(0) = &result;
  }
  team.sync();
  const Result& r = team.peer<Result>(0);
  const int rc = r.rc;
  if (rc == MPI_SUCCESS && root >= 0) {
    TypeLayout layout;
    query_layout(type, &layout);
    unpack(r.data.data(), static_cast<std::int64_t>(r.data.size()), {buf, count, type, layout});
  }
  team.sync();
  return check_mpi(rc, e, "Bcast", "the inter-communicator broadcast");
}

int inter_allgather(Endpoint* e, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  const CommShared& shared = *e->shared;
  const Contribution mine{packed(sendbuf, sendcount, sendtype)};
  Gathered storage;
  const Gathered* gathered = nullptr;
  const int rc = gather_contributions(e, mine, storage, &gathered);
  if (rc == MPI_SUCCESS) {
    TypeLayout layout;
    query_layout(recvtype, &layout);
    const auto& remote = shared.members(1 - e->group);
    for (std::size_t q = 0; q < remote.size(); ++q) {
      auto* at = static_cast<std::byte*>(recvbuf) +
                 static_cast<std::int64_t>(q) * recvcount * layout.extent;
      const auto u = static_cast<std::size_t>(remote[q]);
      unpack(gathered->bytes.data() + gathered->offset[u], gathered->length[u],
             {at, recvcount, recvtype, layout});
    }
  }
  shared.team->sync();
  return check_mpi(rc, e, "Allgather", "the inter-communicator allgather");
}

int inter_allreduce(Endpoint* e, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op) {
  const CommShared& shared = *e->shared;
  const Contribution mine{packed(sendbuf, count, type)};
  Gathered storage;
  const Gathered* gathered = nullptr;
  const int rc = gather_contributions(e, mine, storage, &gathered);
  if (rc == MPI_SUCCESS) {
    TypeLayout layout;
    query_layout(type, &layout);
    const Typed into{recvbuf, count, type, layout};
    const auto& remote = shared.members(1 - e->group);
    // Unpack each contribution into the type's own layout, then fold from
    // the highest rank down: acc = c[q] op acc keeps rank order for
    // non-commutative ops.
    const TypedScratch scratch(count, type, layout);
    for (std::size_t i = remote.size(); i-- > 0;) {
      const auto u = static_cast<std::size_t>(remote[i]);
      const std::byte* data = gathered->bytes.data() + gathered->offset[u];
      if (i + 1 == remote.size()) {
        unpack(data, gathered->length[u], into);
      } else {
        unpack(data, gathered->length[u], {scratch.base(), count, type, layout});
        MPI_Reduce_local(scratch.base(), recvbuf, count, type, op);
      }
    }
  }
  shared.team->sync();
  return check_mpi(rc, e, "Allreduce", "the inter-communicator allreduce");
}

}  // namespace ep::detail
