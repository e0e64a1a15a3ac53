#include "coll/mpi_step.hpp"

#include <sched.h>

#include <array>
#include <cstring>
#include <memory>

#include "base/backoff.hpp"
#include "base/datatype.hpp"
#include "node/rings.hpp"
#include "object/error.hpp"

namespace ep::detail {

namespace {
// Polls spent spinning before the leader starts yielding: enough for a
// message from a process that is already running, short enough not to keep
// a core from the endpoints that share it.
constexpr int kSpinningPolls = 8;

void back_off(int polls) {
  if (polls < kSpinningPolls) {
    cpu_relax();
  } else {
    // A leader waiting here is its process's endpoint in libep: what must
    // move on meanwhile (base/backoff.hpp) moves on here too.
    run_progress_hooks();
    sched_yield();
  }
}

}  // namespace

int complete(int rc, MPI_Request* request) {
  int polls = 0;
  return complete_pausing(rc, request, [&polls] { back_off(polls++); });
}

// One MPI_Test per request rather than MPI_Testall: MPI raises an error of
// MPI_Test on the request's communicator, whose handler libep set to
// MPI_ERRORS_RETURN, but MPICH raises one of MPI_Testall (MPI_ERR_IN_STATUS)
// on MPI_COMM_WORLD, whose handler is the application's (fatal by default).
// Like MPI_Testall it returns only once every request is complete: a request
// still under way writes into buffers the caller frees when this returns.
int complete_all(int count, MPI_Request* requests) {
  // Which requests are done: on the stack for the few of the small steps,
  // which must not allocate per call.
  std::array<bool, 32> few{};
  std::unique_ptr<bool[]> many;
  bool* done = few.data();
  if (count > static_cast<int>(few.size())) {
    many = std::make_unique<bool[]>(static_cast<std::size_t>(count));  // all false
    done = many.get();
  }
  int first_error = MPI_SUCCESS;
  for (int polls = 0;; ++polls) {
    bool all_done = true;
    for (int i = 0; i < count; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (done[at] || requests[i] == MPI_REQUEST_NULL) {
        done[at] = true;
        continue;
      }
      int flag = 0;
      const int rc = MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        if (first_error == MPI_SUCCESS) first_error = rc;
        flag = 1;  // an erroneous request is complete
      }
      done[at] = flag != 0;
      all_done = all_done && done[at];
    }
    if (all_done) return first_error;
    back_off(polls);
  }
}

namespace {

constexpr int kBcastTag = 8;
constexpr int kAllreduceTag = 9;
constexpr int kBarrierTag = 10;

// One side of a step's message: MPI sends and receives `count` elements of
// `type` at `buf`; a ring moves the `bytes` bytes at `at` they occupy.
struct StepData {
  void* buf;
  int count;
  MPI_Datatype type;
  std::byte* at;
  std::size_t bytes;
};

StepData bytes_at(void* buf, int bytes) {
  return {buf, bytes, MPI_BYTE, static_cast<std::byte*>(buf), static_cast<std::size_t>(bytes)};
}

// Waits for the step message from `from` with `tag` in the rings. Meanwhile
// it calls into MPI when it yields: the process's large point-to-point
// messages move on only while it does (node/rings.hpp), and a leader waiting
// here through MPI would have.
void ring_receive(const CommShared& shared, int from, int tag, const StepData& in) {
  for (int polls = 0; !node_step_take(shared, from, tag, in.at, in.bytes); ++polls) {
    if (polls >= kSpinningPolls) {
      int found = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shared.mpi_comm, &found, MPI_STATUS_IGNORE);
    }
    back_off(polls);
  }
}

// Starts the step's send of `out` to `to`: into its ring (done at once), or
// an MPI_Isend in *request.
int start_send(const CommShared& shared, const StepData& out, int to, int tag,
               MPI_Request* request) {
  if (node_step_routed(shared, to, out.bytes)) {
    node_step_send(shared, to, tag, out.at, out.bytes);
    return MPI_SUCCESS;
  }
  return MPI_Isend(out.buf, out.count, out.type, to, tag, shared.mpi_comm, request);
}

// A send and a receive with one peer each, completed together; a receive
// through MPI is posted first, so that the peer's message need not wait
// unexpected.
int send_receive(const CommShared& shared, const StepData& out, int to, const StepData& in,
                 int from, int tag) {
  std::array<MPI_Request, 2> requests{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  const bool ring_in = node_step_routed(shared, from, in.bytes);
  int rc = MPI_SUCCESS;
  if (!ring_in) rc = MPI_Irecv(in.buf, in.count, in.type, from, tag, shared.mpi_comm, &requests[0]);
  if (rc == MPI_SUCCESS) rc = start_send(shared, out, to, tag, &requests[1]);
  if (rc == MPI_SUCCESS && ring_in) ring_receive(shared, from, tag, in);
  // complete_all() tests the requests to completion; the MPI checker cannot see it.
  // NOLINTNEXTLINE(clang-analyzer-optin.mpi.MPI-Checker)
  keep_first_error(&rc, complete_all(2, requests.data()));
  return rc;
}

}  // namespace

