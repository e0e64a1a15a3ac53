// Every rank exchanges one message with every rank, itself included, at sizes
// from 0 bytes to past 1 MiB, so that both the eager and the rendezvous paths
// run within and between processes. Each phase uses a different flavour of
// send and receive; every payload names its (source, destination, size,
// phase), and every receive buffer has guard bytes.
#include <algorithm>
#include <array>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

constexpr std::array<std::size_t, 6> kSizes{0, 1, 8, 1024, 64 * 1024, (1u << 20) + 24};

enum class Phase { PrepostedSend, Nonblocking, IssendRecv, Sendrecv, SendrecvReplace };
constexpr std::array kPhases{Phase::PrepostedSend, Phase::Nonblocking, Phase::IssendRecv,
                             Phase::Sendrecv, Phase::SendrecvReplace};

const char* name_of(Phase phase) {
  switch (phase) {
    case Phase::PrepostedSend:
      return "irecv+send";
    case Phase::Nonblocking:
      return "isend+irecv";
    case Phase::IssendRecv:
      return "issend+recv";
    case Phase::Sendrecv:
      return "sendrecv";
    case Phase::SendrecvReplace:
      return "sendrecv_replace";
  }
  return "?";
}

// One (phase, size) round: buffers for every peer, keyed payloads.
class Round {
 public:
  Round(Context& t, Phase phase, std::size_t size_index)
      : t_(t),
        phase_(phase),
        size_index_(size_index),
        bytes_(kSizes[size_index]),
        tag_(static_cast<int>(phase) * 16 + static_cast<int>(size_index)) {
    for (int peer = 0; peer < t.size(); ++peer) {
      send_.emplace_back(bytes_);
      fill_payload(send_.back().span(), key(t.rank(), peer));
      recv_.emplace_back(bytes_);
    }
  }

  void run() {
    switch (phase_) {
      case Phase::PrepostedSend:
        preposted_send();
        break;
      case Phase::Nonblocking:
        nonblocking();
        break;
      case Phase::IssendRecv:
        issend_recv();
        break;
      case Phase::Sendrecv:
        sendrecv(false);
        break;
      case Phase::SendrecvReplace:
        sendrecv(true);
        break;
    }
    for (int source = 0; source < t_.size(); ++source) verify(source);
  }

