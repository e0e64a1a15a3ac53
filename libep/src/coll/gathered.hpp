// Every endpoint's contribution, gathered to every process: what the
// inter-communicator collectives (coll/inter.cpp) and the non-blocking
// collectives (coll/nonblocking.hpp) are built on.
//
// A contribution is a list of blocks, packed one after the other behind a
// header of their number and lengths (pack_blocks). Once every endpoint's
// contribution is at every process, each endpoint takes what it needs: its
// blocks from the ranks that send to it (take_blocks), or the reduction of
// the ranks' first blocks in rank order (fold). Exact for every op and
// datatype, linear in the total size.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/datatype.hpp"

namespace ep::detail {

/// Every endpoint's packed contribution, by union rank: at[u] is where rank
/// u's starts (in memory the gatherer owns).
class ProcessStep;  // coll/nonblocking.hpp

struct Gathered {
  std::vector<const std::byte*> at;
  // Instead, for the non-blocking collectives whose process made one MPI
  // collective (coll/nonblocking.hpp, ProcessStep): its result.
  const std::byte* result = nullptr;
  // And the step itself, for what only it holds (Comm_idup's communicators).
  ProcessStep* step = nullptr;
};

/// A contribution: `blocks` packed after a header of their number and
/// lengths. Returns an MPI error code (the header is written regardless).
int pack_blocks(const std::vector<ConstTyped>& blocks, std::vector<std::byte>* out);

/// The bytes of the header of a contribution of `blocks` blocks.
constexpr std::size_t header_bytes(std::size_t blocks) {
  return (blocks + 1) * sizeof(std::int64_t);
}

/// How many blocks the contribution at `at` holds.
std::int64_t block_count(const std::byte* at);

/// Block j of a contribution; empty when it has none.
struct Piece {
  const std::byte* data = nullptr;
  std::int64_t length = 0;
};
/// Block j of the contribution at `at`.
Piece block_of(const std::byte* at, std::size_t j);
/// Block j of union rank u's contribution.
inline Piece piece_of(const Gathered& g, int u, std::size_t j) {
  return block_of(g.at[static_cast<std::size_t>(u)], j);
}

/// Unpacks a piece, as a receive of `to` would: a longer message is a
/// truncation (MPI_ERR_TRUNCATE).
int unpack_piece(const Piece& p, const Typed& to);

/// Block `block` of the contribution of `from[q]` into recv[q], for every q
/// both have (none when recv is empty). Returns an MPI error code.
int take_blocks(const Gathered& g, const std::vector<int>& from, std::size_t block,
                const std::vector<Typed>& recv);

/// The reduction by `op` of the first blocks of `from`'s contributions, in
/// the order of `from` (rank order: acc = c[q] op acc from the last down,
/// which keeps a non-commutative op's order), into `into`. `from` is not
/// empty. Returns an MPI error code.
int fold(const Gathered& g, const std::vector<int>& from, const Typed& into, MPI_Op op);

}  // namespace ep::detail
