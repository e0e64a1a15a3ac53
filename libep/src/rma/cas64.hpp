// A defect of Open MPI 4 that the RMA operations (rma/ops.cpp) work around:
// docs/design.md, "MPI defects worked around".
#pragma once

namespace ep::detail {

// Open MPI 4.1.4 segfaults in 8-byte MPI_Compare_and_swap, between processes
// and to its own process (osc/rdma over btl/vader's emulated atomics,
// mca_btl_vader_emu_acswap: research rma.md 2.1, open-mpi/ompi#11349),
// Win_allocate and Win_create alike, even with one thread. No window info
// key avoids it (tried: acc_single_intrinsic true and false, accumulate_ops,
// accumulate_ordering, with the research's atomics_min.cpp); two MCA
// settings do (`btl_vader_single_copy_mechanism none`, `osc ucx`). An
// emulation from other MPI operations would not be atomic with concurrent
// accumulates on the same word, so libep refuses the call unless one of
// those settings is in force.
bool cas64_crashes();

}  // namespace ep::detail
