// Grading a folder of submissions at scale. On one host with G GPUs, --grade-gpus G starts G
// children of this executable, child g on device g over every G-th submission (--shard g/G), and
// merges their reports into one table and one set of files. Across hosts (a Slurm array, say),
// each task runs --shard K/N and `compare merge` joins the reports (docs/your-kernel.md).
#pragma once

#include "compare/cli/cli.hpp"
#include "compare/report/report.hpp"

#include <iosfwd>

namespace kl {

// The parent of --grade-gpus: runs the children, merges, prints and writes as run_plan would.
Report run_graded_on_gpus(const Plan& plan, std::ostream& out);

// `compare merge REPORT... [-o DIR] [--name BASE]`: needs no GPU. Returns the exit status.
int merge_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace kl
