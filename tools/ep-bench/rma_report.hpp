// ep-bench rma: its tables and JSON entries, one per case (an operation
// under a synchronisation at one size), from the times rma.cpp measured.
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "measure.hpp"
#include "pairs.hpp"
#include "report.hpp"
#include "rma_cases.hpp"
#include "session.hpp"

namespace ep::bench::rma_bench {

/// Tables and JSON entries of the latency and bandwidth cases. Every
/// process's worker 0 calls it alike; only the writer prints and keeps.
class RmaReport {
 public:
  RmaReport(const RmaOptions& o, const PairLayout& l, Session& session)
      : options_(o), layout_(l), session_(session), out_(session.table_out()) {}

  void begin(const RmaCase& c);
  void repetition_done(const RmaCase& c, int repetition);
  void add(const RmaCase& c, const Measurement<>& m, int win_model);
  std::int64_t validation_errors() const { return validation_errors_; }

 private:
  Table table_for(const RmaCase& c) const;
  std::string what(const RmaCase& c) const {
    return fmt::format("{} {} --sync {}", test_name(c.test), op_name(c.shape.op),
                       sync_name(c.sync));
  }

  const RmaOptions& options_;
  const PairLayout& layout_;
  Session& session_;
  std::FILE* out_;
  std::string current_;
  std::int64_t validation_errors_ = 0;
};

}  // namespace ep::bench::rma_bench