 private:
  std::uint64_t key(int source, int dest) const {
    return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                       size_index_, static_cast<std::uint64_t>(phase_));
  }
  int count() const { return static_cast<int>(bytes_); }
  // Peers in a rotated order, so that not every rank talks to rank 0 first.
  int dest_at(int k) const { return (t_.rank() + k) % t_.size(); }
  int source_at(int k) const { return (t_.rank() - k + t_.size()) % t_.size(); }
  std::byte* send_buf(int peer) { return send_[static_cast<std::size_t>(peer)].data(); }
  std::byte* recv_buf(int peer) { return recv_[static_cast<std::size_t>(peer)].data(); }
  api::Status& status(int peer) { return status_[static_cast<std::size_t>(peer)]; }

  // All receives posted first, so blocking sends (even rendezvous ones, even to
  // oneself) always find their match.
  void preposted_send() {
    std::vector<api::Request> requests(static_cast<std::size_t>(t_.size()), api::REQUEST_NULL);
    for (int k = 0; k < t_.size(); ++k) {
      const int source = source_at(k);
      t_.check_rc(api::Irecv(recv_buf(source), count(), MPI_BYTE, source, tag_, t_.comm(),
                             &requests[static_cast<std::size_t>(source)]),
                  "Irecv");
    }
    for (int k = 0; k < t_.size(); ++k) {
      const int dest = dest_at(k);
      t_.check_rc(api::Send(send_buf(dest), count(), MPI_BYTE, dest, tag_, t_.comm()), "Send");
    }
    t_.check_rc(api::Waitall(t_.size(), requests.data(), status_.data()), "Waitall");
  }

  // Sends started before receives; one Waitall over sends and receives mixed.
  void nonblocking() {
    const auto n = static_cast<std::size_t>(t_.size());
    std::vector<api::Request> requests(2 * n, api::REQUEST_NULL);
    std::vector<api::Status> statuses(2 * n);
    for (int k = 0; k < t_.size(); ++k) {
      const int dest = dest_at(k);
      t_.check_rc(api::Isend(send_buf(dest), count(), MPI_BYTE, dest, tag_, t_.comm(),
                             &requests[2 * static_cast<std::size_t>(dest)]),
                  "Isend");
    }
    for (int k = 0; k < t_.size(); ++k) {
      const int source = source_at(k);
      t_.check_rc(api::Irecv(recv_buf(source), count(), MPI_BYTE, source, tag_, t_.comm(),
                             &requests[2 * static_cast<std::size_t>(source) + 1]),
                  "Irecv");
    }
    t_.check_rc(api::Waitall(static_cast<int>(2 * n), requests.data(), statuses.data()), "Waitall");
    for (std::size_t peer = 0; peer < n; ++peer) status_[peer] = statuses[2 * peer + 1];
  }

  // Synchronous sends cannot complete before their receive: every rank starts
  // all of them, then receives in order.
  void issend_recv() {
    std::vector<api::Request> requests(static_cast<std::size_t>(t_.size()), api::REQUEST_NULL);
    for (int k = 0; k < t_.size(); ++k) {
      const int dest = dest_at(k);
      t_.check_rc(api::Issend(send_buf(dest), count(), MPI_BYTE, dest, tag_, t_.comm(),
                              &requests[static_cast<std::size_t>(dest)]),
                  "Issend");
    }
    for (int k = 0; k < t_.size(); ++k) {
      const int source = source_at(k);
      t_.check_rc(
          api::Recv(recv_buf(source), count(), MPI_BYTE, source, tag_, t_.comm(), &status(source)),
          "Recv");
    }
    t_.check_rc(api::Waitall(t_.size(), requests.data(), api::STATUSES_IGNORE), "Waitall sends");
  }

  // Shift k: send to rank+k, receive from rank-k. Replace mode receives into
  // the buffer that held the outgoing payload.
  void sendrecv(bool replace) {
    for (int k = 0; k < t_.size(); ++k) {
      const int dest = dest_at(k);
      const int source = source_at(k);
      if (replace) {
        std::copy_n(send_buf(dest), bytes_, recv_buf(source));
        t_.check_rc(api::Sendrecv_replace(recv_buf(source), count(), MPI_BYTE, dest, tag_, source,
                                          tag_, t_.comm(), &status(source)),
                    "Sendrecv_replace");
      } else {
        t_.check_rc(api::Sendrecv(send_buf(dest), count(), MPI_BYTE, dest, tag_, recv_buf(source),
                                  count(), MPI_BYTE, source, tag_, t_.comm(), &status(source)),
                    "Sendrecv");
      }
    }
  }

  void verify(int source) {
    GuardedBuffer& buffer = recv_[static_cast<std::size_t>(source)];
    const api::Status& st = status(source);
    const std::ptrdiff_t bad = payload_mismatch(buffer.span(), key(source, t_.rank()));
    t_.expect_eq(st.MPI_SOURCE, source, "status source");
    t_.expect_eq(st.MPI_TAG, tag_, "status tag");
    t_.expect_eq(count_of(st), count(), "received count");
    t_.check(bad < 0, fmt::format("{} {} from {}: payload differs at byte {}", name_of(phase_),
                                  bytes_, source, bad));
    t_.check(buffer.guards_intact(), "receive overran its buffer");
    t_.out("{} {} from {}: {} payload {}", name_of(phase_), size_name(bytes_), source, describe(st),
           bad < 0 && buffer.guards_intact() ? "ok" : "BAD");
  }

  Context& t_;
  Phase phase_;
  std::size_t size_index_;
  std::size_t bytes_;
  int tag_;
  std::vector<GuardedBuffer> send_;
  std::vector<GuardedBuffer> recv_;
  std::vector<api::Status> status_ = std::vector<api::Status>(static_cast<std::size_t>(t_.size()));
};

}  // namespace

void eptest::run(Context& t) {
  for (Phase phase : kPhases) {
    for (std::size_t s = 0; s < kSizes.size(); ++s) Round(t, phase, s).run();
  }
}
