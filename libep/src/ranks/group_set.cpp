#include "ranks/group_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ep::detail {

int rank_in(const Members& g, std::int64_t identity) {
  const auto it = std::find(g.begin(), g.end(), identity);
  return it == g.end() ? -1 : static_cast<int>(it - g.begin());
}

GroupRelation compare_groups(const Members& a, const Members& b) {
  if (a == b) return GroupRelation::ident;
  if (a.size() != b.size()) return GroupRelation::unequal;
  Members sa = a;
  Members sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb ? GroupRelation::similar : GroupRelation::unequal;
}

Members group_union(const Members& a, const Members& b) {
  Members out = a;
  const std::unordered_set<std::int64_t> in_a(a.begin(), a.end());
  for (std::int64_t m : b) {
    if (!in_a.count(m)) out.push_back(m);
  }
  return out;
}

Members group_intersection(const Members& a, const Members& b) {
  const std::unordered_set<std::int64_t> in_b(b.begin(), b.end());
  Members out;
  for (std::int64_t m : a) {
    if (in_b.count(m)) out.push_back(m);
  }
  return out;
}

Members group_difference(const Members& a, const Members& b) {
  const std::unordered_set<std::int64_t> in_b(b.begin(), b.end());
  Members out;
  for (std::int64_t m : a) {
    if (!in_b.count(m)) out.push_back(m);
  }
  return out;
}

RanksError check_ranks(int size, std::span<const int> ranks, std::string* why) {
  std::vector<bool> seen(static_cast<std::size_t>(std::max(size, 0)), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size) {
      *why = fmt::format("ranks[{}] = {} is not a rank of the group (size {})", i, r, size);
      return RanksError::rank;
    }
    if (seen[static_cast<std::size_t>(r)]) {
      *why = fmt::format("rank {} is given twice (ranks[{}])", r, i);
      return RanksError::rank;
    }
    seen[static_cast<std::size_t>(r)] = true;
  }
  return RanksError::none;
}

Members group_incl(const Members& g, std::span<const int> ranks) {
  Members out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(g[static_cast<std::size_t>(r)]);
  return out;
}

Members group_excl(const Members& g, std::span<const int> ranks) {
  std::vector<bool> drop(g.size(), false);
  for (int r : ranks) drop[static_cast<std::size_t>(r)] = true;
  Members out;
  for (std::size_t r = 0; r < g.size(); ++r) {
    if (!drop[r]) out.push_back(g[r]);
  }
  return out;
}

RanksError expand_ranges(int size, std::span<const std::array<int, 3>> ranges,
                         std::vector<int>* ranks, std::string* why) {
  ranks->clear();
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto [first, last, stride] = ranges[i];
    for (const int end : {first, last}) {
      if (end < 0 || end >= size) {
        *why = fmt::format("ranges[{}] = ({}, {}, {}): {} is not a rank of the group (size {})", i,
                           first, last, stride, end, size);
        return RanksError::arg;
      }
    }
    if (stride == 0 || (last > first && stride < 0) || (last < first && stride > 0)) {
      *why = fmt::format("ranges[{}] = ({}, {}, {}): the stride {} never reaches the last rank", i,
                         first, last, stride, stride);
      return RanksError::arg;
    }
    // Both ends are ranks, so the walk stays inside [0, size).
    const int steps = (last - first) / stride;
    for (int k = 0; k <= steps; ++k) ranks->push_back(first + k * stride);
  }
  if (check_ranks(size, *ranks, why) != RanksError::none) {
    *why = "the ranges name a rank twice: " + *why;
    return RanksError::arg;
  }
  return RanksError::none;
}

RanksError translate_ranks(const Members& from, std::span<const int> ranks, const Members& to,
                           int undefined, int proc_null, std::vector<int>* out, std::string* why) {
  std::unordered_map<std::int64_t, int> rank_of;
  for (std::size_t r = 0; r < to.size(); ++r) rank_of.emplace(to[r], static_cast<int>(r));
  out->clear();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    if (r == proc_null) {
      out->push_back(proc_null);
      continue;
    }
    if (r < 0 || r >= static_cast<int>(from.size())) {
      *why = fmt::format("ranks1[{}] = {} is not a rank of group1 (size {})", i, r, from.size());
      return RanksError::rank;
    }
    const auto it = rank_of.find(from[static_cast<std::size_t>(r)]);
    out->push_back(it == rank_of.end() ? undefined : it->second);
  }
  return RanksError::none;
}

}  // namespace ep::detail
