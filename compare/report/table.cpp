// The terminal table: one block per problem, one line per variant, notes below.
#include "compare/report/text.hpp"

#include <algorithm>
#include <ostream>

namespace kl {

using namespace report_text;

namespace {

struct Column {
  std::string head;
  bool left;
};

void print_grid(std::ostream& os, const std::vector<Column>& cols,
                const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> w(cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) w[c] = cols[c].head.size();
  for (const auto& row : cells)
    for (std::size_t c = 0; c < cols.size(); ++c) w[c] = std::max(w[c], row[c].size());
  auto line = [&](const std::vector<std::string>& v) {
    os << " ";
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string pad(w[c] - v[c].size(), ' ');
      os << ' ' << (cols[c].left ? v[c] + pad : pad + v[c]);
    }
    os << '\n';
  };
  std::vector<std::string> heads;
  for (const auto& c : cols) heads.push_back(c.head);
  line(heads);
  for (const auto& row : cells) line(row);
}

}  // namespace

void print_table(std::ostream& os, const Report& rep) {
  for (const auto& group : by_problem(rep)) {
    const Row& first = *group.front();
    // The second rate's column (allreduce: algbw beside busbw) only where the metric has one.
    const bool also = !first.metric.also_name.empty();
    std::vector<Column> cols = {{"variant", true}, {"origin", true}, {"median", false}, {"min", false},
                                {"max", false},    {"noise", false}, {rate_head(first.metric), false}};
    if (also) cols.push_back({first.metric.also_name, false});
    for (const Column& c : std::vector<Column>{{"vs lib", false}, {"vs ceil", false}, {"check", true}}) cols.push_back(c);
    os << '\n' << problem_title(first);
    if (!first.metric.unit.empty()) os << "   " << (also ? rate_head(first.metric) + " and " + first.metric.also_name : "rate") << " in " << first.metric.unit;
    if (!first.metric.ceiling_label.empty()) os << ", ceiling: " << first.metric.ceiling_label;
    if (!first.library_name.empty()) os << ", library: " << first.library_name;
    os << '\n';
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> notes;
    for (const Row* r : group) {
      std::string name = r->variant + (r->source == Source::library ? " [lib]" : "");
      std::vector<std::string> cell;
      if (r->status == RowStatus::skipped || r->status == RowStatus::error) {
        cell = {name, r->origin, "-", "-", "-", "-", "-", "-", "-", std::string(status_name(r->status))};
      } else {
        cell = {name, r->origin,
                r->has_timing ? format_time_ms(r->time_ms.median) : "-",
                r->has_timing ? format_time_ms(r->time_ms.min) : "-",
                r->has_timing ? format_time_ms(r->time_ms.max) : "-",
                r->has_timing ? format_percent(r->time_ms.noise) + (r->converged ? "" : "*") : "-",
                throughput_text(*r), format_percent(r->vs_library), format_percent(r->vs_ceiling),
                check_text(*r)};
      }
      if (also) cell.insert(cell.begin() + 7, r->status == RowStatus::skipped || r->status == RowStatus::error ? "-" : also_text(*r));
      cells.push_back(std::move(cell));
      if (!r->note.empty() && (r->status != RowStatus::ok || r->slow_path)) notes.push_back(r->variant + ": " + r->note);
    }
    print_grid(os, cols, cells);
    for (const auto& n : notes) os << "    note: " << n << '\n';
  }
  os << "\n  check: worst |error| / bound on random inputs (pass <= 1); int ok/FAIL: equality on integer-valued"
        " inputs; (no lib): no library output to cross-check against. noise: relative std. dev. of samples"
        " (* = stopped by the time/sample cap before reaching the noise target)\n";
}

}  // namespace kl
