// Where the endpoints of one process meet for the intra-process steps of
// collectives and communicator constructors.
//
// Every communicator has one LocalTeam per process, sized to the process's
// endpoints in it, so collectives on different communicators never share
// one (endpoints of a process may run them concurrently). A step looks like
//
//   team.slot(local) = &my_arguments;  team.sync(local);   // all arguments visible
//   ... read others' arguments, the leader (local 0) calls MPI ...
//   team.sync(local);                                      // results visible
//   ... copy results out ...
//   team.sync(local);                                      // nobody reads my buffers any more
//
// sync() is a central barrier: the last to arrive advances a generation the
// others wait on, spinning briefly, then yielding (TeamBackoff), since the
// endpoints may be more than the cores.
//
// Collectives need less than three full barriers: most endpoints wait for
// one other endpoint, not for all. For them every endpoint has a seat with
// flags numbered by call (see team/meeting.hpp, which is the only user):
//   posted   the call whose arguments `args` points to;
//   state    how far the endpoint got in that call: (call << 4 | stage << 1 | failed);
//   reads    how many endpoints have finished reading this endpoint's buffers.
// All flags only grow, so nothing is ever reset and no call can mistake an
// earlier call's flag for its own. The seats are separate from the slots and
// the barrier above, so the two ways of meeting never disturb each other.
//
// Collectives in which nobody leaves before everybody arrived (Barrier, small
// Allreduce) meet at the gate instead: each endpoint counts itself in; the
// last to arrive, already running, makes the process's step and opens the
// gate; the others wait for the opening alone. No endpoint has to be woken
// to learn that the others arrived, which on a loaded core is a time slice.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/backoff.hpp"

namespace ep::detail {

// How endpoints wait for each other in their team. Unlike a message, which
// may take long to arrive, what a team member waits for is another member's
// next step, and with more endpoints than cores (the normal case) that member
// may be waiting for this very core. So the spin is short (32 pauses: a
// hand-off between running threads takes a fraction of a microsecond), then
// the waiter yields; it naps only once the wait has lasted milliseconds (a
// slow process elsewhere), where a nap's delay is small beside the wait.
using TeamBackoff = BasicBackoff<32, 20000>;

class LocalTeam {
 public:
  explicit LocalTeam(int size)
      : size_(size),
        slots_(static_cast<std::size_t>(size)),
        seats_(static_cast<std::size_t>(size)),
        reads_(static_cast<std::size_t>(size)),
        lefts_(static_cast<std::size_t>(size)) {}

  int size() const { return size_; }

  /// The pointer endpoint `local` publishes before a sync.
  const void*& slot(int local) { return slots_[static_cast<std::size_t>(local)].pointer; }
  template <class T>
  const T& peer(int local) const {
    return *static_cast<const T*>(slots_[static_cast<std::size_t>(local)].pointer);
  }

  /// Waits until all `size()` endpoints have called sync() as often as this
  /// one. Writes before a sync are visible to every endpoint after it.
  void sync() {
    if (size_ == 1) return;
    const unsigned generation = barrier_.generation.load(std::memory_order_acquire);
    if (barrier_.arrived.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
      barrier_.arrived.store(0, std::memory_order_relaxed);
      barrier_.generation.store(generation + 1, std::memory_order_release);
      return;
    }
    TeamBackoff backoff;
    while (barrier_.generation.load(std::memory_order_acquire) == generation) backoff.pause();
  }

  // ---- The gate ----

  /// An endpoint's passage through the gate: which one (the same number on
  /// every endpoint) and whether it arrived last.
  struct Passage {
    std::uint64_t number = 0;
    bool last = false;
  };

  /// Endpoint `local` arrives at its next gate. Writes before arrive() are
  /// visible to the last arriver after it. Every endpoint of the team passes
  /// the same gates in the same order, and none may leave a gate before it
  /// opened, so passage n's arrivals are counted before any of passage n + 1.
  Passage arrive(int local) {
    const std::uint64_t number = ++seat(local).gates;
    const std::uint64_t before = gate_.arrived.fetch_add(1, std::memory_order_acq_rel);
    return {number, before + 1 == number * static_cast<std::uint64_t>(size_)};
  }

