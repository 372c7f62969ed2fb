// allreduce5_one_shot_vec16 — beyond the documents: the one-shot with 16-byte loads and stores.
//
// Lesson: a remote load waits a whole NVLink round trip (about a microsecond), so what bounds
// the one-shot at large sizes is bytes in flight, not instructions: bandwidth ≈ bytes in flight /
// round trip. Step 3 keeps kUnrollOf<T> element loads (4; 2 for double) of 4 or 8 bytes per
// thread in flight; the same kernel with float4/int4/double2 loads (the documents' reduce7
// lesson, now across GPUs) keeps four times (float, int) or twice (double) the bytes in flight
// with the same number of requests: 2 blocks × 512 threads × 4 × 16 B = 64 KiB per SM for float
// (32 KiB for double), 4 to 8 MiB per H200, far above the ~0.5 MiB that ~450 GB/s × ~1 µs needs.
// Expect the one-shot's bandwidth to approach what NVLink gives to loads; latency at small sizes
// is step 3's.
//
// Changed from step 3: only the width (the kernel is allreduce3's with kVectors = true). Pointers
// that are not 16-byte aligned (the GPU suite's shifted mutants) take step 3's element path;
// a tail of fewer than kVec elements is summed element by element.
//
// Profiler: the same nvlink bytes as step 3 in fewer, wider requests (l1tex__t_requests against
// sectors); fewer long-scoreboard stalls per byte.
#pragma once

#include "handwritten/allreduce/allreduce3_one_shot.cuh"

namespace kl::allreduce5 {

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce5_one_shot_vec16", "beyond", "the one-shot with 16-byte peer loads: 4x (float) the bytes in flight"},
      .launch = allreduce3::launch<T, true>,
      .prepare = allreduce3::prepare<T, true>,
  };
}

}  // namespace kl::allreduce5
