// Buffered sends and the calls around them: Bsend, Ibsend and Bsend_init to
// every rank (this process's and others', oneself included) from a buffer
// sized exactly as MPI says (the sum of Pack_size + MPI_BSEND_OVERHEAD), the
// payloads checked; Buffer_detach returning the buffer only once its
// messages have left it (the buffer is overwritten right after); a buffered
// send on a duplicate freed at once, with the buffer attached through the
// original communicator; two threads of one endpoint sending buffered on two
// communicators at once; MPI_ERR_BUFFER for a buffer one byte short, none
// attached, or a second attach; Request_get_status on pending and complete
// requests; Pack/Unpack of a derived type, sent as MPI_PACKED.
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;

// Ints per message of each size: carried whole in one MPI message, a bulk
// message between processes, and a rendezvous between endpoints of a process.
constexpr int kCounts[3] = {3, 500, 10000};

std::uint64_t key_of(int source, int dest, int tag) {
  return message_key(static_cast<std::uint64_t>(source), static_cast<std::uint64_t>(dest),
                     static_cast<std::uint64_t>(tag), 0xB5);
}

int pack_size(Context& t, int count, MPI_Datatype type) {
  int size = 0;
  t.check_rc(api::Pack_size(count, type, t.comm(), &size), "Pack_size");
  return size;
}

std::vector<std::byte> payload(int count, std::uint64_t key) {
  std::vector<std::byte> data(static_cast<std::size_t>(count) * sizeof(int));
  fill_payload(data, key);
  return data;
}

// Every rank sends every other rank (and itself) one message of each size,
// by Bsend, Ibsend and a persistent Bsend_init, all before anyone receives.
void exact_fill(Context& t) {
  const int n = t.size();
  int total = 0;
  for (int count : kCounts) total += n * (pack_size(t, count, MPI_INT) + MPI_BSEND_OVERHEAD);
  std::vector<std::byte> buffer(static_cast<std::size_t>(total));
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), total), "Buffer_attach");

  std::vector<std::vector<std::byte>> out;
  std::vector<api::Request> requests;
  int sent = 0;
  for (int d = 0; d < n; ++d) {
    for (int s = 0; s < 3; ++s) {
      const int tag = s + 1;
      out.push_back(payload(kCounts[s], key_of(t.rank(), d, tag)));
      const void* data = out.back().data();
      api::Request r = api::REQUEST_NULL;
      int rc = MPI_SUCCESS;
      if (s == 0) {
        rc = api::Bsend(data, kCounts[s], MPI_INT, d, tag, t.comm());
      } else if (s == 1) {
        rc = api::Ibsend(data, kCounts[s], MPI_INT, d, tag, t.comm(), &r);
      } else {
        rc = api::Bsend_init(data, kCounts[s], MPI_INT, d, tag, t.comm(), &r);
        if (rc == MPI_SUCCESS) rc = api::Start(&r);
      }
      sent += t.check_rc(rc, fmt::format("buffered send {} to {}", s, d));
      if (r != api::REQUEST_NULL) requests.push_back(r);
    }
  }
  // The message is in the buffer: the requests complete, and the user's
  // buffers may change at once.
  t.check_rc(api::Waitall(static_cast<int>(requests.size()), requests.data(), api::STATUSES_IGNORE),
             "Waitall");
  for (auto& data : out) std::memset(data.data(), 0xEE, data.size());
  for (api::Request& r : requests) {
    if (r != api::REQUEST_NULL) t.check_rc(api::Request_free(&r), "Request_free");
  }
  t.out("exact buffer of {} x (sizes + overhead): {} of {} buffered sends accepted", n, sent,
        3 * n);

  t.barrier();
  int good = 0;
  for (int from = 0; from < n; ++from) {
    for (int s = 0; s < 3; ++s) {
      const int tag = s + 1;
      GuardedBuffer in(static_cast<std::size_t>(kCounts[s]) * sizeof(int));
      api::Status st{};
      t.check_rc(api::Recv(in.data(), kCounts[s], MPI_INT, from, tag, t.comm(), &st), "Recv");
      const bool ok =
          st.MPI_SOURCE == from && st.MPI_TAG == tag && count_of(st, MPI_INT) == kCounts[s] &&
          payload_mismatch(in.span(), key_of(from, t.rank(), tag)) < 0 && in.guards_intact();
      good += t.check(ok, fmt::format("message {} from {}: {}", tag, from, describe(st)));
    }
  }
  void* back = nullptr;
  int size = -1;
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  t.out("received {} of {} intact; detach gave the buffer: {}, size {}", good, 3 * n,
        back == buffer.data() ? "yes" : "no", size == total ? "as attached" : "other");
}

