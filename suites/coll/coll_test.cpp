#include "coll_test.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace eptest::coll {

namespace {

Sub describe(capi::Comm comm, std::string name) {
  Sub s{comm, std::move(name)};
  if (comm != capi::Comm{}) {
    capi::Comm_rank(comm, &s.rank);
    capi::Comm_size(comm, &s.size);
  }
  return s;
}

}  // namespace

std::vector<Sub> make_subs(Context& t) {
  std::vector<Sub> subs{describe(t.comm(), "comm")};
  const int r = t.rank();
  const int n = t.size();
  capi::Comm interleaved{};
  t.check_rc(capi::Comm_split(t.comm(), 0, (r % 2) * n + r, &interleaved),
             "Comm_split interleaved");
  subs.push_back(describe(interleaved, "interleaved"));
  capi::Comm reversed{};
  t.check_rc(capi::Comm_split(t.comm(), 0, n - r, &reversed), "Comm_split reversed");
  subs.push_back(describe(reversed, "reversed"));
  capi::Comm parity{};
  t.check_rc(capi::Comm_split(t.comm(), r % 2, r, &parity), "Comm_split parity");
  subs.push_back(describe(parity, r % 2 == 0 ? "even" : "odd"));
  return subs;
}

void free_subs(Context& t, std::vector<Sub>& subs) {
  for (std::size_t i = 1; i < subs.size(); ++i) {
    t.check_rc(capi::Comm_free(&subs[i].comm), "Comm_free " + subs[i].name);
  }
  subs.resize(1);
}

bool selected(const Context& t, const Sub& s) {
  const std::string only = t.params().get("subs", "");
  if (only.empty()) return true;
  return ("," + only + ",").find("," + s.name + ",") != std::string::npos;
}

std::vector<int> values(int step, int rank, int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = value(step, rank, i);
  return v;
}

std::string digest(const int* data, std::size_t count) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < count; ++i) {
    h ^= static_cast<std::uint32_t>(data[i]);
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

bool ok(Context& t, const Sub& s, int rc, const std::string& call) {
  return t.check_rc(rc, s.name + ": " + call);
}

bool same(Context& t, const Sub& s, const std::vector<int>& got, const std::vector<int>& want,
          const std::string& what) {
  if (got.size() != want.size()) {
    t.fail(fmt::format("{}: {}: {} elements, expected {}", s.name, what, got.size(), want.size()));
    return false;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      t.fail(
          fmt::format("{}: {}: element {} is {}, expected {}", s.name, what, i, got[i], want[i]));
      return false;
    }
  }
  return true;
}

Inter make_inter(Context& t, const std::string& kind, int tag) {
  Inter x;
  x.name = kind;
  std::vector<int> members[2];
  for (int r = 0; r < t.size(); ++r) {
    members[kind == "parity" ? r % 2 : (r < t.size() / 2 ? 0 : 1)].push_back(r);
  }
  x.group = std::count(members[0].begin(), members[0].end(), t.rank()) ? 0 : 1;
  x.mine = members[x.group];
  x.other = members[1 - x.group];
  x.rank = static_cast<int>(std::find(x.mine.begin(), x.mine.end(), t.rank()) - x.mine.begin());
  t.check_rc(capi::Comm_split(t.comm(), x.group, t.rank(), &x.local), "Comm_split");
  t.check_rc(capi::Intercomm_create(x.local, 0, t.comm(), x.other[0], tag, &x.comm),
             "Intercomm_create");
  return x;
}

}  // namespace eptest::coll
