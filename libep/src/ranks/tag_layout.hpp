// How an endpoint envelope travels between processes: over which MPI
// communicator (channel) and with which MPI tag.
//
// A communicator has a few channels (p2p/transport_mpi.hpp), each carrying
// the messages addressed to a range of local endpoints of every process:
// local endpoint l of a process receives on channel l / per_channel, where
// it is slot l % per_channel. The MPI source rank names the sending process;
// the MPI tag carries the rest: the destination's slot, the sender's local
// endpoint index and the user tag (or, on the bulk channel, the bulk
// message's number). The layout is derived at run time from the MPI's
// MPI_TAG_UB, because implementations differ (Open MPI 2^31-1, MPICH 4.0
// 2^28-1):
//
//   MPI tag = [ dest slot : dest_bits ][ source local : src_bits ][ user tag : user_bits ]
//
// with src_bits = ceil(log2(max endpoints per process)), dest_bits =
// ceil(log2(per_channel)), and user_bits what remains, at least 15 (MPI
// promises users tags up to 32767). One channel serves every local endpoint
// (kChannels) unless the destination bits would leave users fewer than 15
// bits; then there are as many channels as that needs. Example: MPI_TAG_UB =
// 2^31-1 and 3 endpoints per process give one channel, dest_bits = 2,
// src_bits = 2 and user_bits = 27: local 2 sending tag 5 to local 1 of
// another process encodes as 1<<29 | 2<<27 | 5.
//
// Channels cost two MPI communicators each, and MPI's communicators are few
// (Open MPI 4.1 runs out at about 65500 live ones): past kMaxChannels a
// layout is refused, so that a process with too many endpoints gets libep's
// message at creation rather than MPI's failure in the middle of making its
// channels (up to 4096 endpoints per process on Open MPI, whose tags have 31
// bits, and 1024 on MPICH 4.0, 28 bits).
#pragma once

#include <optional>

namespace ep::detail {

struct Envelope {
  int dest_slot = 0;  // the destination's slot on its channel
  int source_local = 0;
  int tag = 0;

  friend bool operator==(const Envelope&, const Envelope&) = default;
};

class TagLayout {
 public:
  /// MPI requires a tag upper bound of at least 32767: a layout that would
  /// leave users less is refused.
  static constexpr int kMinUserTagUb = 32767;
  /// Channels a communicator has when the tag range allows: one, so that a
  /// communicator costs the same few MPI communicators at any endpoint count.
  static constexpr int kChannels = 1;
  /// The most channels a communicator may have: 2 x 256 + 1 MPI
  /// communicators per endpoint communicator at most.
  static constexpr int kMaxChannels = 256;

  /// The layout for an MPI tag bound and the largest endpoint count of any
  /// process, or nullopt when the user tag range would fall below 32767 or
  /// the layout would need more than kMaxChannels channels.
  static std::optional<TagLayout> make(int mpi_tag_ub, int max_endpoints_per_process);

  /// The largest endpoint count per process that make() accepts for
  /// `mpi_tag_ub` (0 if none), for messages that name the limit.
  static int max_endpoints_per_process(int mpi_tag_ub);

  int encode(Envelope e) const {
    return (e.dest_slot << (source_bits_ + user_bits_)) | (e.source_local << user_bits_) | e.tag;
  }
  Envelope decode(int mpi_tag) const {
    const int source_mask = (1 << source_bits_) - 1;
    return {mpi_tag >> (source_bits_ + user_bits_), (mpi_tag >> user_bits_) & source_mask,
            mpi_tag & user_tag_ub()};
  }

  int channels() const { return channels_; }
  int per_channel() const { return per_channel_; }
  int channel_of(int local) const { return local / per_channel_; }
  int slot_of(int local) const { return local % per_channel_; }
  int local_of(int channel, int slot) const { return channel * per_channel_ + slot; }

  int user_tag_ub() const { return static_cast<int>((1u << user_bits_) - 1u); }
  int dest_bits() const { return dest_bits_; }
  int source_bits() const { return source_bits_; }
  int user_bits() const { return user_bits_; }

 private:
  int channels_ = 1;
  int per_channel_ = 1;
  int dest_bits_ = 0;
  int source_bits_ = 0;
  int user_bits_ = 0;
};

}  // namespace ep::detail