// Buffer_detach returns only once the messages have left the buffer: it is
// overwritten as soon as detach returns, and the receiver checks what it
// got. First on the test's communicator, detaching before the receive is
// waited for (detach moves the endpoint's own receives on, as MPI would);
// then on a duplicate freed at once (MPI: the pending message is still
// delivered), the buffer attached and detached through the original
// communicator: it is the endpoint's.
void detach_waits(Context& t, bool on_duplicate) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  api::Comm comm = t.comm();
  if (on_duplicate) t.check_rc(api::Comm_dup(t.comm(), &comm), "Comm_dup");
  const int count = kCounts[2];
  const int total = pack_size(t, count, MPI_INT) + MPI_BSEND_OVERHEAD;
  std::vector<std::byte> buffer(static_cast<std::size_t>(total));
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), total), "Buffer_attach");
  GuardedBuffer in(static_cast<std::size_t>(count) * sizeof(int));
  api::Request r = api::REQUEST_NULL;
  t.check_rc(api::Irecv(in.data(), count, MPI_INT, left, 9, comm, &r), "Irecv");
  const auto data = payload(count, key_of(t.rank(), right, 9));
  t.check_rc(api::Bsend(data.data(), count, MPI_INT, right, 9, comm), "Bsend");
  api::Status st{};
  if (on_duplicate) {
    t.check_rc(api::Comm_free(&comm), "Comm_free");
    // Waits on a freed communicator's requests are where libep moves them on.
    t.check_rc(api::Wait(&r, &st), "Wait");
  }
  void* back = nullptr;
  int size = -1;
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  std::memset(buffer.data(), 0xEE, buffer.size());
  if (!on_duplicate) t.check_rc(api::Wait(&r, &st), "Wait");
  const bool ok = payload_mismatch(in.span(), key_of(left, t.rank(), 9)) < 0 &&
                  in.guards_intact() && count_of(st, MPI_INT) == count;
  t.check(ok, "the message sent before detach");
  t.out("detach{}, then the buffer overwritten: message {}, detach gave {} bytes",
        on_duplicate ? " (sent on a freed duplicate)" : "", ok ? "intact" : "damaged",
        size == total ? "all" : "other");
}

// One endpoint (process), two threads: each sends buffered messages on a
// communicator of its own, at the same time, from the one buffer, sized for
// all of them.
void two_threads(Context& t) {
  constexpr int kMessages = 16;
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  api::Comm dup = api::COMM_NULL;
  t.check_rc(api::Comm_dup(t.comm(), &dup), "Comm_dup");
  const int count = kCounts[1];
  const int total = 2 * kMessages * (pack_size(t, count, MPI_INT) + MPI_BSEND_OVERHEAD);
  std::vector<std::byte> buffer(static_cast<std::size_t>(total));
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), total), "Buffer_attach");
  const auto send_all = [&](api::Comm comm, int tag, int* accepted) {
    for (int i = 0; i < kMessages; ++i) {
      const auto data = payload(count, key_of(t.rank(), right, tag + 100 * i));
      *accepted += api::Bsend(data.data(), count, MPI_INT, right, tag, comm) == MPI_SUCCESS;
    }
  };
  int accepted_main = 0;
  int accepted_other = 0;
  std::thread other(send_all, dup, 21, &accepted_other);
  send_all(t.comm(), 20, &accepted_main);
  other.join();
  int good = 0;
  for (int i = 0; i < kMessages; ++i) {
    for (const auto& [comm, tag] : {std::pair{t.comm(), 20}, std::pair{dup, 21}}) {
      std::vector<std::byte> in(static_cast<std::size_t>(count) * sizeof(int));
      t.check_rc(api::Recv(in.data(), count, MPI_INT, left, tag, comm, api::STATUS_IGNORE), "Recv");
      good += payload_mismatch(in, key_of(left, t.rank(), tag + 100 * i)) < 0;
    }
  }
  void* back = nullptr;
  int size = 0;
  t.check_rc(api::Buffer_detach(dup, &back, &size), "Buffer_detach");
  t.check_rc(api::Comm_free(&dup), "Comm_free");
  t.check(accepted_main + accepted_other == 2 * kMessages && good == 2 * kMessages,
          "two threads sending buffered");
  t.out("two threads, one buffer: {} + {} of {} accepted, {} received intact", accepted_main,
        accepted_other, 2 * kMessages, good);
}

