// The state behind the non-blocking collectives' engine (coll/nonblocking.cpp),
// shared with the gathered form's messages (coll/nonblocking_gathered.cpp):
// a process's record of each call, and of all its calls on a communicator.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "coll/nonblocking.hpp"

namespace ep::detail {

// One call at one process.
struct ProcessCall {
  std::uint64_t number = 0;
  int arrived = 0;            // local endpoints that started it
  bool read_arrived = false;  // the endpoint whose contribution the step reads started it
  std::vector<std::vector<std::byte>> mine;  // their contributions, by local rank
  bool sent = false;
  NonblockingCall::Route route = NonblockingCall::Route::everyone;
  int route_root = -1;
  // The process's message: [endpoints][length of each][contributions], in
  // local rank order; with a route, the blocks this process needs.
  std::vector<std::byte> message;
  std::vector<std::vector<std::byte>> routed;  // by MPI rank: what goes there
  std::vector<MPI_Request> sends;
  std::vector<std::vector<std::byte>> from;  // the other processes' messages, by MPI rank
  int missing = 0;                           // other processes whose message has not arrived
  int rc = MPI_SUCCESS;                      // the first failure of an MPI step
  const char* failed_step = nullptr;
  Gathered gathered;
  // The hierarchical form (ProcessStep): the step of the first endpoint
  // that started the call, its MPI request and result.
  std::shared_ptr<ProcessStep> step;
  std::vector<MPI_Request> step_requests;
  std::vector<std::byte> result;
  std::atomic<bool> ready{false};  // gathered (or failed): the endpoints may take
  int taken = 0;                   // local endpoints that took their result
};

struct NonblockingState {
  std::mutex lock;
  std::deque<std::shared_ptr<ProcessCall>> calls;  // calls[i] has number first + i
  std::uint64_t first = 1;
  // The first call not sent yet (they are sent in order), and one at or
  // before the first that is not ready: advance starts there, so that calls
  // some endpoints finished long ago cost nothing while others run ahead.
  std::uint64_t first_unsent = 1;
  std::uint64_t first_unready = 1;
  int exclusive_under_way = 0;  // exclusive steps sent and not ready yet
  // By MPI rank: the call whose message from that process comes next, and
  // its receive when one is under way.
  std::vector<std::uint64_t> next_from;
  std::vector<MPI_Request> receiving;
  int unready = 0;  // calls not ready yet (ProcessCall::ready)
  // Set by a waiter whose look (contribution_waiting) found a message while
  // another thread held the lock: the holder probes then.
  std::atomic<bool> message_seen{false};

  explicit NonblockingState(int processes)
      : next_from(static_cast<std::size_t>(processes), 1),
        receiving(static_cast<std::size_t>(processes), MPI_REQUEST_NULL) {}
  NonblockingState(const NonblockingState&) = delete;
  NonblockingState& operator=(const NonblockingState&) = delete;
  ~NonblockingState() {
    // The communicator is gone: a send still under way completes on its
    // own (its receiver needs it); a receive still posted belongs to a call
    // no endpoint waits for any more.
    for (const auto& call : calls) {
      for (MPI_Request& s : call->sends) {
        if (s != MPI_REQUEST_NULL) MPI_Request_free(&s);
      }
    }
    for (const auto& call : calls) {
      for (MPI_Request& r : call->step_requests) {
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
      }
    }
    for (MPI_Request& r : receiving) {
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    }
  }

  ProcessCall* find(std::uint64_t number) const {
    if (number < first || number - first >= calls.size()) return nullptr;
    return calls[static_cast<std::size_t>(number - first)].get();
  }
};

/// Records the first failure of `call`: its MPI error code and the step
/// that failed.
inline void fail(ProcessCall* call, int rc, const char* step) {
  if (call->rc != MPI_SUCCESS) return;
  call->rc = rc;
  call->failed_step = step;
}

}  // namespace ep::detail
