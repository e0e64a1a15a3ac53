// One endpoint's part in one collective call: how the endpoints of a process
// hand arguments and results to each other in their LocalTeam.
//
// Every collective starts the same way: each endpoint publishes a pointer to
// its arguments (a struct on its stack) under the call number, which is the
// same on every endpoint because they all call the same collectives in the
// same order. From there a collective chooses the least waiting that is safe:
//
//   args<T>(j)       j's arguments (waits until j has entered this call);
//   signal(stage)    "I reached `stage`", with an MPI error code if the step failed;
//   wait(j, stage)   until j reached `stage`; returns the error j signalled;
//   read_done(j)     I no longer read j's buffers or arguments;
//   wait_readers(n)  until the n endpoints reading my buffers are done;
//   barrier()        everybody, the LocalTeam's central barrier;
//   team().arrive()  the gate: the last to arrive leads the call (LocalTeam).
//
// The rules that keep this safe, which every collective file follows:
//  1. An endpoint leaves a call only when nobody reads its arguments or
//     buffers any more (its readers said read_done, or a barrier passed).
//  2. One endpoint per process calls MPI in a call, on CommShared::mpi_comm:
//     the leader (local endpoint 0), or, in the collectives that meet at the
//     gate (LocalTeam::arrive), the last endpoint to arrive. Every endpoint
//     completes the MPI step it makes before it leaves its call, so once
//     all endpoints of a process have entered a call, every step of earlier
//     calls is complete: a communicator's MPI steps are still issued one at
//     a time and in call order in each process, whichever thread issues them.
//  3. The team's scratch buffers belong to the leader: it sizes them before
//     it enters the call (LocalTeam::scratch_acquire waits for the readers of
//     earlier calls), and the others use them only after seeing its arguments.
//  4. A mailbox (small payloads) belongs to the call's writer; the others
//     read it only after the writer's post (mailbox_post) or a later signal
//     of the writer, and only until they leave the call (the Meeting's end):
//     the writer of the call kMailboxes later waits for every endpoint to
//     have left this one (see LocalTeam).
#pragma once

#include <mpi.h>

#include <cstdint>

#include "object/endpoint.hpp"
#include "team/local_team.hpp"

namespace ep::detail {

class Meeting {
 public:
  Meeting(Endpoint* e, const void* args)
      : shared_(*e->shared),
        team_(*shared_.team),
        local_(e->local),
        call_(team_.begin(local_, args)) {}
  /// Leaving the call: from here on this endpoint reads nothing of it, so
  /// its mailbox may be written for a later call (LocalTeam).
  ~Meeting() { team_.leave(local_, call_); }
  Meeting(const Meeting&) = delete;
  Meeting& operator=(const Meeting&) = delete;

  const CommShared& shared() const { return shared_; }
  LocalTeam& team() { return team_; }
  int local() const { return local_; }
  /// The call number (the same on every endpoint), which picks the mailbox.
  std::uint64_t call() const { return call_; }
  int size() const { return team_.size(); }
  bool leader() const { return local_ == 0; }
  /// More than one process: the leader has an MPI step to make.
  bool multi_process() const { return shared_.mpi_size > 1; }

  template <class T>
  const T& args(int j) const {
    return *static_cast<const T*>(team_.args(j, call_));
  }
  /// Waits until j has entered this call (its arguments are visible).
  void wait_posted(int j) const { team_.args(j, call_); }
  void wait_all_posted() const {
    for (int j = 0; j < team_.size(); ++j) team_.args(j, call_);
  }

  void signal(int stage, int error = MPI_SUCCESS) { team_.signal(local_, call_, stage, error); }
  int wait(int j, int stage) const { return team_.wait_signal(j, call_, stage); }

  void read_done(int j) { team_.read_done(j); }
  void wait_readers(int readers) { team_.wait_reads(local_, readers); }
  /// A reader of the leader's scratch is done with it (see LocalTeam::lend).
  void scratch_read_done() { team_.read_done(-1); }

  void barrier() { team_.sync(); }

 private:
  const CommShared& shared_;
  LocalTeam& team_;
  int local_;
  std::uint64_t call_;
};

}  // namespace ep::detail
