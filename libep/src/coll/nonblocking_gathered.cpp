#include "coll/nonblocking_gathered.hpp"

#include <algorithm>
#include <climits>

#include "coll/gathered.hpp"

namespace ep::detail {

namespace {

// The tag of the processes' messages on the communicator's MPI
// communicator (coll/exchange.cpp uses 7, coll/mpi_step.cpp 8 to 10).
constexpr int kTag = 11;

// The contributions of process `p`'s endpoints in its message (one block
// each, coll/gathered.hpp) into g.at. Returns whether the message is what
// the rank map says it holds.
bool place(const CommShared& shared, int p, const std::vector<std::byte>& message, Gathered* g) {
  const int count = shared.map.count_on(p);
  const auto n = static_cast<std::size_t>(count);
  if (message.size() < header_bytes(n) || block_count(message.data()) != count) return false;
  const std::byte* end = message.data() + message.size();
  for (int l = 0; l < count; ++l) {
    const Piece piece = block_of(message.data(), static_cast<std::size_t>(l));
    if (piece.length < 0 || end - piece.data < piece.length) return false;
    g->at[static_cast<std::size_t>(shared.map.rank_of(p, l))] = piece.data;
  }
  return true;
}

constexpr TypeLayout kBytes{1, 1, 0, 1};

// The contributions `parts` (one per local endpoint) as the blocks of one
// message (pack_blocks). Returns an MPI error code: MPI_ERR_COUNT past
// INT_MAX bytes, which one MPI message cannot carry.
int pack_message(const std::vector<std::vector<std::byte>>& parts, std::vector<std::byte>* out) {
  std::vector<ConstTyped> blocks;
  std::size_t total = 0;
  for (const auto& m : parts) {
    total += m.size();
    blocks.push_back(
        {m.data(), static_cast<int>(std::min<std::size_t>(m.size(), INT_MAX)), MPI_BYTE, kBytes});
  }
  const int rc = pack_blocks(blocks, out);
  if (rc != MPI_SUCCESS) return rc;
  if (total > static_cast<std::size_t>(INT_MAX) ||
      out->size() > static_cast<std::size_t>(INT_MAX)) {
    return MPI_ERR_COUNT;
  }
  return MPI_SUCCESS;
}

// The blocks of the contribution `m` that process `p` needs by the call's
// route, the others empty, so that every block keeps its index.
std::vector<std::byte> blocks_for(const CommShared& shared, const ProcessCall& call,
                                  const std::vector<std::byte>& m, int p) {
  const std::int64_t count = m.empty() ? 0 : block_count(m.data());
  std::vector<ConstTyped> blocks;
  for (std::int64_t j = 0; j < count; ++j) {
    const bool needed =
        call.route == NonblockingCall::Route::root
            ? shared.map.at(call.route_root).mpi_rank == p
            : j < shared.map.size() && shared.map.at(static_cast<int>(j)).mpi_rank == p;
    const Piece piece = block_of(m.data(), static_cast<std::size_t>(j));
    if (needed) {
      blocks.push_back({piece.data, static_cast<int>(piece.length), MPI_BYTE, kBytes});
    } else {
      blocks.push_back({nullptr, 0, MPI_BYTE, kBytes});
    }
  }
  std::vector<std::byte> out;
  // Packing bytes that were packed once already cannot fail.
  static_cast<void>(pack_blocks(blocks, &out));
  return out;
}

}  // namespace

void send_contributions(const CommShared& shared, ProcessCall* call) {
  int pack_rc = MPI_SUCCESS;
  if (call->route == NonblockingCall::Route::everyone) {
    pack_rc = pack_message(call->mine, &call->message);
  } else {
    call->routed.resize(static_cast<std::size_t>(shared.mpi_size));
    for (int p = 0; p < shared.mpi_size && pack_rc == MPI_SUCCESS; ++p) {
      std::vector<std::vector<std::byte>> needed;
      for (const auto& m : call->mine) needed.push_back(blocks_for(shared, *call, m, p));
      pack_rc = pack_message(needed, &call->routed[static_cast<std::size_t>(p)]);
    }
    if (pack_rc == MPI_SUCCESS)
      call->message = std::move(call->routed[static_cast<std::size_t>(shared.mpi_rank)]);
  }
  std::vector<std::vector<std::byte>>().swap(call->mine);
  call->sent = true;
  if (pack_rc != MPI_SUCCESS) {
    fail(call, pack_rc,
         pack_rc == MPI_ERR_COUNT ? "the process's message (over INT_MAX bytes)"
                                  : "packing the process's message");
    return;
  }
  for (int p = 0; p < shared.mpi_size; ++p) {
    if (p == shared.mpi_rank) continue;
    const std::vector<std::byte>& out =
        call->routed.empty() ? call->message : call->routed[static_cast<std::size_t>(p)];
    const int bytes = static_cast<int>(out.size());
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = MPI_Isend(out.data(), bytes, MPI_BYTE, p, kTag, shared.mpi_comm, &request);
    if (rc != MPI_SUCCESS) {
      fail(call, rc, "MPI_Isend");
      continue;
    }
    call->sends.push_back(request);
  }
}

void receive_from(const CommShared& shared, NonblockingState& state, int p, bool probe) {
  const auto ps = static_cast<std::size_t>(p);
  for (;;) {
    ProcessCall* call = state.find(state.next_from[ps]);
    if (!call) return;  // no endpoint of this process started that call yet
    if (call->step) {
      ++state.next_from[ps];  // it sends no message
      continue;
    }
    MPI_Request& request = state.receiving[ps];
    if (request == MPI_REQUEST_NULL) {
      if (!probe) return;
      int flag = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Status status;
      int rc = MPI_Improbe(p, kTag, shared.mpi_comm, &flag, &message, &status);
      if (rc == MPI_SUCCESS && !flag) return;
      int bytes = 0;
      if (rc == MPI_SUCCESS) rc = MPI_Get_count(&status, MPI_BYTE, &bytes);
      if (rc == MPI_SUCCESS) {
        call->from[ps].resize(static_cast<std::size_t>(bytes));
        rc = MPI_Imrecv(call->from[ps].data(), bytes, MPI_BYTE, &message, &request);
      }
      if (rc != MPI_SUCCESS) {
        // Nothing more will come from p for this call: it fails.
        fail(call, rc, "receiving another process's contributions (MPI_Improbe, MPI_Imrecv)");
        request = MPI_REQUEST_NULL;
        --call->missing;
        ++state.next_from[ps];
        continue;
      }
    }
    int done = 0;
    const int rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      fail(call, rc, "MPI_Test of a receive of another process's contributions");
      request = MPI_REQUEST_NULL;
      done = 1;
    }
    if (!done) return;
    --call->missing;
    ++state.next_from[ps];
  }
}

void place_contributions(const CommShared& shared, ProcessCall* call) {
  if (call->rc == MPI_SUCCESS) {
    call->gathered.at.assign(static_cast<std::size_t>(shared.map.size()), nullptr);
    bool whole = place(shared, shared.mpi_rank, call->message, &call->gathered);
    for (int p = 0; p < shared.mpi_size && whole; ++p) {
      if (p != shared.mpi_rank) {
        whole = place(shared, p, call->from[static_cast<std::size_t>(p)], &call->gathered);
      }
    }
    if (!whole) fail(call, MPI_ERR_INTERN, "a process's message (malformed)");
  }
}

bool contribution_waiting(const CommShared& shared) {
  int flag = 0;
  const int rc = MPI_Iprobe(MPI_ANY_SOURCE, kTag, shared.mpi_comm, &flag, MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS || flag != 0;
}

}  // namespace ep::detail
