#include "coll/nonblocking.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

#include "base/backoff.hpp"
#include "base/mpi_yield.hpp"
#include "coll/nonblocking_gathered.hpp"
#include "coll/nonblocking_state.hpp"
#include "object/error.hpp"
#include "object/request.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

namespace {

// Calls not ready yet, of every communicator: the waiters' hook
// (progress_waiting) does nothing while there are none.
std::atomic<int> unready_calls{0};

void set_ready(NonblockingState& state, ProcessCall* call) {
  call->ready.store(true, std::memory_order_release);
  if (call->step && call->step->exclusive()) --state.exclusive_under_way;
  // Nothing to count once forget_nonblocking let go of the communicator.
  if (state.unready > 0) {
    --state.unready;
    unready_calls.fetch_sub(1, std::memory_order_relaxed);
  }
}

// Whether the process may send `call` (or start its step): its endpoints
// (`local` of them) have all started it, or those whose contributions the
// step reads (ProcessStep::reads).
bool startable(const CommShared& shared, const ProcessCall& call, int local) {
  if (call.arrived == local) return true;
  if (!call.step || call.arrived == 0) return false;
  const int reads = call.step->reads(shared);
  return reads == ProcessStep::kNobody || (reads >= 0 && call.read_arrived);
}

// Sends the process's message of `call`, whose contributions are all there
// (coll/nonblocking_gathered.hpp), or starts its MPI step.
void send(const CommShared& shared, ProcessCall* call) {
  if (call->step) {
    call->sent = true;
    const int rc = call->step->start(shared, call->mine, &call->result, &call->step_requests);
    if (rc != MPI_SUCCESS) fail(call, rc, "the MPI step among the processes");
    call->mine.clear();
    return;
  }
  send_contributions(shared, call);
}

// Tests the MPI requests of `call`'s step, and starts its next round once
// they completed (ProcessStep::proceed). Returns whether the step is over.
bool step_over(const CommShared& shared, ProcessCall* call) {
  for (;;) {
    if (!call->step_requests.empty()) {
      int done = 0;
      const int rc = MPI_Testall(static_cast<int>(call->step_requests.size()),
                                 call->step_requests.data(), &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) {
        fail(call, rc, "the MPI step among the processes");
        return true;
      }
      if (!done) return false;
      call->step_requests.clear();
    }
    if (call->rc != MPI_SUCCESS) return true;
    bool more = false;
    const int rc = call->step->proceed(shared, &call->step_requests, &more);
    if (rc != MPI_SUCCESS) {
      fail(call, rc, "the MPI step among the processes");
      return true;
    }
    if (!more) return true;
  }
}

// Moves every call of the process on; under state.lock. Probes for the
// other processes' messages only when `probe` (contribution_waiting).
void advance(const CommShared& shared, NonblockingState& state, bool probe) {
  if (state.message_seen.exchange(false, std::memory_order_acq_rel)) probe = true;
  const int local = shared.team->size();
  // A call's contributions are complete only after the earlier calls'
  // (every endpoint starts them in order), and a call is sent only after
  // the earlier ones, so the messages leave, and the steps start, in order.
  for (ProcessCall* call; (call = state.find(state.first_unsent)) != nullptr;) {
    const bool exclusive = call->step && call->step->exclusive();
    if (!startable(shared, *call, local) || (exclusive && state.exclusive_under_way > 0)) break;
    send(shared, call);
    ++state.first_unsent;
    if (exclusive) ++state.exclusive_under_way;
  }
  for (int p = 0; p < shared.mpi_size; ++p) {
    if (p != shared.mpi_rank) receive_from(shared, state, p, probe);
  }
  state.first_unready = std::max(state.first_unready, state.first);
  for (std::uint64_t n = state.first_unready; n < state.first_unsent; ++n) {
    ProcessCall* call = state.find(n);
    if (!call->ready.load(std::memory_order_relaxed)) {
      if (call->step) {
        if (!step_over(shared, call)) continue;
        call->gathered.result = call->result.data();
        call->gathered.step = call->step.get();
        set_ready(state, call);
      } else {
        if (call->missing > 0) continue;
        place_contributions(shared, call);
        set_ready(state, call);
      }
    }
    if (n == state.first_unready) ++state.first_unready;
  }
  // A call is over once every endpoint took its result and its sends left.
  while (!state.calls.empty()) {
    ProcessCall& front = *state.calls.front();
    if (!front.ready.load(std::memory_order_relaxed) || front.taken < local) break;
    int done = 1;
    if (!front.sends.empty()) {
      const int rc = MPI_Testall(static_cast<int>(front.sends.size()), front.sends.data(), &done,
                                 MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) done = 1;  // nobody is left to report it to
    }
    if (!done) break;
    state.calls.pop_front();
    ++state.first;
  }
}

// Moves the calls of `state` on, unless another thread is at it (which
// moves every call on). Where MPI gives the core away in calls that find
// nothing (base/mpi_yield.hpp), the probes for other processes' messages
// run under the lock only after a look without it found one
// (contribution_waiting), and the look is made only while a call awaits
// such messages: calls made of an MPI step receive none, and looking for
// them anyway made an 8-byte Ibcast on 2 x 2 endpoints take 13.3 us instead
// of 7.5 (measured with the look made by every poll).
void advance_if_free(const CommShared& shared, NonblockingState& state) {
  if (!state.lock.try_lock()) return;
  if (!mpi_yields_when_idle()) {
    if (state.unready > 0) advance(shared, state, /*probe=*/true);
    state.lock.unlock();
    return;
  }
  // Calls made of an MPI step (a collective of MPI's own) receive no
  // message of ours: there is nothing to look for.
  bool awaited = false;
  for (std::uint64_t n = std::max(state.first_unready, state.first);
       ProcessCall* call = state.find(n); ++n) {
    awaited = awaited || (!call->step && call->missing > 0);
  }
  state.lock.unlock();
  const bool waiting = awaited && contribution_waiting(shared);
  if (!state.lock.try_lock()) {
    if (waiting) state.message_seen.store(true, std::memory_order_release);
    return;
  }
  if (state.unready > 0) advance(shared, state, waiting);
  state.lock.unlock();
}

// The communicators whose process parts have non-blocking collectives, for
// the waiters' hook.
struct Registry {
  std::mutex lock;
  std::vector<std::pair<CommShared*, std::shared_ptr<NonblockingState>>> states;
};

Registry& registry() {
  static Registry* const r = new Registry;  // never destroyed: threads may wait at exit
  return *r;
}

// The waiters' hook (base/backoff.hpp): moves on the calls that are not
// ready, of every communicator, unless another thread is at it.
void progress_waiting() {
  if (unready_calls.load(std::memory_order_relaxed) == 0) return;
  Registry& r = registry();
  std::unique_lock<std::mutex> guard(r.lock, std::try_to_lock);
  if (!guard.owns_lock()) return;
  for (auto& [shared, state] : r.states) advance_if_free(*shared, *state);
}

std::shared_ptr<NonblockingState> state_of(CommShared& shared) {
  std::lock_guard<std::mutex> guard(shared.nonblocking_lock);
  if (!shared.nonblocking) {
    shared.nonblocking = std::make_shared<NonblockingState>(shared.mpi_size);
    add_progress_hook(&progress_waiting);
    std::lock_guard<std::mutex> registered(registry().lock);
    registry().states.emplace_back(&shared, shared.nonblocking);
  }
  return shared.nonblocking;
}

// The request's side of one endpoint's call.
class Operation final : public Deferred {
 public:
  Operation(NonblockingCall&& call, std::shared_ptr<NonblockingState> state,
            std::shared_ptr<ProcessCall> process_call)
      : e_(call.e),
        take_(std::move(call.take)),
        err_(std::move(call.err)),
        held_(std::move(call.held)),
        state_(std::move(state)),
        call_(std::move(process_call)) {}

