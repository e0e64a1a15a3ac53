// A message shorter than the receive buffer that ends inside an element of a
// derived receive type: MPI stores every basic element received, the first
// ones of the last element included, and MPI_Get_elements counts them.
// Receive types: a vector of 2 ints with stride 2, a vector of 2 blocks of 2
// ints with stride 3, a struct {int, double} with its padding. Each rank
// sends to its right neighbour the first m basic elements of the receive
// type's signature, for every m up to the buffer's capacity (and, past the
// eager limit, the sizes that end inside the last element), through three
// sender layouts: ints (a predefined type), the basic elements packed
// without gaps (a contiguous struct), spread apart (a non-contiguous
// struct); the receive is posted before the send, or the message arrives
// first. Every byte of the receive buffer is checked: received basic
// elements, untouched holes, untouched tail. (Under MPICH the large packed
// struct sends are left out: reference_mpi.hpp.)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "reference_mpi.hpp"

namespace {

using namespace eptest;

// A basic element of a type map: where it lies from its element's start.
struct Basic {
  MPI_Datatype type;
  std::size_t offset;
};

std::size_t size_of(MPI_Datatype basic) { return basic == MPI_DOUBLE ? 8 : 4; }

struct ReceiveType {
  std::string name;
  std::vector<Basic> map;  // one element's type map, in signature order
  std::size_t extent = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool ints_only = true;
};

MPI_Datatype committed(Context& t, MPI_Datatype type) {
  t.check_rc(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

std::vector<ReceiveType> receive_types(Context& t) {
  std::vector<ReceiveType> types;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_vector(2, 1, 2, MPI_INT, &type), "MPI_Type_vector");
  types.push_back({"vector(2,1,2)", {{MPI_INT, 0}, {MPI_INT, 8}}, 12, committed(t, type), true});
  t.check_rc(MPI_Type_vector(2, 2, 3, MPI_INT, &type), "MPI_Type_vector");
  types.push_back({"vector(2,2,3)",
                   {{MPI_INT, 0}, {MPI_INT, 4}, {MPI_INT, 12}, {MPI_INT, 16}},
                   20,
                   committed(t, type),
                   true});
  // {int, double} at their natural offsets, extent 16: a hole after the int.
  const int lengths[] = {1, 1};
  const MPI_Aint offsets[] = {0, 8};
  const MPI_Datatype bases[] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype raw = MPI_DATATYPE_NULL;
  t.check_rc(MPI_Type_create_struct(2, lengths, offsets, bases, &raw), "MPI_Type_create_struct");
  t.check_rc(MPI_Type_create_resized(raw, 0, 16, &type), "MPI_Type_create_resized");
  t.check_rc(MPI_Type_free(&raw), "MPI_Type_free");
  types.push_back(
      {"struct{int,double}", {{MPI_INT, 0}, {MPI_DOUBLE, 8}}, 16, committed(t, type), false});
  return types;
}

// Basic element j of the message from `rank`: its type and bytes.
MPI_Datatype basic_at(const ReceiveType& r, std::size_t j) { return r.map[j % r.map.size()].type; }
void value_bytes(int rank, int salt, std::size_t j, MPI_Datatype type, std::byte* out) {
  const long long v = rank * 1000003LL + salt * 7919LL + static_cast<long long>(j);
  if (type == MPI_DOUBLE) {
    const double d = static_cast<double>(v) + 0.25;
    std::memcpy(out, &d, sizeof d);
  } else {
    const int i = static_cast<int>(v);
    std::memcpy(out, &i, sizeof i);
  }
}

// The sender's buffer and type for the first m basic elements of r's
// signature: "ints" (MPI_INT, m), "packed" (one struct, no gaps: contiguous)
// or "spread" (one struct, one basic element every 16 bytes).
struct Outgoing {
  std::vector<std::byte> buffer;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int count = 0;
  bool derived = false;
};

Outgoing outgoing(Context& t, const ReceiveType& r, std::size_t m, const std::string& flavor,
                  int salt) {
  Outgoing o;
  if (flavor == "ints") {
    o.buffer.resize(std::max<std::size_t>(m, 1) * 4);
    for (std::size_t j = 0; j < m; ++j) value_bytes(t.rank(), salt, j, MPI_INT, &o.buffer[4 * j]);
    o.type = MPI_INT;
    o.count = static_cast<int>(m);
    return o;
  }
  const bool spread = flavor == "spread";
  std::vector<int> lengths(m, 1);
  std::vector<MPI_Aint> offsets(m);
  std::vector<MPI_Datatype> types(m);
  std::size_t at = 0;
  for (std::size_t j = 0; j < m; ++j) {
    types[j] = basic_at(r, j);
    offsets[j] = static_cast<MPI_Aint>(at);
    at += spread ? 16 : size_of(types[j]);
  }
  o.buffer.assign(std::max<std::size_t>(at, 1), std::byte{0x33});
  for (std::size_t j = 0; j < m; ++j) {
    value_bytes(t.rank(), salt, j, types[j], &o.buffer[static_cast<std::size_t>(offsets[j])]);
  }
  if (m == 0) {
    o.type = MPI_INT;
    return o;
  }
  t.check_rc(MPI_Type_create_struct(static_cast<int>(m), lengths.data(), offsets.data(),
                                    types.data(), &o.type),
             "MPI_Type_create_struct");
  o.type = committed(t, o.type);
  o.count = 1;
  o.derived = true;
  return o;
}

constexpr std::byte kHole{0x5a};
constexpr std::size_t kTail = 32;

// What the receive buffer must hold after the first m basic elements from
// `left` arrived.
std::vector<std::byte> expected(const ReceiveType& r, int capacity, std::size_t m, int left,
                                int salt) {
  std::vector<std::byte> buf(static_cast<std::size_t>(capacity) * r.extent + kTail, kHole);
  for (std::size_t j = 0; j < m; ++j) {
    const Basic& b = r.map[j % r.map.size()];
    value_bytes(left, salt, j, b.type, &buf[(j / r.map.size()) * r.extent + b.offset]);
  }
  return buf;
}

std::string shown(int n) { return n == MPI_UNDEFINED ? "UNDEFINED" : std::to_string(n); }

void one_case(Context& t, const ReceiveType& r, int capacity, std::size_t m,
              const std::string& flavor, bool posted_first, int tag) {
  const int right = (t.rank() + 1) % t.size();
  const int left = (t.rank() - 1 + t.size()) % t.size();
  Outgoing o = outgoing(t, r, m, flavor, tag);
  std::vector<std::byte> in(static_cast<std::size_t>(capacity) * r.extent + kTail, kHole);
  api::Request recv = api::REQUEST_NULL;
  api::Request send = api::REQUEST_NULL;
  api::Status st{};
  if (posted_first) {
    t.check_rc(api::Irecv(in.data(), capacity, r.type, left, tag, t.comm(), &recv), "Irecv");
    t.barrier();
    t.check_rc(api::Send(o.buffer.data(), o.count, o.type, right, tag, t.comm()), "Send");
    t.check_rc(api::Wait(&recv, &st), "Wait");
  } else {
    t.check_rc(api::Isend(o.buffer.data(), o.count, o.type, right, tag, t.comm(), &send), "Isend");
    t.barrier();
    t.check_rc(api::Recv(in.data(), capacity, r.type, left, tag, t.comm(), &st), "Recv");
    t.check_rc(api::Wait(&send, api::STATUS_IGNORE), "Wait");
  }
  if (o.derived) t.check_rc(MPI_Type_free(&o.type), "MPI_Type_free");

  const std::vector<std::byte> want = expected(r, capacity, m, left, tag);
  int wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) wrong += in[i] != want[i];
  int count = -1;
  int elements = -1;
  MPI_Count elements_x = -1;
  int ints = -1;
  int doubles = -1;
  t.check_rc(api::Get_count(&st, r.type, &count), "Get_count");
  t.check_rc(api::Get_elements(&st, r.type, &elements), "Get_elements");
  t.check_rc(api::Get_elements_x(&st, r.type, &elements_x), "Get_elements_x");
  t.check_rc(api::Get_elements(&st, MPI_INT, &ints), "Get_elements(MPI_INT)");
  t.check_rc(api::Get_elements(&st, MPI_DOUBLE, &doubles), "Get_elements(MPI_DOUBLE)");
  const std::string what = fmt::format("{} <- {} {} of {}, {}", r.name, m, flavor,
                                       capacity * static_cast<int>(r.map.size()),
                                       posted_first ? "posted" : "unexpected");
  t.expect_eq(wrong, 0, what + ": wrong bytes in the receive buffer");
  const int whole = static_cast<int>(m / r.map.size());
  t.expect_eq(count, m % r.map.size() ? MPI_UNDEFINED : whole, what + ": Get_count");
  t.expect_eq(elements, static_cast<int>(m), what + ": Get_elements");
  t.expect_eq(elements_x, static_cast<MPI_Count>(m), what + ": Get_elements_x");
  t.out("{}: {} wrong bytes, count {} elements {} elements_x {} ints {} doubles {}", what, wrong,
        shown(count), shown(elements), elements_x, shown(ints), shown(doubles));
}

}  // namespace

