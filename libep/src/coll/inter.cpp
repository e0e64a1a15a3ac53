#include "coll/inter.hpp"

#include <cstdint>
#include <vector>

#include "coll/checks.hpp"
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

// The packed data of a buffer. Returns an MPI error code.
int packed(const ConstTyped& data, std::vector<std::byte>* out) {
  out->resize(static_cast<std::size_t>(data.bytes()));
  return pack(data, out->data());
}

// MPI_IN_PLACE has no meaning on an inter-communicator: noted as this
// endpoint's error, and replaced by a zeroed stand-in of `count` elements so
// that the endpoint still takes part.
template <class Void>
void refuse_in_place(Void*& buf, int count, MPI_Datatype type, const TypeLayout& layout,
                     const char* what, LocalError& err, TypedScratch& stand_in) {
  if (buf != MPI_IN_PLACE) return;
  err.note(MPI_ERR_BUFFER, "{} may not be MPI_IN_PLACE on an inter-communicator", what);
  stand_in = TypedScratch(count, type, layout, TypedScratch::Fill::zero);
  buf = stand_in.base();
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

int inter_barrier(const Entered& in) {
  LocalTeam& team = *in.e->shared->team;
  team.sync();
  int rc = MPI_SUCCESS;
  if (in.e->local == 0) {
    rc = MPI_Barrier(in.e->shared->mpi_comm);
    team.slot(0) = &rc;
  }
  team.sync();
  const int shared_rc = team.peer<int>(0);
  team.sync();
  return check_mpi(shared_rc, in.e, in.function, "MPI_Barrier");
}

int inter_bcast(const Entered& in, const Typed& given, int root) {
  Endpoint* e = in.e;
  const CommShared& shared = *e->shared;
  LocalTeam& team = *shared.team;
  LocalError err;
  TypedScratch stand_in;
  Typed data = given;
  refuse_in_place(data.buf, data.count, data.type, data.layout, "the buffer", err, stand_in);
  struct Arrival {
    Typed data;
    int root;
  };
  const Arrival mine{data, root};
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
      if (a.root != MPI_PROC_NULL) known[1] = a.data.bytes();
    }
    long long agreed[2] = {-1, -1};
    // The broadcast runs even when packing failed, so that no process is
    // left waiting in it.
    int pack_rc = MPI_SUCCESS;
    int rc = MPI_Allreduce(known, agreed, 2, MPI_LONG_LONG, MPI_MAX, shared.mpi_comm);
    if (rc == MPI_SUCCESS) {
      if (root_arrival) {
        pack_rc = packed(root_arrival->data, &result.data);
      } else {
        result.data.resize(static_cast<std::size_t>(agreed[1]));
      }
      rc = MPI_Bcast(result.data.data(), static_cast<int>(agreed[1]), MPI_BYTE,
                     static_cast<int>(agreed[0]), shared.mpi_comm);
    }
    keep_first_error(&rc, pack_rc);
    result.rc = rc;
    team.slot(0) = &result;
  }
  team.sync();
  const Result& r = team.peer<Result>(0);
  int rc = r.rc;
  if (rc == MPI_SUCCESS && root >= 0) {
    rc = unpack(r.data.data(), static_cast<std::int64_t>(r.data.size()), data);
  }
  team.sync();
  return err.finish(e, in.function, rc, "the inter-communicator broadcast");
}

int inter_allgather(const Entered& in, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  Endpoint* e = in.e;
  const CommShared& shared = *e->shared;
  const auto& remote = shared.members(1 - e->group);
  LocalError err;
  TypeLayout send_layout;
  TypeLayout recv_layout;
  local_count(&sendcount, "sendcount", err);
  local_type(&sendtype, &send_layout, "sendtype", err);
  local_count(&recvcount, "recvcount", err);
  local_type(&recvtype, &recv_layout, "recvtype", err);
  TypedScratch send_stand_in;
  TypedScratch recv_stand_in;
  refuse_in_place(sendbuf, sendcount, sendtype, send_layout, "sendbuf", err, send_stand_in);
  const auto blocks = static_cast<int>(remote.size());
  refuse_in_place(recvbuf, blocks * recvcount, recvtype, recv_layout, "recvbuf", err,
                  recv_stand_in);

  Contribution mine;
  // A failed pack still takes part, so that nobody is left waiting.
  const int pack_rc = packed({sendbuf, sendcount, sendtype, send_layout}, &mine.data);
  Gathered storage;
  const Gathered* gathered = nullptr;
  int rc = gather_contributions(e, mine, storage, &gathered);
  if (rc == MPI_SUCCESS) {
    const Typed all{recvbuf, 0, recvtype, recv_layout};
    for (int q = 0; q < blocks && rc == MPI_SUCCESS; ++q) {
      const auto u = static_cast<std::size_t>(remote[static_cast<std::size_t>(q)]);
      rc = unpack(gathered->bytes.data() + gathered->offset[u], gathered->length[u],
                  all.slice(std::int64_t{q} * recvcount, recvcount));
    }
  }
  shared.team->sync();
  keep_first_error(&rc, pack_rc);
  return err.finish(e, in.function, rc, "the inter-communicator allgather");
}

int inter_allreduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype type, MPI_Op op) {
  Endpoint* e = in.e;
  const CommShared& shared = *e->shared;
  LocalError err;
  TypedScratch send_stand_in;
  TypedScratch recv_stand_in;
  refuse_in_place(sendbuf, count, type, in.layout, "sendbuf", err, send_stand_in);
  refuse_in_place(recvbuf, count, type, in.layout, "recvbuf", err, recv_stand_in);

  Contribution mine;
  // A failed pack still takes part, so that nobody is left waiting.
  const int pack_rc = packed({sendbuf, count, type, in.layout}, &mine.data);
  Gathered storage;
  const Gathered* gathered = nullptr;
  int rc = gather_contributions(e, mine, storage, &gathered);
  if (rc == MPI_SUCCESS) {
    const Typed into{recvbuf, count, type, in.layout};
    const auto& remote = shared.members(1 - e->group);
    // Unpack each contribution into the type's own layout, then fold from
    // the highest rank down: acc = c[q] op acc keeps rank order for
    // non-commutative ops.
    const TypedScratch scratch(count, type, in.layout);
    for (std::size_t i = remote.size(); i-- > 0 && rc == MPI_SUCCESS;) {
      const auto u = static_cast<std::size_t>(remote[i]);
      const std::byte* data = gathered->bytes.data() + gathered->offset[u];
      if (i + 1 == remote.size()) {
        rc = unpack(data, gathered->length[u], into);
      } else {
        rc = unpack(data, gathered->length[u], scratch.typed());
        if (rc == MPI_SUCCESS) rc = MPI_Reduce_local(scratch.base(), recvbuf, count, type, op);
      }
    }
  }
  shared.team->sync();
  keep_first_error(&rc, pack_rc);
  return err.finish(e, in.function, rc, "the inter-communicator allreduce");
}

}  // namespace ep::detail