  bool poll(RequestImpl& r) override {
    if (!call_->ready.load(std::memory_order_acquire)) {
      // Whoever holds the lock is moving every call on: no need to wait.
      advance_if_free(*e_->shared, *state_);
      if (!call_->ready.load(std::memory_order_acquire)) return false;
    }
    int rc = call_->rc;
    if (rc == MPI_SUCCESS) {
      rc = take_ ? take_(call_->gathered) : MPI_SUCCESS;
      if (rc != MPI_SUCCESS) step_ = "taking this endpoint's result";
    } else {
      step_ = call_->failed_step;
    }
    {
      std::lock_guard<std::mutex> guard(state_->lock);
      ++call_->taken;
      advance(*e_->shared, *state_, /*probe=*/true);
    }
    complete(r, rc);
    return true;
  }

  /// Completes `r` in the call: the endpoint takes nothing and waits for
  /// nobody (NonblockingCall::synchronizing).
  void complete_now(RequestImpl& r) { complete(r, MPI_SUCCESS); }

  std::string reason() const override { return reason_; }

 private:
  // The end of the operation: its status (the endpoint's own error first,
  // else `rc`) and why it failed, then `r` complete.
  void complete(RequestImpl& r, int rc) {
    call_.reset();
    take_ = nullptr;
    r.status = Status{};
    r.status.MPI_ERROR = err_.any() ? err_.error_class() : error_class_of(rc);
    if (err_.any()) {
      reason_ = err_.why();
    } else if (rc == MPI_ERR_TRUNCATE) {
      reason_ = "message truncated: a rank's block is longer than its receive buffer";
    } else if (rc != MPI_SUCCESS) {
      reason_ = fmt::format("{} failed: {}", step_, mpi_error_string(rc));
    }
    r.state.store(RequestImpl::State::complete, std::memory_order_release);
  }

