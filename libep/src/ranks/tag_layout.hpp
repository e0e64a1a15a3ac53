// How an endpoint envelope travels in an MPI tag.
//
// Between processes a message goes over the MPI communicator of its
// *destination* local endpoint (one per local index, see endpoint.hpp), so
// the destination needs no tag bits; the MPI source rank names the sending
// process. What is left to carry is the sender's local endpoint index and the
// user tag (or, on the bulk channel, the bulk message's number: p2p/
// transport_mpi.hpp). The layout is derived at run time from the MPI's
// MPI_TAG_UB, because implementations differ (Open MPI 2^31-1, others less):
//
//   MPI tag = [ source local : src_bits ][ user tag : user_bits ]
//
// with src_bits = ceil(log2(max endpoints per process)) and user_bits what
// remains. Example: MPI_TAG_UB = 2^31-1 and 3 endpoints per process give
// src_bits = 2, user_bits = 29, a user MPI_TAG_UB of 2^29-1, and local 2
// sending tag 5 encodes as 2<<29 | 5.
#pragma once

#include <optional>

namespace ep::detail {

struct Envelope {
  int source_local = 0;
  int tag = 0;

  friend bool operator==(const Envelope&, const Envelope&) = default;
};

class TagLayout {
 public:
  /// MPI requires a tag upper bound of at least 32767: a layout that would
  /// leave users less is refused.
  static constexpr int kMinUserTagUb = 32767;

  /// The layout for an MPI tag bound and the largest endpoint count of any
  /// process, or nullopt when the user tag range would fall below 32767.
  static std::optional<TagLayout> make(int mpi_tag_ub, int max_endpoints_per_process);

  int encode(Envelope e) const { return (e.source_local << user_bits_) | e.tag; }
  Envelope decode(int mpi_tag) const { return {mpi_tag >> user_bits_, mpi_tag & user_tag_ub()}; }

  int user_tag_ub() const { return static_cast<int>((1u << user_bits_) - 1u); }
  int source_bits() const { return source_bits_; }
  int user_bits() const { return user_bits_; }

 private:
  int source_bits_ = 0;
  int user_bits_ = 0;
};

}  // namespace ep::detail
