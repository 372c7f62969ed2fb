// The runner core shared by every family. For one problem (family × type × size × axes):
//
//   supported? -> workspace
//   exact inputs (integer values, every partial sum representable):
//       poison -> run once -> equal to the reference?            (dropped / misplaced terms)
//   random inputs:
//       poison -> run once -> within the bound? -> agrees with the library?
//       -> time -> poison -> run once -> still right, still agrees?  (state kept between runs)
//   -> metrics -> row
//
// The family supplies a Problem (its buffers, reference, bound and metric) and Candidates (its
// variants bound to those buffers); compare/core/family_core.hpp builds both.
#pragma once

#include "compare/core/family.hpp"
#include "compare/core/problem.hpp"
#include "compare/core/timing.hpp"

#include <cstdint>
#include <vector>

namespace kl {

// Runs every candidate on `problem`; rows come back in candidate order (the ladder, then the
// library baselines), with `proto`'s problem fields. Library candidates run first in each phase
// so their outputs are there to cross-check against. Never throws for a CUDA error: failures
// become rows, a dead context sets ctx.fatal and the remaining rows say they were not run.
std::vector<Row> execute(const Row& proto, Problem& problem, std::vector<Candidate>& candidates, RunContext& ctx,
                         std::uint64_t seed);

// Sets vs_library (t of the fastest library baseline that ran and passed / t of the row) and
// library_name on every row of one problem.
void apply_vs_library(std::vector<Row>& rows);

// The seed of the exact input set, derived from the problem's seed.
inline std::uint64_t exact_seed(std::uint64_t seed) { return seed ^ 0x2545f4914f6cdd1dull; }

}  // namespace kl
