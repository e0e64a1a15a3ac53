#include "coll/inter.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

#include "coll/checks.hpp"
#include "coll/gathered.hpp"
#include "coll/movement.hpp"
#include "object/error.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

namespace {

// Each endpoint's packed contribution, gathered to every process by the
// leader, and the leader's MPI code.
struct GatheredBytes : Gathered {
  int rc = MPI_SUCCESS;
  std::vector<std::byte> bytes;
};

// Run by the process's leader; `mine[l]` is local endpoint l's packed data.
int gather_all(const CommShared& shared, const std::vector<std::vector<std::byte>>& mine,
               GatheredBytes* out) {
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
  std::vector<std::int64_t> offset(static_cast<std::size_t>(n), 0);
  std::int64_t at = 0;
  for (int p = 0; p < shared.mpi_size; ++p) {
    byte_displs[static_cast<std::size_t>(p)] = static_cast<int>(at);
    for (int l = 0; l < shared.map.count_on(p); ++l) {
      const int len =
          lengths[static_cast<std::size_t>(process_displs[static_cast<std::size_t>(p)] + l)];
      const auto u = static_cast<std::size_t>(shared.map.rank_of(p, l));
      offset[u] = at;
      at += len;
      byte_counts[static_cast<std::size_t>(p)] += len;
    }
  }
  std::vector<std::byte> flat;
  for (const auto& m : mine) flat.insert(flat.end(), m.begin(), m.end());
  out->bytes.resize(static_cast<std::size_t>(at));
  rc = MPI_Allgatherv(flat.data(), static_cast<int>(flat.size()), MPI_BYTE, out->bytes.data(),
                      byte_counts.data(), byte_displs.data(), MPI_BYTE, shared.mpi_comm);
  out->at.resize(static_cast<std::size_t>(n));
  for (std::size_t u = 0; u < out->at.size(); ++u) out->at[u] = out->bytes.data() + offset[u];
  return rc;
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
  if (inter_buffer(buf, what, err)) return;
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
int gather_contributions(Endpoint* e, const Contribution& mine, GatheredBytes& storage,
                         const GatheredBytes** gathered) {
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
  *gathered = &team.peer<GatheredBytes>(0);
  return (*gathered)->rc;
}

// The frame of the gathering collectives: this endpoint's blocks go
// everywhere, then `take` reads what it needs from everyone's. Returns an
// MPI error code.
template <class Take>
int gather_then(Endpoint* e, const std::vector<ConstTyped>& send, Take&& take) {
  Contribution mine;
  // A failed pack still takes part, so that nobody is left waiting.
  const int pack_rc = pack_blocks(send, &mine.data);
  GatheredBytes storage;
  const GatheredBytes* gathered = nullptr;
  int rc = gather_contributions(e, mine, storage, &gathered);
  if (rc == MPI_SUCCESS) rc = take(*gathered);
  e->shared->team->sync();
  keep_first_error(&rc, pack_rc);
  return rc;
}

// Block `block` of every remote rank q's contribution into recv[q] (none
// when recv is empty).
int take_remote(const Endpoint& e, const Gathered& g, std::size_t block,
                const std::vector<Typed>& recv) {
  return take_blocks(g, e.shared->members(1 - e.group), block, recv);
}

// The reduction in rank order of every remote rank's first block into `into`.
int fold_remote(const Endpoint& e, const Gathered& g, const Typed& into, MPI_Op op) {
  return fold(g, e.shared->members(1 - e.group), into, op);
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

int inter_allreduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype type, MPI_Op op) {
  Endpoint* e = in.e;
  LocalError err;
  TypedScratch send_stand_in;
  TypedScratch recv_stand_in;
  refuse_in_place(sendbuf, count, type, in.layout, "sendbuf", err, send_stand_in);
  refuse_in_place(recvbuf, count, type, in.layout, "recvbuf", err, recv_stand_in);
  const Typed into{recvbuf, count, type, in.layout};
  const int rc = gather_then(e, {ConstTyped{sendbuf, count, type, in.layout}},
                             [&](const Gathered& g) { return fold_remote(*e, g, into, op); });
  return err.finish(e, in.function, rc, "the inter-communicator allreduce");
}

int inter_reduce(const Entered& in, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype type, MPI_Op op, int root) {
  Endpoint* e = in.e;
  LocalError err;
  std::vector<ConstTyped> send;
  if (root >= 0 && inter_buffer(sendbuf, "sendbuf", err)) {
    send.push_back({sendbuf, count, type, in.layout});
  }
  const bool receives = root == MPI_ROOT && inter_buffer(recvbuf, "recvbuf", err);
  const Typed into{recvbuf, count, type, in.layout};
  const int rc = gather_then(e, send, [&](const Gathered& g) {
    return receives ? fold_remote(*e, g, into, op) : MPI_SUCCESS;
  });
  return err.finish(e, in.function, rc, "the inter-communicator reduce");
}

int inter_reduce_scatter(const Entered& in, const void* sendbuf, void* recvbuf, const int* counts,
                         int total, MPI_Datatype type, MPI_Op op) {
  Endpoint* e = in.e;
  LocalError err;
  TypedScratch send_stand_in;
  refuse_in_place(sendbuf, total, type, in.layout, "sendbuf", err, send_stand_in);
  const bool receives = inter_buffer(recvbuf, "recvbuf", err);
  std::int64_t first = 0;
  for (int r = 0; r < e->rank; ++r) first += counts[r];
  const int rc =
      gather_then(e, {ConstTyped{sendbuf, total, type, in.layout}}, [&](const Gathered& g) {
        if (!receives) return MPI_SUCCESS;
        // The other group's vectors are as long as ours.
        const TypedScratch whole(total, type, in.layout);
        int fold_rc = fold_remote(*e, g, whole.typed(), op);
        if (fold_rc != MPI_SUCCESS) return fold_rc;
        return copy_typed(whole.typed().slice(first, counts[e->rank]),
                          Typed{recvbuf, counts[e->rank], type, in.layout});
      });
  return err.finish(e, in.function, rc, "the inter-communicator reduce_scatter");
}

int inter_gather(const Entered& in, const ConstTyped& send, const std::vector<Typed>& recv,
                 int root, const LocalError& err) {
  Endpoint* e = in.e;
  std::vector<ConstTyped> mine;
  if (root >= 0) mine.push_back(send);
  const int rc = gather_then(e, mine, [&](const Gathered& g) {
    return root == MPI_ROOT ? take_remote(*e, g, 0, recv) : MPI_SUCCESS;
  });
  return err.finish(e, in.function, rc, "the inter-communicator gather");
}

int inter_scatter(const Entered& in, const std::vector<ConstTyped>& send, const Typed& recv,
                  int root, const LocalError& err) {
  Endpoint* e = in.e;
  const std::vector<ConstTyped> none;
  const int rc = gather_then(e, root == MPI_ROOT ? send : none, [&](const Gathered& g) {
    if (root < 0) return MPI_SUCCESS;
    const int u = e->shared->members(1 - e->group)[static_cast<std::size_t>(root)];
    return unpack_piece(piece_of(g, u, static_cast<std::size_t>(e->rank)), recv);
  });
  return err.finish(e, in.function, rc, "the inter-communicator scatter");
}

int inter_allgather(const Entered& in, const ConstTyped& send, const std::vector<Typed>& recv,
                    const LocalError& err) {
  Endpoint* e = in.e;
  const int rc =
      gather_then(e, {send}, [&](const Gathered& g) { return take_remote(*e, g, 0, recv); });
  return err.finish(e, in.function, rc, "the inter-communicator allgather");
}

int inter_alltoall(const Entered& in, const std::vector<ConstTyped>& send,
                   const std::vector<Typed>& recv, const LocalError& err) {
  Endpoint* e = in.e;
  const int rc = gather_then(e, send, [&](const Gathered& g) {
    return take_remote(*e, g, static_cast<std::size_t>(e->rank), recv);
  });
  return err.finish(e, in.function, rc, "the inter-communicator alltoall");
}

bool inter_buffer(const void* buf, const char* what, LocalError& err) {
  if (buf != MPI_IN_PLACE) return true;
  return err.note(MPI_ERR_BUFFER, "{} may not be MPI_IN_PLACE on an inter-communicator", what);
}

template <class Void>
BasicTyped<Void> inter_block(Void* buf, int count, MPI_Datatype type, const BlockNames& names,
                             const char* buf_name, LocalError& err) {
  TypeLayout layout;
  if (!inter_buffer(buf, buf_name, err) || !local_count(&count, names.counts, err) ||
      !local_type(&type, &layout, names.types, err)) {
    return {};
  }
  return {buf, count, type, layout};
}

template <class Void>
std::vector<BasicTyped<Void>> inter_blocks(const Entered& in, Void* buf, const int* counts,
                                           const int* displs, int count, MPI_Datatype type,
                                           const BlockNames& names, const char* buf_name,
                                           LocalError& err) {
  const int remote = in.e->shared->peer_count(*in.e);
  TypeLayout layout;
  if (!inter_buffer(buf, buf_name, err) || !local_type(&type, &layout, names.types, err) ||
      (!counts && !local_count(&count, names.counts, err))) {
    return std::vector<BasicTyped<Void>>(static_cast<std::size_t>(remote));
  }
  if (counts) return v_blocks(buf, remote, counts, displs, type, layout, names, err);
  const EqualBlocks equal(remote, count);
  return v_blocks(buf, remote, equal.counts.data(), equal.displs.data(), type, layout, names, err);
}

template <class Void>
std::vector<BasicTyped<Void>> inter_w_blocks(const Entered& in, Void* buf, const int* counts,
                                             const int* displs, const MPI_Datatype* types,
                                             const BlockNames& names, const char* buf_name,
                                             LocalError& err) {
  const int remote = in.e->shared->peer_count(*in.e);
  if (!inter_buffer(buf, buf_name, err)) {
    return std::vector<BasicTyped<Void>>(static_cast<std::size_t>(remote));
  }
  return w_blocks(buf, remote, counts, displs, types, names, err);
}

template ConstTyped inter_block(const void*, int, MPI_Datatype, const BlockNames&, const char*,
                                LocalError&);
template Typed inter_block(void*, int, MPI_Datatype, const BlockNames&, const char*, LocalError&);
template std::vector<ConstTyped> inter_blocks(const Entered&, const void*, const int*, const int*,
                                              int, MPI_Datatype, const BlockNames&, const char*,
                                              LocalError&);
template std::vector<Typed> inter_blocks(const Entered&, void*, const int*, const int*, int,
                                         MPI_Datatype, const BlockNames&, const char*, LocalError&);
template std::vector<ConstTyped> inter_w_blocks(const Entered&, const void*, const int*, const int*,
                                                const MPI_Datatype*, const BlockNames&, const char*,
                                                LocalError&);
template std::vector<Typed> inter_w_blocks(const Entered&, void*, const int*, const int*,
                                           const MPI_Datatype*, const BlockNames&, const char*,
                                           LocalError&);

}  // namespace ep::detail
