// Several reports joined into one: the shards of a graded folder (compare --shard K/N on several
// hosts or a Slurm array, or --grade-gpus on one host). Needs no CUDA (compare merge).
#pragma once

#include "compare/report/report.hpp"

#include <string>
#include <vector>

namespace kl {

// Every row of every part, in order; a row that an earlier part already has (family, type,
// shape, variant: the library baselines every shard runs) is left out. The first part's run
// metadata, marked incomplete if any part is. `warning`: set when the parts' GPUs differ.
Report merge_reports(const std::vector<Report>& parts, std::string& warning);

}  // namespace kl
