// Name -> algorithm tables of the collectives that have more than one.
//
// Each table lists its algorithms in order of preference, each with when it
// is exact (gives what MPI specifies, for this op on this rank layout) and
// when it suits (is the fast choice, e.g. for this message size). The first
// exact and suitable entry is taken; the last entry of every table is its
// fallback, exact and suitable always, and its comment says when it is taken.
//
// EP_COLL_ALGORITHM=<name> (e.g. gather_all) makes every collective that has
// an algorithm of that name use it wherever it is exact, whatever it suits:
// for tests that must cover every path, and for benchmarks that compare them.
// An algorithm is never taken where it is not exact.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace ep::detail {

template <class Call>
struct Algorithm {
  const char* name;
  int (*run)(const Call&);
  bool (*exact)(const Call&);
  bool (*suits)(const Call&);
};

// Every algorithm name of the tables (coll/bcast.cpp, allreduce.cpp,
// reduce.cpp, reduce_scatter.cpp, scan.cpp), as docs/environment.md lists
// them for EP_COLL_ALGORITHM.
inline constexpr std::string_view kAlgorithmNames[] = {
    "mailbox", "direct", "leader", "shared", "gather_all", "scatter", "allreduce", "hierarchical"};

inline std::string_view forced_algorithm() {
  static const std::string_view forced = [] {
    const char* value = std::getenv("EP_COLL_ALGORITHM");
    if (!value || !*value) return std::string_view();
    const std::string_view name(value);
    for (std::string_view known : kAlgorithmNames) {
      if (name == known) return name;
    }
    // A misspelt name would otherwise measure the usual choice unnoticed.
    std::string names;
    for (std::string_view known : kAlgorithmNames) {
      names += names.empty() ? "" : ", ";
      names += known;
    }
    std::fprintf(stderr,
                 "libep: warning: EP_COLL_ALGORITHM='%s' is no algorithm of any collective "
                 "(%s): each collective chooses as usual\n",
                 value, names.c_str());
    return std::string_view();
  }();
  return forced;
}

template <class Call>
const Algorithm<Call>& choose(std::span<const Algorithm<Call>> table, const Call& call) {
  const std::string_view forced = forced_algorithm();
  if (!forced.empty()) {
    for (const Algorithm<Call>& a : table) {
      if (forced == a.name && a.exact(call)) return a;
    }
  }
  for (const Algorithm<Call>& a : table) {
    if (a.exact(call) && a.suits(call)) return a;
  }
  return table.back();
}

inline bool always(const auto&) { return true; }

}  // namespace ep::detail
