// Runs a Plan on the GPU: device metadata, the ceilings, every problem, the reports.
#pragma once

#include "compare/cli/cli.hpp"
#include "compare/report/report.hpp"

#include <iosfwd>
#include <string>

namespace kl {

// Exit codes of `compare`.
//   0 every variant passed (or was skipped with a reason)   1 a variant failed or raised an error
//   2 bad input (one line)   3 no CUDA device   4 a fault left the CUDA context unusable
//   130 interrupted (Ctrl-C). With 4 and 130 the report files hold what was measured, marked
//   incomplete.
enum ExitCode : int {
  kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitNoDevice = 3, kExitCuda = 4, kExitInterrupted = 130
};

// Runs the plan, prints the table on `out`, writes the files (also when the run stops early);
// returns the rows. Throws UsageError (memory does not fit...) before anything runs, and
// CudaError when the device cannot be set up.
Report run_plan(const Plan& plan, const std::string& command_line, std::ostream& out);

// The exit status for a finished (or stopped) run.
int exit_code_for(const Report& r);
// ...and 1 where the run did not fail but a submission it names could not be graded
// (compare/cli/submission_status.hpp).
int exit_code_for(const Plan& plan, const Report& r);

// Below the table: one line for each submission the run names but did not grade, and why.
void print_ungraded(const Plan& plan, std::ostream& out);

// --summary: the verdict table of `rep` (every submission the run names but did not grade
// included, with why) on `out`, and as BASE.summary.md and .csv where the plan writes files.
// Without --summary, the lines of print_ungraded.
void write_summary(const Plan& plan, const Report& rep, std::ostream& out);

// Installs the SIGINT handler that sets g_interrupted (a second Ctrl-C kills as usual).
void install_interrupt_handler();

}  // namespace kl
