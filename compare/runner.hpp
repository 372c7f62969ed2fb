// Runs a Plan on the GPU: device metadata, the ceilings, every problem, the reports.
#pragma once

#include "compare/cli.hpp"
#include "compare/report.hpp"

#include <iosfwd>
#include <string>

namespace kl {

// Exit codes of `compare`.
enum ExitCode : int { kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitNoDevice = 3, kExitCuda = 4 };

// Runs the plan, prints the table on `out`, writes the files; returns the rows.
// Throws UsageError (memory does not fit...), FatalError, CudaError.
Report run_plan(const Plan& plan, const std::string& command_line, std::ostream& out);

// kExitOk when every row passed or was skipped, kExitFailures otherwise.
int exit_code_for(const Report& r);

}  // namespace kl
