// The set arithmetic of groups (ep/group.hpp): pure functions, no MPI.
//
// A group is an ordered list of endpoint identities (Endpoint::identity),
// as an MPI group is an ordered list of processes; its ranks are the
// positions in the list. Identities survive dup, split and inter-
// communicator creation, so groups of different communicators compare and
// translate as MPI groups of processes do.
//
// Worked example: a = [A, B, C, D], b = [D, B, E] (letters are identities)
//
//   union(a, b)         [A, B, C, D, E]   a's order, then b's newcomers
//   intersection(a, b)  [B, D]            a's order
//   difference(a, b)    [A, C]            a's order
//   translate a's ranks 1, 2, 3 into b: 1, UNDEFINED, 0
//   range (3, 0, -2) of a: ranks 3, 1 -> [D, B]
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ep::detail {

using Members = std::vector<std::int64_t>;

/// How two groups relate (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL).
enum class GroupRelation { ident, similar, unequal };

/// What is wrong with ranks or ranges given to a group operation: a rank
/// out of range or repeated (MPI_ERR_RANK), a range that cannot be walked
/// (MPI_ERR_ARG), or a negative count (MPI_ERR_ARG).
enum class RanksError { none, rank, arg };

/// The rank of `identity` in `g`, or -1.
int rank_in(const Members& g, std::int64_t identity);

GroupRelation compare_groups(const Members& a, const Members& b);
Members group_union(const Members& a, const Members& b);
Members group_intersection(const Members& a, const Members& b);
Members group_difference(const Members& a, const Members& b);

/// Checks that `ranks` are ranks of a group of `size`, each at most once;
/// on failure `why` says which.
RanksError check_ranks(int size, std::span<const int> ranks, std::string* why);
/// The members at `ranks`, in that order (checked by check_ranks).
Members group_incl(const Members& g, std::span<const int> ranks);
/// The members not at `ranks`, in group order (checked by check_ranks).
Members group_excl(const Members& g, std::span<const int> ranks);

/// The ranks (first, last, stride) triplets name, in order: first,
/// first + stride, ... while not past last. Any bad triplet is
/// RanksError::arg, as MPICH 4.0 has it (Open MPI 4.1 says MPI_ERR_RANK):
/// a stride of 0 or one that walks away from last, a first or last that is
/// not a rank of a group of `size`, a rank named twice. Fills `ranks` when
/// it returns none.
RanksError expand_ranges(int size, std::span<const std::array<int, 3>> ranges,
                         std::vector<int>* ranks, std::string* why);

/// Each of `ranks` (ranks of `from`) as a rank of `to`: `undefined` where
/// `to` lacks the member, `proc_null` stays `proc_null`. The ranks must be
/// ranks of `from` or `proc_null` (check first: RanksError::rank).
RanksError translate_ranks(const Members& from, std::span<const int> ranks, const Members& to,
                           int undefined, int proc_null, std::vector<int>* out, std::string* why);

}  // namespace ep::detail