// MPI_ERR_BUFFER. Libep charges every message Pack_size + MPI_BSEND_OVERHEAD,
// so one byte less refuses it; the reference MPIs take it (reference_mpi.hpp).
void too_small(Context& t) {
  if (!kEndpoints && reference::kBufferedSendsUnchecked) return;
  int value = 42;
  const int exact = pack_size(t, 1, MPI_INT) + MPI_BSEND_OVERHEAD;
  t.expect_class(api::Bsend(&value, 1, MPI_INT, t.rank(), 5, t.comm()), MPI_ERR_BUFFER,
                 "Bsend with no buffer attached");
  std::vector<std::byte> buffer(static_cast<std::size_t>(exact));
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), exact - 1), "Buffer_attach");
  t.expect_class(api::Buffer_attach(t.comm(), buffer.data(), exact), MPI_ERR_BUFFER,
                 "a second Buffer_attach");
  t.expect_class(api::Bsend(&value, 1, MPI_INT, t.rank(), 5, t.comm()), MPI_ERR_BUFFER,
                 "Bsend into a buffer one byte short");
  void* back = nullptr;
  int size = -1;
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  t.check(back == buffer.data() && size == exact - 1, "detach after a refused send");
  // Exactly enough: accepted, and the message arrives.
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), exact), "Buffer_attach");
  t.check_rc(api::Bsend(&value, 1, MPI_INT, t.rank(), 5, t.comm()), "Bsend, exact buffer");
  int got = 0;
  t.check_rc(api::Recv(&got, 1, MPI_INT, t.rank(), 5, t.comm(), api::STATUS_IGNORE), "Recv");
  t.expect_eq(got, value, "the message of an exact buffer");
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  // None attached: detach gives nothing, and succeeds.
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach with none attached");
  t.check(back == nullptr && size == 0, "detach with none attached gives nullptr, 0");
}

bool is_empty(const api::Status& st) {
  return st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count_of(st) == 0;
}

// Request_get_status neither frees nor deactivates: a receive no message can
// have reached yet (its sender sends after the barrier) is pending; once
// complete its status is given, the request stays, and Wait gives the
// status again and frees it.
void get_status(Context& t) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  int got = -1;
  api::Request r = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&got, 1, MPI_INT, left, 11, t.comm(), &r), "Irecv");
  int flag = -1;
  api::Status st{};
  t.check_rc(api::Request_get_status(r, &flag, &st), "Request_get_status");
  const int pending_flag = flag;
  t.barrier();
  const int value = 1000 + t.rank();
  t.check_rc(api::Send(&value, 1, MPI_INT, right, 11, t.comm()), "Send");
  int polls = 0;
  for (flag = 0; !flag; ++polls) {
    t.check_rc(api::Request_get_status(r, &flag, &st), "Request_get_status");
    if (!flag) relax();
  }
  const bool status_ok = st.MPI_SOURCE == left && st.MPI_TAG == 11 && count_of(st, MPI_INT) == 1;
  const bool kept = r != api::REQUEST_NULL;
  api::Status again{};
  t.check_rc(api::Wait(&r, &again), "Wait");
  const bool ok =
      status_ok && kept && got == 1000 + left && again.MPI_SOURCE == left && r == api::REQUEST_NULL;
  t.check(ok, fmt::format("Request_get_status of a receive: {}", describe(st)));
  t.out(
      "get_status: pending flag {}, then complete with source/tag/count right: {}, request "
      "kept: {}",
      pending_flag, status_ok ? "yes" : "no", kept ? "yes" : "no");

  // A null request: flag 1, an empty status.
  st = api::Status{};
  st.MPI_SOURCE = 77;
  t.check_rc(api::Request_get_status(api::REQUEST_NULL, &flag, &st), "Request_get_status null");
  t.out("get_status of REQUEST_NULL: flag {}, empty {}", flag, is_empty(st) ? "yes" : "no");

  // A complete send request stays until waited for.
  std::vector<std::byte> buffer(static_cast<std::size_t>(pack_size(t, 1, MPI_INT)) +
                                MPI_BSEND_OVERHEAD);
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), static_cast<int>(buffer.size())),
             "Buffer_attach");
  t.check_rc(api::Ibsend(&value, 1, MPI_INT, right, 12, t.comm(), &r), "Ibsend");
  for (flag = 0; !flag;) {
    t.check_rc(api::Request_get_status(r, &flag, api::STATUS_IGNORE), "Request_get_status");
    if (!flag) relax();
  }
  const bool send_kept = r != api::REQUEST_NULL;
  t.check_rc(api::Wait(&r, api::STATUS_IGNORE), "Wait");
  t.check(send_kept && r == api::REQUEST_NULL, "Request_get_status freed a send request");
  t.check_rc(api::Recv(&got, 1, MPI_INT, left, 12, t.comm(), api::STATUS_IGNORE), "Recv");
  void* back = nullptr;
  int size = 0;
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  t.out("get_status of an Ibsend: complete, request kept: {}, message {}", send_kept ? "yes" : "no",
        got == 1000 + left ? "right" : "wrong");
}