int message_barrier(const CommShared& shared) {
  const int rank = shared.mpi_rank;
  const int size = shared.mpi_size;
  int rc = MPI_SUCCESS;
  // A failed round still goes on to the next ones, so that no peer waits in vain.
  for (int distance = 1; distance < size; distance *= 2) {
    const int to = (rank + distance) % size;
    const int from = (rank - distance + size) % size;
    keep_first_error(&rc, send_receive(shared, bytes_at(nullptr, 0), to, bytes_at(nullptr, 0), from,
                                       kBarrierTag));
  }
  return rc;
}

int message_bcast(const CommShared& shared, int root, void* buf, int bytes) {
  const int size = shared.mpi_size;
  const StepData data = bytes_at(buf, bytes);
  // Ranks relative to the root: the parent of r clears r's lowest set bit;
  // r's children are r + 2^k for every 2^k below that bit.
  const int relative = (shared.mpi_rank - root + size) % size;
  int rc = MPI_SUCCESS;
  int mask = 1;
  for (; mask < size; mask *= 2) {
    if ((relative & mask) != 0) {
      const int parent = (relative - mask + root) % size;
      if (node_step_routed(shared, parent, data.bytes)) {
        ring_receive(shared, parent, kBcastTag, data);
      } else {
        MPI_Request request = MPI_REQUEST_NULL;
        rc = complete(MPI_Irecv(buf, bytes, MPI_BYTE, parent, kBcastTag, shared.mpi_comm, &request),
                      &request);
      }
      break;
    }
  }
  // Children are served even after a failed receive, so that they are not
  // left waiting; they get whatever is in the buffer, and their error from
  // here. Never with MPI_Send, even for a message MPI sends eagerly: a root
  // runs ahead of the other processes (nothing in a Bcast holds it back), and
  // once their MPI has taken its fill of unreceived eager messages, MPI_Send
  // spins inside MPI until they catch up, without yielding the core where
  // Open MPI sees no more processes than cores. Endpoints that need that
  // core then wait for the time slice: an 8-byte Bcast on 2 x 2 endpoints
  // (2 cores) took 7-58 us per call in 17 of 240 repetitions of 100000
  // calls, instead of 0.32 us; with Isend and complete_all, which yields, in
  // none of 240. At most one child per bit of an int: no allocation per call.
  std::array<MPI_Request, 32> requests{};
  int children = 0;
  for (mask /= 2; mask > 0; mask /= 2) {
    if (relative + mask >= size) continue;
    const int child = (relative + mask + root) % size;
    MPI_Request& request = requests[static_cast<std::size_t>(children++)];
    request = MPI_REQUEST_NULL;
    keep_first_error(&rc, start_send(shared, data, child, kBcastTag, &request));
  }
  if (children > 0) keep_first_error(&rc, complete_all(children, requests.data()));
  return rc;
}

int message_allreduce(const CommShared& shared, void* acc, int count, const Reduction& r) {
  const int rank = shared.mpi_rank;
  const int size = shared.mpi_size;
  if (size == 1 || count == 0) return MPI_SUCCESS;
  // The partner's partial result lands here; small ones on the stack.
  const Footprint print = r.layout.footprint(count);
  alignas(64) std::array<std::byte, 256> small;
  std::unique_ptr<std::byte[]> large;
  std::byte* memory = small.data();
  if (print.bytes > small.size()) {
    large = std::make_unique_for_overwrite<std::byte[]>(print.bytes);
    memory = large.get();
  }
  void* theirs = typed_base(memory, count, r.layout);
  const StepData mine{acc, count, r.type, static_cast<std::byte*>(acc) + print.offset, print.bytes};
  const StepData partners{theirs, count, r.type, static_cast<std::byte*>(theirs) + print.offset,
                          print.bytes};
  int rc = MPI_SUCCESS;
  for (int bit = 1; bit < size; bit *= 2) {
    const int partner = rank ^ bit;
    keep_first_error(&rc, send_receive(shared, mine, partner, partners, partner, kAllreduceTag));
    if (rc != MPI_SUCCESS) continue;  // the later rounds still run, for the peers
    if (partner < rank) {
      rc = MPI_Reduce_local(theirs, acc, count, r.type, r.op);  // acc = theirs op acc
    } else {
      // acc op theirs, formed in theirs, then moved back: the footprint is
      // the same in both buffers, so a byte copy moves every element.
      rc = MPI_Reduce_local(acc, theirs, count, r.type, r.op);
      if (rc == MPI_SUCCESS) std::memcpy(mine.at, partners.at, print.bytes);
    }
  }
  return rc;
}

}  // namespace ep::detail
