#include "coll/gathered.hpp"

#include <cstring>

namespace ep::detail {

namespace {

std::int64_t word(const std::byte* at, std::size_t i) {
  std::int64_t v = 0;
  std::memcpy(&v, at + i * sizeof(v), sizeof(v));
  return v;
}

}  // namespace

int pack_blocks(const std::vector<ConstTyped>& blocks, std::vector<std::byte>* out) {
  std::vector<std::int64_t> header{static_cast<std::int64_t>(blocks.size())};
  for (const ConstTyped& b : blocks) header.push_back(b.bytes());
  std::size_t at = header.size() * sizeof(std::int64_t);
  std::size_t total = at;
  for (std::size_t i = 1; i < header.size(); ++i) total += static_cast<std::size_t>(header[i]);
  out->resize(total);
  std::memcpy(out->data(), header.data(), at);
  int rc = MPI_SUCCESS;
  for (const ConstTyped& b : blocks) {
    const int pack_rc = pack(b, out->data() + at);
    if (rc == MPI_SUCCESS) rc = pack_rc;
    at += static_cast<std::size_t>(b.bytes());
  }
  return rc;
}

std::int64_t block_count(const std::byte* at) { return word(at, 0); }

Piece block_of(const std::byte* at, std::size_t j) {
  const auto n = static_cast<std::size_t>(word(at, 0));
  if (j >= n) return {};
  auto skip = static_cast<std::int64_t>(header_bytes(n));
  for (std::size_t k = 0; k < j; ++k) skip += word(at, k + 1);
  return {at + skip, word(at, j + 1)};
}

int unpack_piece(const Piece& p, const Typed& to) {
  if (p.length > to.bytes()) return MPI_ERR_TRUNCATE;
  return unpack(p.data, p.length, to);
}

int take_blocks(const Gathered& g, const std::vector<int>& from, std::size_t block,
                const std::vector<Typed>& recv) {
  int rc = MPI_SUCCESS;
  for (std::size_t q = 0; q < recv.size() && q < from.size() && rc == MPI_SUCCESS; ++q) {
    rc = unpack_piece(piece_of(g, from[q], block), recv[q]);
  }
  return rc;
}

int fold(const Gathered& g, const std::vector<int>& from, const Typed& into, MPI_Op op) {
  const TypedScratch scratch(into.count, into.type, into.layout);
  int rc = MPI_SUCCESS;
  for (std::size_t i = from.size(); i-- > 0 && rc == MPI_SUCCESS;) {
    const Piece p = piece_of(g, from[i], 0);
    if (i + 1 == from.size()) {
      rc = unpack_piece(p, into);
    } else {
      rc = unpack_piece(p, scratch.typed());
      if (rc == MPI_SUCCESS) {
        rc = MPI_Reduce_local(scratch.base(), into.buf, into.count, into.type, op);
      }
    }
  }
  return rc;
}

}  // namespace ep::detail
