// ep-bench rma: what the options ask to measure. The names of operations,
// synchronisations and datatypes as the command line, the tables and the
// JSON results spell them, and the list of cases (one operation under one
// synchronisation at one size) that rma.cpp measures and reports.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "rma.hpp"
#include "rma_kernels.hpp"

namespace ep::bench::rma_bench {

enum class RmaTest { latency, bandwidth };

/// One benchmark: an operation under a synchronisation, at one size.
struct RmaCase {
  RmaTest test = RmaTest::latency;
  RmaSync sync = RmaSync::flush;
  RmaShape shape;
};

const char* test_name(RmaTest t);
const char* op_name(RmaOp op);
/// The operation named `name`; std::invalid_argument if none is.
RmaOp op_of(const std::string& name);
const char* sync_name(RmaSync s);
/// The synchronisation named `name`; std::invalid_argument if none is.
RmaSync sync_of(const std::string& name);
const char* type_name(MPI_Datatype t);

/// Whether `list` (an option's values) holds `item`.
bool wants(const std::vector<std::string>& list, const char* item);
#ifdef OPEN_MPI
/// Only --test create (which mpi-threads refuses anyway) asked for.
bool cases_need_no_window(const RmaOptions& o);
#endif
/// The element size of fop and cas.
int atomic_bytes_of(const RmaOptions& o, RmaOp op);
/// Every case the options ask for, in the order they run; UsageError for
/// a combination that cannot run.
std::vector<RmaCase> plan_rma_cases(const RmaOptions& o, Impl impl);

}  // namespace ep::bench::rma_bench
