// Derived datatypes on either side of a message: vector, indexed, struct and
// contiguous types, sent as one type and received as another with the same
// type signature. Received values must land where the receive type says, and
// the holes of a non-contiguous receive type must keep what they held. Each
// rank sends to its right neighbour (itself when alone). Small blocking
// receives go round the ring as a token; small non-blocking ones include a
// receive freed while under way, also before a wildcard receive.
#include <chrono>
#include <cstddef>
#include <cstring>
#include <vector>

#include "helpers.hpp"

namespace {

using namespace eptest;

// A committed derived datatype, freed when it goes out of scope.
class Type {
 public:
  explicit Type(MPI_Datatype type) : type_(type) { MPI_Type_commit(&type_); }
  ~Type() { MPI_Type_free(&type_); }
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;
  operator MPI_Datatype() const { return type_; }

 private:
  MPI_Datatype type_;
};

MPI_Datatype vector(int count, int block, int stride, MPI_Datatype base) {
  MPI_Datatype t;
  MPI_Type_vector(count, block, stride, base, &t);
  return t;
}
MPI_Datatype contiguous(int count, MPI_Datatype base) {
  MPI_Datatype t;
  MPI_Type_contiguous(count, base, &t);
  return t;
}
MPI_Datatype indexed(std::vector<int> blocks, std::vector<int> displacements, MPI_Datatype base) {
  MPI_Datatype t;
  MPI_Type_indexed(static_cast<int>(blocks.size()), blocks.data(), displacements.data(), base, &t);
  return t;
}

constexpr int kHole = -1;

// The value element i of rank r's message carries.
int value(int rank, int i, int salt) { return rank * 1000003 + i * 7 + salt; }

class Exchange {
 public:
  explicit Exchange(Context& t)
      : t_(t), right_((t.rank() + 1) % t.size()), left_((t.rank() - 1 + t.size()) % t.size()) {}

  // Sends `count` of `send_type` from `out`, receives `recv_count` of
  // `recv_type` into `in`, both with tag `tag`.
  api::Status exchange(const void* out, int count, MPI_Datatype send_type, void* in, int recv_count,
                       MPI_Datatype recv_type, int tag) {
    api::Request request = api::REQUEST_NULL;
    api::Status st{};
    t_.check_rc(api::Isend(out, count, send_type, right_, tag, t_.comm(), &request), "Isend");
    t_.check_rc(api::Recv(in, recv_count, recv_type, left_, tag, t_.comm(), &st), "Recv");
    t_.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
    return st;
  }

  int left() const { return left_; }
  int right() const { return right_; }

 private:
  Context& t_;
  int right_;
  int left_;
};

// Vector (2 x [4 blocks of 3 ints, stride 5]) out, 2 x contiguous(12) in.
void vector_to_contiguous(Context& t, Exchange& x) {
  Type vec(vector(4, 3, 5, MPI_INT));
  Type row(contiguous(12, MPI_INT));
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(vec, &lb, &extent);
  const int span = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int)));  // 18
  std::vector<int> out(static_cast<std::size_t>(2 * span));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = value(t.rank(), static_cast<int>(i), 1);
  std::vector<int> in(24, kHole);
  const api::Status st = x.exchange(out.data(), 2, vec, in.data(), 2, row, 1);

  int wrong = 0;
  for (int item = 0, k = 0; item < 2; ++item) {
    for (int block = 0; block < 4; ++block) {
      for (int j = 0; j < 3; ++j, ++k) {
        wrong += in[static_cast<std::size_t>(k)] != value(x.left(), item * span + block * 5 + j, 1);
      }
    }
  }
  t.expect_eq(wrong, 0, "vector->contiguous: wrong elements");
  t.expect_eq(count_of(st, row), 2, "count in rows");
  t.expect_eq(count_of(st, MPI_INT), 24, "count in ints");
  t.out("vector->contiguous: {} wrong, count rows={} ints={} vectors={}", wrong, count_of(st, row),
        count_of(st, MPI_INT), count_of(st, vec));
}