  /// The last arriver of passage `number` lets the others go, with `error`
  /// (an MPI code) for all of them. Writes before open() are visible to the
  /// others after their wait_open().
  void open(std::uint64_t number, int error) {
    // One error slot suffices: passage n + 1 opens only once every waiter
    // of passage n has read it and arrived again.
    gate_.error.store(error, std::memory_order_relaxed);
    gate_.opened.store(number, std::memory_order_release);
  }

  /// Waits until passage `number` is opened; returns its error.
  int wait_open(std::uint64_t number) const {
    wait_until([&] { return gate_.opened.load(std::memory_order_acquire) >= number; });
    return gate_.error.load(std::memory_order_relaxed);
  }

  // ---- Seats (used through team/meeting.hpp) ----

  static constexpr int kMaxStage = 7;

  /// Endpoint `local` enters its next collective call and publishes `args`
  /// for it. Returns the call number, the same on every endpoint.
  std::uint64_t begin(int local, const void* args) {
    Seat& s = seat(local);
    const std::uint64_t call = ++s.calls;
    s.errors[call % kErrorRing].store(0, std::memory_order_relaxed);
    s.args = args;
    s.posted.store(call, std::memory_order_release);
    return call;
  }

  /// The arguments endpoint `j` published for `call`, once it has.
  const void* args(int j, std::uint64_t call) const {
    const Seat& s = seat(j);
    wait_until([&] { return s.posted.load(std::memory_order_acquire) >= call; });
    return s.args;
  }

  /// Endpoint `local` reached `stage` of `call`; `error` (an MPI code) says
  /// the step failed, so that whoever waits for it fails too.
  void signal(int local, std::uint64_t call, int stage, int error) {
    assert(stage > 0 && stage <= kMaxStage);  // 3 bits of the state word
    Seat& s = seat(local);
    if (error != 0) s.errors[call % kErrorRing].store(error, std::memory_order_relaxed);
    s.state.store(call << 4 | static_cast<std::uint64_t>(stage) << 1 | (error != 0),
                  std::memory_order_release);
  }

  /// Waits until endpoint `j` reached `stage` of `call`; returns the error
  /// it signalled in that call (0 if none). An endpoint runs fewer than
  /// kMailboxes calls ahead of a waiter (see the mailboxes below), which
  /// the ring of error codes covers.
  int wait_signal(int j, std::uint64_t call, int stage) const {
    const Seat& s = seat(j);
    const std::uint64_t target = call << 4 | static_cast<std::uint64_t>(stage) << 1;
    wait_until([&] { return s.state.load(std::memory_order_acquire) >= target; });
    return s.errors[call % kErrorRing].load(std::memory_order_relaxed);
  }

  /// An endpoint finished reading endpoint `j`'s buffers (or scratch, j = -1).
  void read_done(int j) { reads(j).fetch_add(1, std::memory_order_release); }

  /// Endpoint `local` (or the scratch owner, local = -1) waits until the
  /// `readers` endpoints it lent its buffers to in this call are done. Only
  /// the seat's owner calls it, so the running total needs no atomics.
  void wait_reads(int local, int readers) {
    std::uint64_t& owed = local < 0 ? scratch_reads_owed_ : seat(local).reads_owed;
    owed += static_cast<std::uint64_t>(readers);
    const std::uint64_t target = owed;
    const auto& done = reads(local);
    wait_until([&] { return done.load(std::memory_order_acquire) >= target; });
  }
  /// Like wait_reads, but only records the readers; the wait happens at the
  /// next wait_reads or scratch_acquire of the same owner.
  void lend(int local, int readers) {
    std::uint64_t& owed = local < 0 ? scratch_reads_owed_ : seat(local).reads_owed;
    owed += static_cast<std::uint64_t>(readers);
  }

  // ---- Scratch: the process's work buffers for collectives ----

  static constexpr int kScratchBuffers = 3;

