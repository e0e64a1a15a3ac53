#include "coll/blocks.hpp"

namespace ep::detail {

namespace {

bool usable(int n, const int* counts, const int* displs, const BlockNames& names, LocalError& err) {
  return check_counts(counts, n, names.counts, err) &&
         (displs != nullptr || n == 0 ||
          err.note(MPI_ERR_ARG, "{} is a null pointer", names.displs));
}

}  // namespace

template <class Void>
std::vector<BasicTyped<Void>> v_blocks(Void* buf, int n, const int* counts, const int* displs,
                                       MPI_Datatype type, const TypeLayout& layout,
                                       const BlockNames& names, LocalError& err) {
  std::vector<BasicTyped<Void>> blocks(static_cast<std::size_t>(n));
  if (!usable(n, counts, displs, names, err)) return blocks;
  const BasicTyped<Void> all{buf, 0, type, layout};
  for (int r = 0; r < n; ++r) blocks[static_cast<std::size_t>(r)] = all.slice(displs[r], counts[r]);
  return blocks;
}

template <class Void>
std::vector<BasicTyped<Void>> w_blocks(Void* buf, int n, const int* counts, const int* displs,
                                       const MPI_Datatype* types, const BlockNames& names,
                                       LocalError& err) {
  std::vector<BasicTyped<Void>> blocks(static_cast<std::size_t>(n));
  if (!usable(n, counts, displs, names, err)) return blocks;
  if (types == nullptr && n > 0) {
    err.note(MPI_ERR_ARG, "{} is a null pointer", names.types);
    return blocks;
  }
  using Byte = typename BasicTyped<Void>::Byte;
  for (int r = 0; r < n; ++r) {
    BasicTyped<Void>& b = blocks[static_cast<std::size_t>(r)];
    MPI_Datatype type = types[r];
    // A bad type is MPI_BYTE with count 0 after local_type; the others' blocks stay.
    const bool good = local_type(&type, &b.layout, names.types, err);
    b.buf = static_cast<Byte*>(buf) + displs[r];
    b.count = good ? counts[r] : 0;
    b.type = type;
  }
  return blocks;
}

template std::vector<ConstTyped> v_blocks(const void*, int, const int*, const int*, MPI_Datatype,
                                          const TypeLayout&, const BlockNames&, LocalError&);
template std::vector<Typed> v_blocks(void*, int, const int*, const int*, MPI_Datatype,
                                     const TypeLayout&, const BlockNames&, LocalError&);
template std::vector<ConstTyped> w_blocks(const void*, int, const int*, const int*,
                                          const MPI_Datatype*, const BlockNames&, LocalError&);
template std::vector<Typed> w_blocks(void*, int, const int*, const int*, const MPI_Datatype*,
                                     const BlockNames&, LocalError&);

}  // namespace ep::detail