// 24 contiguous ints out, 2 x indexed([2 at 10, 4 at 0, 6 at 20]) in: the
// values land out of order, and everything between the blocks is a hole.
void contiguous_to_indexed(Context& t, Exchange& x) {
  const std::vector<int> blocks{2, 4, 6};
  const std::vector<int> displacements{10, 0, 20};
  Type idx(indexed(blocks, displacements, MPI_INT));
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(idx, &lb, &extent);
  const int span = static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int)));  // 26
  std::vector<int> out(24);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = value(t.rank(), static_cast<int>(i), 2);
  std::vector<int> in(static_cast<std::size_t>(2 * span), kHole);
  const api::Status st = x.exchange(out.data(), 24, MPI_INT, in.data(), 2, idx, 2);

  std::vector<int> expected(in.size(), kHole);
  for (int item = 0, k = 0; item < 2; ++item) {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (int j = 0; j < blocks[b]; ++j, ++k) {
        expected[static_cast<std::size_t>(item * span + displacements[b] + j)] =
            value(x.left(), k, 2);
      }
    }
  }
  int wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) wrong += in[i] != expected[i];
  t.expect_eq(wrong, 0, "contiguous->indexed: wrong elements or holes");
  t.out("contiguous->indexed: {} wrong, count indexed={} ints={}", wrong, count_of(st, idx),
        count_of(st, MPI_INT));
}

// A struct type out, a differently laid out struct type with the same
// signature (int, double, 3 chars) in.
struct Sent {
  int a;
  double b;
  char c[3];
};
struct Received {
  char pad0;
  double b;
  char pad1[5];
  char c[3];
  int a;
};

void struct_to_struct(Context& t, Exchange& x) {
  const int lengths[] = {1, 1, 3};
  const MPI_Datatype bases[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  const MPI_Aint sent_at[] = {offsetof(Sent, a), offsetof(Sent, b), offsetof(Sent, c)};
  const MPI_Aint received_at[] = {offsetof(Received, a), offsetof(Received, b),
                                  offsetof(Received, c)};
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  MPI_Datatype sized = MPI_DATATYPE_NULL;
  MPI_Type_create_struct(3, lengths, sent_at, bases, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(Sent), &sized);
  MPI_Type_free(&raw);
  Type sent_type(sized);
  MPI_Type_create_struct(3, lengths, received_at, bases, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(Received), &sized);
  MPI_Type_free(&raw);
  Type received_type(sized);

  constexpr int kCount = 5;
  std::vector<Sent> out(kCount);
  for (int i = 0; i < kCount; ++i) {
    out[static_cast<std::size_t>(i)] = {
        value(t.rank(), i, 3),
        0.5 * value(t.rank(), i, 4),
        {static_cast<char>('a' + i), 'x', static_cast<char>(t.rank() % 100)}};
  }
  std::vector<Received> in(kCount);
  std::memset(in.data(), 0x77, in.size() * sizeof(Received));
  const api::Status st =
      x.exchange(out.data(), kCount, sent_type, in.data(), kCount, received_type, 3);

  int wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    const Received& r = in[static_cast<std::size_t>(i)];
    wrong += r.a != value(x.left(), i, 3);
    wrong += r.b != 0.5 * value(x.left(), i, 4);
    wrong += r.c[0] != 'a' + i || r.c[1] != 'x' || r.c[2] != static_cast<char>(x.left() % 100);
    wrong += r.pad0 != 0x77;
    for (char p : r.pad1) wrong += p != 0x77;
  }
  t.expect_eq(wrong, 0, "struct->struct: wrong fields or padding");
  t.out("struct->struct: {} wrong, count structs={}", wrong, count_of(st, received_type));
}

