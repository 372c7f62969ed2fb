// allreduce14_two_shot_staggered — beyond the documents: the 16-byte two-shot with each rank taking
// its peers in turn from its next one.
//
// Lesson: in steps 4 and 6 every rank walks the ranks in the same order, 0, 1, ..., G-1: each
// thread's first loads go to rank 0, its first stores too, on every GPU at once. The requests of
// a moment crowd one GPU's links while the others wait, and on four GPUs the 16-byte two-shot
// falls behind the element-wise one that has fewer bytes in flight to crowd with. Start each rank
// at its next one instead, rank r loading and storing r+1, r+2, ..., r: at any moment the G
// ranks' requests go to G different GPUs. The bytes, the barriers and the grid are step 6's.
//
// Sum order: chunk r is summed from rank r+1 round to rank r, not in rank order (as the ring of
// step 13 and NCCL's). Only rank r sums chunk r and stores the sum everywhere, so every rank
// still ends with bit-identical results, within the family's gamma(G-1) bound.
//
// Changed from step 6: the order of the ranks in the loads and the stores (allreduce4's kernel with
// kStaggered = true).
// Profiler: step 6's nvlink bytes, spread over the peers' links evenly at every moment.
#pragma once

#include "handwritten/allreduce/allreduce4_two_shot.cuh"

namespace kl::allreduce14 {

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce14_two_shot_staggered", "beyond",
               "the 16-byte two-shot with each rank taking the ranks from its next one round, so the GPUs' "
               "requests spread over every link at once"},
      .launch = allreduce4::launch<T, true, true>,
      .prepare = allreduce4::prepare<T, true, true>,
  };
}

}  // namespace kl::allreduce14
