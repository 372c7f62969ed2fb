// What the table, markdown and CSV writers say alike about a row (internal to compare/report/).
#pragma once

#include "compare/report/report.hpp"

#include <string>
#include <vector>

namespace kl::report_text {

std::string fmt(const char* f, double v);         // snprintf of one number
std::string throughput_text(const Row& r);        // the rate with the metric's decimals, "-" untimed
std::string also_text(const Row& r);              // the metric's second rate (Metric::also_name)
std::string rate_head(const Metric& m);           // the rate column's name ("rate" unless named)
std::string check_text(const Row& r);             // "pass 0.31", "pass exact, int ok", "FAIL (lib FAIL)"
std::vector<std::vector<const Row*>> by_problem(const Report& r);  // rows by problem, in order
std::string problem_title(const Row& r);          // "reduce  float  n=1024"

}  // namespace kl::report_text
