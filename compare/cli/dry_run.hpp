// compare --dry-run [--gpu NAME]: what a command would run, without a GPU or a driver: the
// problems and their variants, the variants a named GPU would skip and why (the same rule the
// runner applies, on that GPU's limits), and an estimated time from that GPU's committed default
// run (the default report in the results folder of that GPU) where it has the rows. For
// planning a run, or checking a class's folder, on a laptop.
#pragma once

#include "compare/cli/cli.hpp"

#include <string>

namespace kl {

// The GPUs --gpu knows (name, compute capability, shared memory per block): "T4, A100, ...".
std::string known_gpu_names();

// The dry run's text; throws UsageError for an unknown --gpu.
std::string dry_run_text(const Plan& plan);

}  // namespace kl