// 5 ints received as pairs of ints: no whole number of pairs, so Get_count
// in pairs is MPI_UNDEFINED, while in ints it is 5.
void partial_count(Context& t, Exchange& x) {
  Type pair(contiguous(2, MPI_INT));
  std::vector<int> out{1, 2, 3, 4, 5};
  std::vector<int> in(6, kHole);
  const api::Status st = x.exchange(out.data(), 5, MPI_INT, in.data(), 3, pair, 4);
  t.expect_eq(count_of(st, pair), MPI_UNDEFINED, "count in pairs");
  t.expect_eq(count_of(st, MPI_INT), 5, "count in ints");
  t.expect_eq(in[5], kHole, "the sixth int");
  t.out("5 ints as pairs: pairs={} ints={}",
        count_of(st, pair) == MPI_UNDEFINED ? "UNDEFINED" : fmt::format("{}", count_of(st, pair)),
        count_of(st, MPI_INT));
}

// Large strided messages, past any eager limit, both directions, and a
// strided Sendrecv_replace.
void large_strided(Context& t, Exchange& x) {
  constexpr int kBlocks = 200000;
  Type strided(vector(kBlocks, 1, 2, MPI_INT));
  std::vector<int> wide(2 * kBlocks);
  for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = value(t.rank(), static_cast<int>(i), 5);
  std::vector<int> packed(kBlocks, kHole);
  api::Status st = x.exchange(wide.data(), 1, strided, packed.data(), kBlocks, MPI_INT, 5);
  int wrong = 0;
  for (int i = 0; i < kBlocks; ++i)
    wrong += packed[static_cast<std::size_t>(i)] != value(x.left(), 2 * i, 5);
  t.expect_eq(wrong, 0, "large vector->contiguous");
  t.expect_eq(count_of(st, MPI_INT), kBlocks, "large vector->contiguous: count");
  t.out("large vector->contiguous: {} wrong, ints={}", wrong, count_of(st, MPI_INT));

  std::vector<int> spread(2 * kBlocks, kHole);
  st = x.exchange(wide.data(), kBlocks, MPI_INT, spread.data(), 1, strided, 6);
  wrong = 0;
  for (int i = 0; i < 2 * kBlocks; ++i) {
    wrong += spread[static_cast<std::size_t>(i)] != (i % 2 ? kHole : value(x.left(), i / 2, 5));
  }
  t.expect_eq(wrong, 0, "large contiguous->vector");
  t.expect_eq(count_of(st, strided), 1, "large contiguous->vector: count");
  t.out("large contiguous->vector: {} wrong, vectors={}", wrong, count_of(st, strided));

  // In place through a strided type: only the even ints are exchanged.
  std::vector<int> buf = wide;
  st = {};
  const int right = x.right();
  t.check_rc(api::Sendrecv_replace(buf.data(), 1, strided, right, 7, x.left(), 7, t.comm(), &st),
             "Sendrecv_replace");
  wrong = 0;
  for (int i = 0; i < 2 * kBlocks; ++i) {
    wrong += buf[static_cast<std::size_t>(i)] != value(i % 2 ? t.rank() : x.left(), i, 5);
  }
  t.expect_eq(wrong, 0, "strided Sendrecv_replace");
  t.out("strided sendrecv_replace: {} wrong, {}", wrong, describe(st));
}

// A token passed round the ring: rank 0 sends first (non-blocking: alone,
// it sends to itself), every other rank receives with a blocking receive
// (mostly posted before its message is sent) and then sends its own. Rank 0
// receives last.
api::Status pass_token(Context& t, Exchange& x, const void* out, int count, MPI_Datatype send_type,
                       void* in, int recv_count, MPI_Datatype recv_type, int tag) {
  const int right = x.right();
  api::Status st{};
  if (t.rank() == 0) {
    api::Request request = api::REQUEST_NULL;
    t.check_rc(api::Isend(out, count, send_type, right, tag, t.comm(), &request), "Isend");
    t.check_rc(api::Recv(in, recv_count, recv_type, x.left(), tag, t.comm(), &st), "Recv");
    t.check_rc(api::Wait(&request, api::STATUS_IGNORE), "Wait");
    return st;
  }
  t.check_rc(api::Recv(in, recv_count, recv_type, x.left(), tag, t.comm(), &st), "Recv");
  t.check_rc(api::Send(out, count, send_type, right, tag, t.comm()), "Send");
  return st;
}

