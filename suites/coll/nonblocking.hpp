// What the two files of coll.nonblocking share: the element kinds a
// transfer is laid out in, and the parts of the test.
#pragma once

#include <string>
#include <vector>

#include "coll_test.hpp"

namespace eptest::coll::nb {

/// An element of `sig` ints: MPI_INT (sig 1), or a vector type of 2 ints
/// with stride 2 (sig 2), whose element spans 3 ints with a gap in the
/// middle that no collective may write. Elements follow each other at
/// `slot()` ints.
struct Kind {
  const char* name;
  MPI_Datatype type;
  int sig;
  int slot() const { return 2 * sig - 1; }
};

/// Writes the ints `ints` (a multiple of k.sig) as elements of `k` into
/// `buf` from element `at` on.
inline void put(const Kind& k, std::vector<int>& buf, int at, const std::vector<int>& ints) {
  const std::size_t slot = static_cast<std::size_t>(k.slot());
  const std::size_t sig = static_cast<std::size_t>(k.sig);
  for (std::size_t i = 0; i < ints.size(); ++i) {
    buf[static_cast<std::size_t>(at) * slot + (i / sig) * slot + (i % sig) * 2] = ints[i];
  }
}
/// `elements` elements of `k`, every int -1.
inline std::vector<int> blank(const Kind& k, int elements) {
  return std::vector<int>(static_cast<std::size_t>(elements * k.slot()), -1);
}
/// `ints` laid out as elements of `k`, gaps -1.
inline std::vector<int> lay(const Kind& k, const std::vector<int>& ints) {
  std::vector<int> buf = blank(k, static_cast<int>(ints.size()) / k.sig);
  put(k, buf, 0, ints);
  return buf;
}

/// Waits for `request`; it must succeed and reset the request.
inline void complete(Context& t, const Sub& s, capi::Request& request, const std::string& call) {
  api::Status status{};
  ok(t, s, capi::Wait(&request, &status), "Wait for " + call);
  t.check(request == capi::REQUEST_NULL, s.name + ": " + call + ": Wait resets the request");
}

/// Every I-function's payload on `s`, from both kinds on both sides
/// (nonblocking_payload.cpp).
void payloads(Context& t, const Sub& s, const Kind& ints, const Kind& vec);
/// Ireduce, Iallreduce, Ireduce_scatter(_block), Iscan and Iexscan with a
/// non-commutative user op on a padded type.
void noncommutative(Context& t, const Sub& s);

}  // namespace eptest::coll::nb
