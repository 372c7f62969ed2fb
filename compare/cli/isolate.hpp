// compare --isolate: every problem runs in a child process (this executable again, with internal
// --worker options), so a kernel that faults (an illegal address, a trap: errors that leave the
// CUDA context unusable, or a crash of the process) loses only its own row. When a child stops
// early, the problem is resumed in a new child without the variant that stopped it, until every
// selected variant has a row. The cost is a CUDA context and library handles per child, a few
// hundred milliseconds per problem.
#pragma once

#include "compare/cli/cli.hpp"
#include "compare/report/report.hpp"

#include <vector>

namespace kl {

// Runs problem `index` of the plan in children; the rows come back in ladder order with vs
// library computed over all of them.
std::vector<Row> run_isolated(const Plan& plan, std::size_t index, double copy_gbps);

// The child's side (plan.worker >= 0): runs that one problem and writes, to plan.worker_out, a
// line "start <label>" before each run of a variant and a line "row <json>" per finished row.
// Returns the exit status.
int run_worker(const Plan& plan);

}  // namespace kl