// Pack a header int and a strided vector of ints, send the packed bytes as
// MPI_PACKED, unpack on the other side.
void pack_unpack(Context& t) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() + t.size() - 1) % t.size();
  MPI_Datatype vec = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  const int header_size = pack_size(t, 1, MPI_INT);
  const int vec_size = pack_size(t, 2, vec);
  const int total = header_size + vec_size;
  std::vector<std::byte> packed(static_cast<std::size_t>(total));
  // Two elements of the vector: ints 10e + 4b + k for element e, block b,
  // k < 2; the other ints between them are holes.
  constexpr int kSpan = 20;
  int matrix[kSpan];
  for (int i = 0; i < kSpan; ++i) matrix[i] = 100 * t.rank() + i;
  const int header = t.rank();
  int position = 0;
  t.check_rc(api::Pack(&header, 1, MPI_INT, packed.data(), total, &position, t.comm()), "Pack");
  t.check_rc(api::Pack(matrix, 2, vec, packed.data(), total, &position, t.comm()), "Pack");
  const int packed_bytes = position;
  api::Status st{};
  std::vector<std::byte> in(static_cast<std::size_t>(total));
  t.check_rc(api::Sendrecv(packed.data(), packed_bytes, MPI_PACKED, right, 13, in.data(), total,
                           MPI_PACKED, left, 13, t.comm(), &st),
             "Sendrecv");
  int got_header = -1;
  int got[kSpan];
  std::memset(got, 0xFF, sizeof got);
  const int in_bytes = count_of(st);
  position = 0;
  t.check_rc(api::Unpack(in.data(), in_bytes, &position, &got_header, 1, MPI_INT, t.comm()),
             "Unpack");
  t.check_rc(api::Unpack(in.data(), in_bytes, &position, got, 2, vec, t.comm()), "Unpack");
  bool ok = got_header == left && position == in_bytes;
  for (int i = 0; i < kSpan; ++i) {
    const bool in_vector = (i % 10) % 4 < 2;
    ok = ok && got[i] == (in_vector ? 100 * left + i : -1);
  }
  t.check(ok, "unpacked data");
  t.out("pack: sizes {} + {}, packed {} bytes, received {}, unpacked {}", header_size, vec_size,
        packed_bytes, in_bytes, ok ? "right" : "wrong");

  // A buffered send of the derived type packs it as Pack does: the
  // receiver gets the ints of the vector, in order.
  std::vector<std::byte> buffer(static_cast<std::size_t>(vec_size + MPI_BSEND_OVERHEAD));
  t.check_rc(api::Buffer_attach(t.comm(), buffer.data(), static_cast<int>(buffer.size())),
             "Buffer_attach");
  t.check_rc(api::Bsend(matrix, 2, vec, right, 14, t.comm()), "Bsend of a vector");
  int flat[12];
  t.check_rc(api::Recv(flat, 12, MPI_INT, left, 14, t.comm(), api::STATUS_IGNORE), "Recv");
  bool flat_ok = true;
  for (int i = 0; i < 12; ++i) {
    const int index = 10 * (i / 6) + 4 * ((i % 6) / 2) + i % 2;
    flat_ok = flat_ok && flat[i] == 100 * left + index;
  }
  t.check(flat_ok, "a buffered vector received as ints");
  void* back = nullptr;
  int size = 0;
  t.check_rc(api::Buffer_detach(t.comm(), &back, &size), "Buffer_detach");
  t.out("Bsend of the vector, received as 12 ints: {}", flat_ok ? "right" : "wrong");

  // Packing past the end of the output buffer (reference_mpi.hpp).
  if (kEndpoints || !reference::kPackOverflowUnchecked) {
    position = 1;
    const int rc = api::Pack(matrix, 2, vec, packed.data(), vec_size, &position, t.comm());
    t.expect_class(rc, MPI_ERR_TRUNCATE, "Pack past the end");
    position = 1;
    const int urc = api::Unpack(in.data(), vec_size, &position, got, 2, vec, t.comm());
    t.expect_class(urc, MPI_ERR_TRUNCATE, "Unpack past the end");
  }
  MPI_Type_free(&vec);
}

}  // namespace

void eptest::run(Context& t) {
  t.check_rc(api::Comm_set_errhandler(t.comm(), MPI_ERRORS_RETURN), "Comm_set_errhandler");
  exact_fill(t);
  t.barrier();
  detach_waits(t, false);
  t.barrier();
  detach_waits(t, true);
  t.barrier();
  two_threads(t);
  t.barrier();
  too_small(t);
  t.barrier();
  get_status(t);
  t.barrier();
  pack_unpack(t);
}
