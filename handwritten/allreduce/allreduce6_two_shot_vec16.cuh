// allreduce6_two_shot_vec16 — beyond the documents: the two-shot with 16-byte loads and stores.
//
// Lesson: step 5's width applied to the two-shot, the step built for bandwidth. Each GPU loads
// (G-1)/G·n elements from peers and stores as many into peers, now 16 bytes per request: enough
// in flight to approach the links' bandwidth, which is where NCCL's ring sits at large sizes
// (its chunks pipelined over dedicated channels). This should be the ladder's best at and above
// the crossover; the expected gap to NCCL at 256 MiB is the barriers and the tail of the last
// wave of blocks (not measured: no two-GPU machine has run this family yet; docs/allreduce.md).
//
// Changed from step 4: only the width (allreduce4's kernel with kVectors = true); chunks already
// start on 16-byte boundaries. Unaligned pointers take step 4's element path.
//
// Profiler: nvlink read and write bytes each ≈ (G-1)/G·n·sizeof(T) per GPU, at close to the
// peer-copy rate.
#pragma once

#include "handwritten/allreduce/allreduce4_two_shot.cuh"

namespace kl::allreduce6 {

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce6_two_shot_vec16", "beyond", "the two-shot with 16-byte peer loads and stores"},
      .launch = allreduce4::launch<T, true>,
      .prepare = allreduce4::prepare<T, true>,
  };
}

}  // namespace kl::allreduce6
