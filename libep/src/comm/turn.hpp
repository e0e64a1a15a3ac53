// One blocking communicator creation at a time per process.
//
// MPI 3.1 has no non-blocking way to make a communicator over some of a
// communicator's processes: MPI_Comm_split, MPI_Comm_create and
// MPI_Comm_create_group block. Open MPI 4.1 advances one creation of a
// process at a time (design.md, "MPI defects worked around"), and when
// several threads of a process wait in such calls at once and busy threads
// outnumber the cores, their waits hand over to each other slowly: three
// processes whose two threads each split their own duplicate of
// MPI_COMM_WORLD into groups of some processes and make two more
// communicators over each group with MPI_Comm_create_group, all at once,
// took 4.3-28 ms per round (2 cores, 22 rounds); six single-threaded
// processes doing the same over one parent, 0.9-1.6 ms.
//
// A mutex alone can deadlock: process 0 may take it for sibling A while
// process 1 takes it for sibling B, and each then waits in a creation for
// the other process, whose thread for that creation waits for the mutex. So
// a thread waits for its process's turn only for a while (kTurnWait) and
// then makes its calls anyway, as it did before there was a turn: what the
// turn adds is at worst that wait; it cannot hang a creation that would
// complete without it. In the program above, a mutex with that bound gave
// 0.6-1.5 ms in 21 of 32 rounds and 3.5-31 ms in the others, where the
// orders crossed (its threads start with the round, some late).
//
// Taken by the thread that makes the calls (a leader) before its first
// blocking creation of one libep creation, and held until its last, so
// that a communicator and its channels are made in one turn. A thread that
// holds the turn may take it again (nested CreationTurns are free).
// MPI_Comm_idup (dup_polled) needs no turn: polled, several at once in a
// process complete together.
//
// Orders cross less when every process gives the turn to its sibling
// creations in one order: lower keys first (CommShared::key of the
// communicator split, the same in every process). A split announces itself
// on entry (CreationIntent), before its exchange of colors, and its turn
// waits, within the same bound, while a lower-keyed split is announced in
// the process. A thread that is late to announce its split (descheduled
// for a few milliseconds, as on a node with more busy threads than cores)
// would still let a higher key go first in its process while another
// process serves the lower one first; so each process also tells the
// others, in the exchange of colors, the lowest-keyed other split it has
// under way (IntentMark), and a turn waits for the splits so announced
// that its own process hosts, until its own part of each is done.
//
// Even in turn, a creation's blocking calls spin inside Open MPI waiting for
// the other processes, and on a node with more busy threads than cores the
// thread a spinning call waits for may be off the core, behind a thread
// that does not give it up: on 2 processes x 3 endpoints, three siblings
// split at once, 5 of 8 first splits took 14-39 ms, and in a diagnostic
// build whose processes also agreed by an exchange that all held their
// turns before they split, the slow ones still spent 9-29 ms inside
// MPI_Comm_split. So from the start of its wait to its end, a turn has Open MPI
// yield the core whenever its progress loop finds nothing to do
// (YieldingInMpi, as `mpi_yield_when_idle` does for a whole run): of 42
// such first splits in four series, one took 6.0 ms, the others 0.38-1.31.
// A creation alone pays a little for the yields: a first Intercomm_create
// on 2 x 3 took 0.31-0.35 ms instead of 0.18-0.23 (medians of two series).
//
// Orders still crossed where threads came late: on 2 x 4 with four
// siblings, process 0 gave its turn to sibling 1 while process 1, whose
// thread for sibling 1 had not yet entered its split, gave its turn to
// sibling 2; every other waiter's bound then ran out, all four splits went
// into MPI at once, and the first splits took 4-42 ms in 7 of 8 rounds
// (10-35 ms in 4 of 8 with the yields). So a split agrees on its turn with
// its processes before its blocking calls (the agreed CreationTurn): in
// rounds of an MPI_Iallreduce on the parent, each process says whether it
// holds its turn; after a round that finds one without, the holders give
// their turns back, to a lower key or to a creation that can agree, and
// try again. A thread waits only briefly (kAgreeWait) for a holder that is
// itself agreeing, since that holder may wait for this thread's processes;
// and after kAgreeLimit all go on with what they have, as a plain turn
// does after kTurnWait. With it, the first splits of 2 x 4 took 0.94-1.60
// ms in 8 rounds (0.76-3.07 in four series of 8 of variants that differed
// in when the processes agree).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "base/mpi_yield.hpp"

namespace ep::detail {

/// Communicators this process hosts, by key, from their making to their
/// release (comm/build.cpp): only their splits are waited for.
void note_communicator(std::int64_t key);
void forget_communicator(std::int64_t key);

/// A split under way: the key of the communicator split, and its number
/// among the splits of that communicator (1 for the first), which is the
/// same in every process since all make them in the same order. `key` -1:
/// none.
struct IntentMark {
  std::int64_t key = -1;
  std::int64_t number = 0;
};

/// A split of this process under way, from its entry to its end.
class CreationIntent {
 public:
  explicit CreationIntent(std::int64_t key);
  ~CreationIntent();
  CreationIntent(const CreationIntent&) = delete;
  CreationIntent& operator=(const CreationIntent&) = delete;

  /// The lowest-keyed split under way in this process other than this one,
  /// or a mark with key -1.
  IntentMark lowest_other() const;

 private:
  std::int64_t key_;
};

class CreationTurn {
 public:
  /// Waits for the process's turn, at most kTurnWait, polling with
  /// back-off; then goes on whether or not it got it. With a `key`, the
  /// turn also waits while a lower-keyed intent is announced here, and
  /// while a split in `awaited` with a lower key, of a communicator this
  /// process hosts, is not done here. The creations other than splits
  /// take it without a key; splits take the agreed form below, which
  /// waits by the same rules, and the keyed form here applies those rules
  /// without the agreement (ep-unit drives them through it).
  explicit CreationTurn(std::int64_t key = std::numeric_limits<std::int64_t>::min(),
                        std::span<const IntentMark> awaited = {});
  /// The turn for blocking calls over the processes of `among`, agreed
  /// with them, in rounds: each process whose calls are `needed` waits for
  /// its turn as above (at most kAgreeWait while the holder is itself
  /// agreeing), then all learn whether every one of them holds its turn;
  /// if not, the holders give theirs back and all try again, until a round
  /// finds every process holding its turn, or kAgreeLimit has passed and
  /// they go on with what they have. Collective over the processes of
  /// `among`; `*rc` is the MPI error code of the rounds' exchanges.
  CreationTurn(MPI_Comm among, bool needed, std::int64_t key, std::span<const IntentMark> awaited,
               int* rc);
  ~CreationTurn();
  CreationTurn(const CreationTurn&) = delete;
  CreationTurn& operator=(const CreationTurn&) = delete;
  /// Whether this object took the turn (not for a nested turn, nor when the
  /// wait ran out).
  bool owner() const { return owner_; }

 private:
  bool owner_ = false;  // this object took the turn and gives it back
  // Open MPI yields in the blocking calls made under the turn, taken or
  // not (not for a nested turn).
  std::optional<YieldingInMpi> yielding_;
};

}  // namespace ep::detail