  Endpoint* e_;
  Take take_;
  LocalError err_;
  HeldTypes held_;
  std::shared_ptr<NonblockingState> state_;
  std::shared_ptr<ProcessCall> call_;
  const char* step_ = nullptr;
  std::string reason_;
};

}  // namespace

void forget_nonblocking(CommShared& shared) {
  std::shared_ptr<NonblockingState> state;
  {
    std::lock_guard<std::mutex> guard(shared.nonblocking_lock);
    state = shared.nonblocking;
  }
  if (!state) return;
  {
    std::lock_guard<std::mutex> guard(registry().lock);
    std::erase_if(registry().states,
                  [&shared](const auto& entry) { return entry.first == &shared; });
  }
  std::lock_guard<std::mutex> guard(state->lock);
  unready_calls.fetch_sub(state->unready, std::memory_order_relaxed);
  state->unready = 0;
}

int start_nonblocking(NonblockingCall&& call, Request* request) {
  Endpoint* e = call.e;
  CommShared& shared = *e->shared;
  std::vector<std::byte> mine;
  // A failed pack still takes part, so that nobody waits in vain.
  const int pack_rc = pack_blocks(call.send, &mine);
  if (pack_rc != MPI_SUCCESS) call.err.note_mpi(pack_rc, "packing this endpoint's blocks");
  call.send.clear();

  const bool early = !call.take && !call.synchronizing;
  std::shared_ptr<NonblockingState> state = state_of(shared);
  const std::uint64_t number = ++e->nonblocking_calls;
  std::shared_ptr<ProcessCall> process_call;
  {
    std::lock_guard<std::mutex> guard(state->lock);
    while (state->first + state->calls.size() <= number) {
      auto next = std::make_shared<ProcessCall>();
      next->number = state->first + state->calls.size();
      next->mine.resize(static_cast<std::size_t>(shared.team->size()));
      next->from.resize(static_cast<std::size_t>(shared.mpi_size));
      next->missing = shared.mpi_size - 1;
      state->calls.push_back(std::move(next));
      ++state->unready;
      unready_calls.fetch_add(1, std::memory_order_relaxed);
    }
    process_call = state->calls[static_cast<std::size_t>(number - state->first)];
    if (process_call->arrived == 0) {
      process_call->route = call.route;
      process_call->route_root = call.route_root;
      if (call.step) {
        process_call->step = std::move(call.step);
        process_call->missing = 0;
      }
    }
    // A step that reads only some contributions may have started before
    // this endpoint came (ProcessStep::reads): the others are not needed.
    if (!process_call->sent)
      process_call->mine[static_cast<std::size_t>(e->local)] = std::move(mine);
    ++process_call->arrived;
    if (process_call->step && process_call->step->reads(shared) == e->local)
      process_call->read_arrived = true;
    if (early) ++process_call->taken;
    advance(shared, *state, /*probe=*/true);
  }
  auto* r = new RequestImpl;
  r->kind = RequestImpl::Kind::coll;
  r->endpoint = e;
  r->held = true;
  ++e->requests_held;
  auto operation =
      std::make_unique<Operation>(std::move(call), std::move(state), std::move(process_call));
  if (early) {
    operation->complete_now(*r);
  } else {
    r->state.store(RequestImpl::State::posted, std::memory_order_release);
  }
  r->deferred = std::move(operation);
  *request = handle_of(r);
  return MPI_SUCCESS;
}

}  // namespace ep::detail