  /// Leader only, before it begins a call: makes scratch buffer `index`
  /// hold at least `bytes` bytes, once everyone who read the scratch in
  /// earlier calls is done. Other endpoints use it only after they have seen
  /// the leader's arguments of the call (its `begin` publishes the pointer).
  std::byte* scratch_acquire(int index, std::size_t bytes) {
    wait_reads(-1, 0);
    Scratch& s = scratch_[static_cast<std::size_t>(index)];
    if (s.size < bytes) {
      // Grow geometrically: a sequence of growing messages reallocates (and
      // page-faults) only a few times.
      const std::size_t size = std::max(bytes, 2 * s.size);
      s.memory = std::make_unique_for_overwrite<std::byte[]>(size);
      s.size = size;
    }
    return s.memory.get();
  }
  std::byte* scratch(int index) const {
    return scratch_[static_cast<std::size_t>(index)].memory.get();
  }

  // ---- Mailboxes: small payloads one endpoint hands to the others ----
  //
  // A small collective's writer (a root, a leader) packs or combines the
  // data into a mailbox, posts it, and leaves; its readers copy out when
  // they get to it. Calls use a ring of kMailboxes mailboxes, so the writer
  // of call k waits only until every endpoint has left call k - kMailboxes.
  // A writer can thus run several calls ahead of slow readers, as an MPI
  // process runs ahead of its receivers on eager messages, and with more
  // endpoints than cores each endpoint gets through several calls per time
  // slice instead of handing the core over on every call. 32 rather than 8:
  // a 2 x 2 Bcast of 8 bytes took 1.25 us per call instead of 2.0 (median of
  // 4 runs each, loaded 2-core machine), since readers are woken a quarter
  // as often; the cost is memory only where the payloads are large (32 x
  // 64 KiB at most).
  //
  // A small call moves one cache line from writer to reader and no other:
  // up to kInlineBytes of payload travel inside the mailbox's first line,
  // with the post (call number and error) that readers wait on. Readers
  // write nothing the writer reads on every call: each endpoint records the
  // last call it left in a line of its own (Meeting's destructor), and a
  // writer reads those lines only when the oldest call it knows all
  // endpoints left is kMailboxes calls behind. (Counting reads per mailbox
  // instead made every reader and writer bounce two more lines per call:
  // 0.30 us per 8-byte Bcast of 1 x 2 endpoints, where a line's hand-off
  // costs about 0.1.)

  static constexpr std::size_t kMailboxBytes = 64 * 1024;  // the most one holds
  static constexpr std::size_t kMailboxes = 32;
  static constexpr std::size_t kInlineBytes = 32;

  /// For the writer of `call`, endpoint `local`: the mailbox of that call,
  /// holding at least `bytes` (<= kMailboxBytes), once every endpoint has
  /// left the call that used it before.
  std::byte* mailbox_acquire(int local, std::uint64_t call, std::size_t bytes) {
    if (call > kMailboxes) wait_all_left(local, call - kMailboxes);
    Mailbox& box = mailbox_of(call);
    if (bytes <= kInlineBytes) {
      box.data = box.inline_bytes.data();
      return box.data;
    }
    if (box.size < bytes) {
      // Grown to what is used, so that a communicator used only for small
      // collectives holds little memory.
      box.size = std::min(kMailboxBytes, std::max<std::size_t>({bytes, 2 * box.size, 256}));
      box.memory = std::make_unique_for_overwrite<std::byte[]>(box.size);
    }
    box.data = box.memory.get();
    return box.data;
  }
  /// The mailbox of `call`, for a reader that has seen its writer's post
  /// (or another signal the writer gave after acquiring it).
  std::byte* mailbox(std::uint64_t call) { return mailbox_of(call).data; }
  /// For the writer: the mailbox of `call` is readable; `error` (an MPI
  /// code, 0 if none) is what its readers fail with.
  void mailbox_post(std::uint64_t call, int error) {
    Mailbox& box = mailbox_of(call);
    box.error = error;
    box.stamp.store(call, std::memory_order_release);
  }
  /// For a reader: waits for the writer's post of `call`; returns its error.
  int mailbox_wait(std::uint64_t call) const {
    const Mailbox& box = mailbox_of(call);
    wait_until([&] { return box.stamp.load(std::memory_order_acquire) >= call; });
    return box.error;
  }

  /// Endpoint `local` left `call` (see team/meeting.hpp): it reads nothing of
  /// that call any more.
  void leave(int local, std::uint64_t call) {
    lefts_[static_cast<std::size_t>(local)].value.store(call, std::memory_order_release);
  }

