// The inter-process step of the collectives that move data (Gather(v),
// Scatter(v), Allgather(v), Alltoall(v)): what an MPI_Alltoallw among the
// leaders would do, one message per pair of linked processes, moving every
// piece straight from the endpoint buffer it starts in to the endpoint
// buffer it ends in.
//
// It is made of non-blocking point-to-point messages on the leaders'
// communicator rather than MPI_Ialltoallw because Open MPI 4.1 reports an
// error of a non-blocking collective (a truncation, when one endpoint's
// counts were bad) through MPI_COMM_WORLD's handler, which aborts the job;
// point-to-point requests report through the leaders' communicator, which
// returns the error. Leaders run the exchanges of a communicator in the same
// order, and MPI does not let messages between two processes overtake each
// other, so each message meets the receive of the same collective.
//
// A process's endpoints need not hold contiguous ranks, so the blocks a
// leader sends to another process are scattered over several endpoints'
// buffers and land in scattered places. The leader describes them with one
// struct datatype per peer over absolute addresses (MPI_BOTTOM), built from
// the pieces the collective lists in a canonical order that both sides
// derive from the rank map: sender and receiver list the pieces between two
// processes in the same order, so the type signatures match as MPI requires.
// No piece is staged: MPI copies each byte once.
//
// Every pair of processes that a collective links (by naming a piece between
// them, even an empty one) exchanges a message, led by one header byte, even
// when all its pieces are empty. Links depend only on the rank map and the
// root, never on counts, so both sides agree on them even when one
// endpoint's counts are bad (it takes part with empty stand-ins; see
// coll/checks.hpp): the other side then gets a short message or a
// truncation error, never a wait for a message that is not coming.
#pragma once

#include <mpi.h>

#include <vector>

namespace ep::detail {

class Exchange {
 public:
  explicit Exchange(int processes)
      : send_(static_cast<std::size_t>(processes)),
        recv_(static_cast<std::size_t>(processes)),
        headers_(static_cast<std::size_t>(processes)) {}

  /// Adds `count` elements of `type` at `buf` to what goes to process `peer`
  /// (and links the two processes, also for count 0).
  void send(int peer, const void* buf, int count, MPI_Datatype type);
  /// Adds `count` elements of `type` at `buf` to what comes from process
  /// `peer` (and links the two processes, also for count 0).
  void recv(int peer, void* buf, int count, MPI_Datatype type);

  /// The leader's messages over `comm`, completed. Collective over the
  /// leaders of all processes of `comm`. Returns an MPI error code (also of
  /// the listing of the pieces).
  int run(MPI_Comm comm) const;

 private:
  struct Piece {
    MPI_Aint address;
    int count;
    MPI_Datatype type;
  };
  // By peer process; a linked peer's list starts with its header byte.
  std::vector<std::vector<Piece>> send_;
  std::vector<std::vector<Piece>> recv_;
  std::vector<char> headers_;  // where received header bytes land
  int rc_ = MPI_SUCCESS;       // the first failure while listing pieces
};

}  // namespace ep::detail
