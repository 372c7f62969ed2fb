// Several reports joined into one: the shards of a graded folder (compare --shard K/N on several
// hosts or a Slurm array, or --grade-gpus on one host). Needs no CUDA (compare merge).
#pragma once

#include "compare/report/report.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace kl {

// Two parts grade the same submission's row: merging would keep one grade and drop the other.
struct MergeRefused : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Every row of every part, in order. A submission's row (alice/NAME) is in one shard only: one
// that two parts hold (the same report twice, shards of different runs) throws MergeRefused,
// naming the row and both parts (`labels`: the parts' files, in order). A library or ladder row
// that several parts hold (every shard times the library beside its submissions) is kept from the
// first part that has it. The first part's run metadata, marked incomplete if any part is; where
// the parts' GPUs differ, the device is named "mixed GPUs: A, B" with nothing else of it kept.
struct MergeNotes {
  std::size_t copies_dropped = 0;  // library or ladder rows kept from the first part that has them
  std::string mixed_gpus;          // "A, B" where the parts' GPUs differ, else empty
  // One line for each, for the caller to print once.
  std::vector<std::string> lines() const;
};
Report merge_reports(const std::vector<Report>& parts, const std::vector<std::string>& labels, MergeNotes& notes);

}  // namespace kl