void eptest::run(Context& t) {
  std::vector<ReceiveType> types = receive_types(t);
  int tag = 0;
  for (const ReceiveType& r : types) {
    const std::size_t k = r.map.size();
    std::vector<std::string> flavors{"packed", "spread"};
    if (r.ints_only) flavors.insert(flavors.begin(), "ints");
    // Two elements, every length; then past the eager limit (16 KiB within a
    // process), the lengths that end inside the last element, and a full one.
    struct Sizes {
      int capacity;
      std::vector<std::size_t> lengths;
    };
    std::vector<Sizes> sizes{{2, {}}};
    for (std::size_t m = 0; m <= 2 * k; ++m) sizes[0].lengths.push_back(m);
    constexpr int kLarge = 3000;
    Sizes large{kLarge, {}};
    for (std::size_t rest = k; rest >= 1; --rest) large.lengths.push_back(kLarge * k - rest + 1);
    sizes.push_back(large);
    for (const Sizes& s : sizes) {
      for (const std::size_t m : s.lengths) {
        for (const std::string& flavor : flavors) {
          if (flavor == "packed" && !r.ints_only && s.capacity == kLarge &&
              reference::kPackedStructRendezvousTruncates) {
            continue;
          }
          for (const bool posted_first : {true, false}) {
            one_case(t, r, s.capacity, m, flavor, posted_first, ++tag);
          }
        }
      }
    }
  }
  for (ReceiveType& r : types) t.check_rc(MPI_Type_free(&r.type), "MPI_Type_free");
}