 private:
  static constexpr std::uint64_t kErrorRing = 32;
  static_assert(kErrorRing >= kMailboxes, "a writer runs up to kMailboxes calls ahead");

  struct alignas(64) Slot {
    const void* pointer = nullptr;
  };
  struct alignas(64) Barrier {
    std::atomic<int> arrived{0};
    std::atomic<unsigned> generation{0};
  };
  struct alignas(64) Seat {
    std::atomic<std::uint64_t> posted{0};
    std::atomic<std::uint64_t> state{0};
    std::array<std::atomic<int>, kErrorRing> errors{};
    const void* args = nullptr;
    // Touched by the seat's endpoint alone.
    std::uint64_t calls = 0;
    std::uint64_t reads_owed = 0;
    std::uint64_t gates = 0;     // passages through the gate
    std::uint64_t all_left = 0;  // a call every endpoint has left (wait_all_left)
  };
  // Arrivals are written by everyone, the opening by one and polled by the
  // others: a cache line each.
  struct Gate {
    alignas(64) std::atomic<std::uint64_t> arrived{0};
    alignas(64) std::atomic<std::uint64_t> opened{0};
    std::atomic<int> error{0};
  };
  // A counter on a cache line of its own, so that writing it disturbs no
  // flag that others poll: the reads done of a seat's buffers, or the last
  // call an endpoint left.
  struct alignas(64) ReadCount {
    std::atomic<std::uint64_t> value{0};
  };
  struct Scratch {
    std::unique_ptr<std::byte[]> memory;
    std::size_t size = 0;
  };
  // The first line is what a small call moves: the post and the payload.
  // The second holds the memory of larger payloads, which only writers touch.
  struct alignas(64) Mailbox {
    std::atomic<std::uint64_t> stamp{0};  // the last call posted
    std::byte* data = nullptr;            // inline_bytes or memory, set by the writer
    int error = 0;                        // of the call posted
    alignas(32) std::array<std::byte, kInlineBytes> inline_bytes{};
    alignas(64) std::unique_ptr<std::byte[]> memory;
    std::size_t size = 0;
  };
  static_assert(offsetof(Mailbox, memory) == 64, "the post and the payload share one line");

  template <class Pred>
  static void wait_until(Pred&& ready) {
    if (ready()) return;
    TeamBackoff backoff;
    while (!ready()) backoff.pause();
  }
  // Waits until every endpoint has left `call`; `local` is the caller, who
  // has. What it saw is kept in its seat, so that most calls read no line.
  void wait_all_left(int local, std::uint64_t call) {
    Seat& s = seat(local);
    if (s.all_left >= call) return;
    std::uint64_t least = ~std::uint64_t{0};
    for (int j = 0; j < size_; ++j) {
      if (j == local) continue;
      const auto& left = lefts_[static_cast<std::size_t>(j)].value;
      wait_until([&] { return left.load(std::memory_order_acquire) >= call; });
      least = std::min(least, left.load(std::memory_order_acquire));
    }
    s.all_left = least;
  }
  Seat& seat(int local) { return seats_[static_cast<std::size_t>(local)]; }
  const Seat& seat(int local) const { return seats_[static_cast<std::size_t>(local)]; }
  Mailbox& mailbox_of(std::uint64_t call) { return mailboxes_[call % mailboxes_.size()]; }
  const Mailbox& mailbox_of(std::uint64_t call) const {
    return mailboxes_[call % mailboxes_.size()];
  }
  std::atomic<std::uint64_t>& reads(int local) {
    return local < 0 ? scratch_reads_.value : reads_[static_cast<std::size_t>(local)].value;
  }

  int size_;
  Barrier barrier_;
  Gate gate_;
  std::vector<Slot> slots_;
  std::vector<Seat> seats_;
  std::vector<ReadCount> reads_;
  std::vector<ReadCount> lefts_;  // the last call each endpoint left
  ReadCount scratch_reads_;
  std::uint64_t scratch_reads_owed_ = 0;  // the leader's alone
  std::array<Scratch, kScratchBuffers> scratch_;
  std::array<Mailbox, kMailboxes> mailboxes_;
};

}  // namespace ep::detail
