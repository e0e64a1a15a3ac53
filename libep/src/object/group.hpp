// The object behind ep::Group.
#pragma once

#include <cstdint>

#include "ep/types.hpp"
#include "ranks/group_set.hpp"

namespace ep::detail {

struct GroupImpl {
  static constexpr std::uint32_t kMagic = 0x67727570;  // "grup"

  std::uint32_t magic = kMagic;
  // The identity of the endpoint the group belongs to (ep/group.hpp): the
  // "calling process" of Group_rank. -1 for GROUP_EMPTY, which belongs to
  // nobody and has no members anyway.
  std::int64_t owner = -1;
  Members members;          // identities, by rank
  bool predefined = false;  // GROUP_EMPTY: never deleted

  bool is_valid() const { return magic == kMagic; }
};

}  // namespace ep::detail
