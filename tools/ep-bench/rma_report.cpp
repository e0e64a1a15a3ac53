#include "rma_report.hpp"

#include <vector>

#include "sizes.hpp"
#include "watchdog.hpp"

namespace ep::bench::rma_bench {

Table RmaReport::table_for(const RmaCase& c) const {
  std::vector<Table::Column> columns{{"bytes", 9}};
  if (c.test == RmaTest::latency)
    columns.insert(columns.end(), {{"iters", 9}, {"median", 11}, {"min", 11}, {"p90", 11}});
  else
    columns.insert(columns.end(), {{"window", 8}, {"median MB/s", 13}, {"min", 11}, {"max", 11}});
  if (options_.bench.validate) columns.push_back({"valid", 9});
  return Table(out_, std::move(columns));
}

void RmaReport::begin(const RmaCase& c) {
  watchdog_case(fmt::format("rma {} {} B", what(c), format_size(c.shape.bytes)));
  if (!session_.writer() || current_ == what(c)) return;
  current_ = what(c);
  session_.clear_progress();
  const Table table = table_for(c);
  table.print_title(fmt::format(
      "rma {} --impl {} --placement {} --window-kind {}: {} pair{}, {}, {} repetitions ({})",
      what(c), impl_name(layout_.impl), layout_.placement(), options_.window_kind, layout_.pairs,
      layout_.pairs == 1 ? "" : "s", type_name(c.shape.type), options_.bench.repetitions,
      c.test == RmaTest::latency ? "us per operation" : "MB/s, all pairs together"));
  table.print_header();
}

void RmaReport::repetition_done(const RmaCase& c, int repetition) {
  session_.progress(fmt::format("rma {} {} bytes: repetition {}/{}", what(c),
                                format_size(c.shape.bytes), repetition + 1,
                                options_.bench.repetitions));
}

void RmaReport::add(const RmaCase& c, const Measurement<>& m, int win_model) {
  // Reduced over all ranks: every process counts alike and exits alike.
  validation_errors_ += m.validation_errors.value_or(0);
  if (!session_.writer()) return;
  const bool latency = c.test == RmaTest::latency;
  Series s;
  s.name =
      fmt::format("rma/{}/{}/{}/{}/{}/{}", test_name(c.test), op_name(c.shape.op),
                  sync_name(c.sync), impl_name(layout_.impl), layout_.placement(), c.shape.bytes);
  if (layout_.pairs > 1) s.name += fmt::format("/pairs:{}", layout_.pairs);
  s.family = fmt::format("rma/{}/{}/{}", test_name(c.test), op_name(c.shape.op), sync_name(c.sync));
  s.labels = {{"impl", impl_name(layout_.impl)},
              {"placement", layout_.placement()},
              {"pairs", layout_.pairs},
              {"ranks", 2 * layout_.pairs},
              {"bytes", c.shape.bytes},
              {"op", op_name(c.shape.op)},
              {"sync", sync_name(c.sync)},
              {"window_kind", options_.window_kind},
              {"datatype", type_name(c.shape.type)},
              {"win_model", win_model == MPI_WIN_UNIFIED    ? "unified"
                            : win_model == MPI_WIN_SEPARATE ? "separate"
                                                            : "unknown"}};
  if (!latency) s.labels["window"] = c.shape.slots;
  s.iterations = m.iterations;
  // Latency: real_time per operation (a fence iteration is two one-way
  // trips); bandwidth: per operation of one pair, rates over all pairs.
  const double per_iteration =
      latency ? (c.sync == RmaSync::fence ? 2.0 : 1.0) : static_cast<double>(c.shape.slots);
  for (const auto& seconds : m.repetitions) {
    const double ops = static_cast<double>(m.iterations) * per_iteration;
    Repetition r;
    r.real_time = seconds[0] / ops * 1e6;
    r.cpu_time = seconds[1] / ops * 1e6;
    if (!latency && seconds[0] > 0) {
      r.items_per_second = ops * layout_.pairs / seconds[0];
      r.bytes_per_second = *r.items_per_second * static_cast<double>(c.shape.bytes);
    }
    s.repetitions.push_back(r);
  }
  s.validation_errors = m.validation_errors;
  const Noise noise = session_.add(s);
  std::vector<std::string> row{format_size(c.shape.bytes)};
  if (latency) {
    const Summary t = summarize_metric(s, &Repetition::real_time);
    row.insert(row.end(), {std::to_string(s.iterations), format_number(t.median),
                           format_number(t.min), format_number(t.p90)});
  } else {
    const Summary bw = summarize_metric(s, &Repetition::bytes_per_second).value_or(Summary{});
    row.insert(row.end(), {std::to_string(c.shape.slots), format_number(bw.median * 1e-6),
                           format_number(bw.min * 1e-6), format_number(bw.max * 1e-6)});
  }
  if (s.validation_errors)
    row.push_back(*s.validation_errors == 0 ? "ok" : fmt::format("{} BAD", *s.validation_errors));
  table_for(c).print_row(row, noise_mark(noise));
}

}  // namespace ep::bench::rma_bench