// Small blocking receives, which a sender in the same process may complete
// through the request rather than the buffer (up to 8 contiguous bytes): into
// a type whose data starts past its base (2 ints at displacement 3), into
// bytes, and just past that size; holes and counts as MPI has them.
void small_blocking(Context& t, Exchange& x) {
  Type at3(indexed({2}, {3}, MPI_INT));
  const int pair[2] = {value(t.rank(), 0, 8), value(t.rank(), 1, 8)};
  std::vector<int> in(6, kHole);
  api::Status st = pass_token(t, x, pair, 2, MPI_INT, in.data(), 1, at3, 8);
  int wrong = 0;
  for (int i = 0; i < 6; ++i) {
    const int expected = i == 3 ? value(x.left(), 0, 8) : i == 4 ? value(x.left(), 1, 8) : kHole;
    wrong += in[static_cast<std::size_t>(i)] != expected;
  }
  t.expect_eq(wrong, 0, "2 ints into indexed at 3");
  t.expect_eq(count_of(st, at3), 1, "2 ints into indexed at 3: count");
  t.out("2 ints into indexed at 3: {} wrong, {}", wrong, describe(st));

  const int three[3] = {value(t.rank(), 0, 9), value(t.rank(), 1, 9), value(t.rank(), 2, 9)};
  for (const int bytes : {0, 1, 8, 12}) {
    std::vector<unsigned char> got(16, 0xee);
    st = pass_token(t, x, three, bytes, MPI_BYTE, got.data(), 16, MPI_BYTE, 9);
    std::vector<unsigned char> expected(16, 0xee);
    const int sent[3] = {value(x.left(), 0, 9), value(x.left(), 1, 9), value(x.left(), 2, 9)};
    std::memcpy(expected.data(), sent, static_cast<std::size_t>(bytes));
    t.expect_eq(static_cast<int>(got == expected), 1, "small bytes payload");
    t.out("{} bytes: payload {}, {}", bytes, got == expected ? "right" : "wrong", describe(st));
  }
}

// Small non-blocking receives, which take the same way within a process:
// completed by Wait, and one freed while under way (Request_free), whose
// data must still reach its buffer. MPI matches a receive from one source
// before the later ones: once a second message from the same neighbour has
// arrived, the first is in the freed receive's buffer.
void small_nonblocking(Context& t, Exchange& x) {
  const int right = x.right();
  const std::int64_t out[2] = {value(t.rank(), 0, 10), value(t.rank(), 1, 10)};
  std::int64_t first = kHole;
  std::int64_t second = kHole;
  api::Request requests[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
  api::Request freed = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&first, 1, MPI_INT64_T, x.left(), 10, t.comm(), &freed), "Irecv");
  t.check_rc(api::Request_free(&freed), "Request_free");
  t.check_rc(api::Isend(&out[0], 1, MPI_INT64_T, right, 10, t.comm(), &requests[0]), "Isend");
  t.check_rc(api::Isend(&out[1], 1, MPI_INT64_T, right, 10, t.comm(), &requests[1]), "Isend");
  api::Request last = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&second, 1, MPI_INT64_T, x.left(), 10, t.comm(), &last), "Irecv");
  t.check_rc(api::Wait(&last, api::STATUS_IGNORE), "Wait");
  t.check_rc(api::Waitall(2, requests, api::STATUSES_IGNORE), "Waitall");
  t.expect_eq(first, std::int64_t{value(x.left(), 0, 10)}, "the freed receive's value");
  t.expect_eq(second, std::int64_t{value(x.left(), 1, 10)}, "the waited receive's value");
  t.out("freed receive: first {}, second {}", first == value(x.left(), 0, 10) ? "right" : "wrong",
        second == value(x.left(), 1, 10) ? "right" : "wrong");
}

// A receive freed while under way, whose message is followed by another of
// the same sender that a wildcard receive takes. Once the wildcard receive
// has the second message, the freed receive has matched the first, and its
// data must reach the buffer while the program goes on calling MPI (here:
// probes), though nothing tests the freed request. Between processes libep
// once left it in the receive's inbox buffer: a receive that completed from
// the unexpected queue, and probes, did not test receives posted in MPI.
void freed_before_wildcard(Context& t, Exchange& x) {
  const std::int64_t out[2] = {value(t.rank(), 2, 10), value(t.rank(), 3, 10)};
  std::int64_t first = kHole;
  std::int64_t second = kHole;
  api::Request freed = api::REQUEST_NULL;
  t.check_rc(api::Irecv(&first, 1, MPI_INT64_T, x.left(), 11, t.comm(), &freed), "Irecv");
  t.check_rc(api::Request_free(&freed), "Request_free");
  // Every freed receive is posted before anyone sends: the first message
  // matches it, not the wildcard receive.
  t.barrier();
  api::Request sends[2] = {api::REQUEST_NULL, api::REQUEST_NULL};
  t.check_rc(api::Isend(&out[0], 1, MPI_INT64_T, x.right(), 11, t.comm(), &sends[0]), "Isend");
  t.check_rc(api::Isend(&out[1], 1, MPI_INT64_T, x.right(), 12, t.comm(), &sends[1]), "Isend");
  // The second message is there before the wildcard receive starts, so that
  // the receive completes at once, waiting for nothing. The sends are waited
  // for only at the end: a send may complete only once it is received (MPICH
  // completes a send to itself so).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int there = 0; !there && std::chrono::steady_clock::now() < deadline;) {
    t.check_rc(api::Iprobe(MPI_ANY_SOURCE, 12, t.comm(), &there, api::STATUS_IGNORE), "Iprobe");
  }
  api::Status status{};
  t.check_rc(api::Recv(&second, 1, MPI_INT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, t.comm(), &status),
             "Recv");
  // Written by this thread inside the probes, or by an intra-process sender
  // before it sent the second message.
  while (first == kHole && std::chrono::steady_clock::now() < deadline) {
    int flag = 0;
    t.check_rc(api::Iprobe(MPI_ANY_SOURCE, 99, t.comm(), &flag, api::STATUS_IGNORE), "Iprobe");
  }
  // Read before the wait, which would move the freed receive on itself.
  const std::int64_t first_seen = first;
  t.check_rc(api::Waitall(2, sends, api::STATUSES_IGNORE), "Waitall");
  t.expect_eq(first_seen, std::int64_t{value(x.left(), 2, 10)}, "the freed receive's value");
  t.expect_eq(second, std::int64_t{value(x.left(), 3, 10)}, "the wildcard receive's value");
  t.expect_eq(status.MPI_TAG, 12, "the wildcard receive's tag");
  t.out("freed receive before a wildcard one: first {}, second {}",
        first_seen == value(x.left(), 2, 10) ? "right" : "wrong",
        second == value(x.left(), 3, 10) && status.MPI_TAG == 12 ? "right" : "wrong");
}

}  // namespace

void eptest::run(Context& t) {
  Exchange x(t);
  vector_to_contiguous(t, x);
  contiguous_to_indexed(t, x);
  struct_to_struct(t, x);
  partial_count(t, x);
  large_strided(t, x);
  small_blocking(t, x);
  small_nonblocking(t, x);
  freed_before_wildcard(t, x);
}
