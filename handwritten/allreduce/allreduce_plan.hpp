// Which step allreduce_auto runs for a message, as a pure function of its size and the GPU count,
// so the host suite pins every choice without a GPU (tests/host/test_allreduce.cpp). The
// thresholds are where the measured curves cross (docs/allreduce.md, "allreduce_auto"): the floor
// step while its lines hold the message, then on two GPUs the push one-shot while the time is
// still latency, then the two-shot that only stores, which moves the fewest bytes.
#pragma once

#include "common/gpu_group.hpp"

#include <cstddef>

namespace kl::allreduce_plan {

enum class Step { one_shot_ll, one_shot_push, two_shot, two_shot_vec16, two_shot_push };

// Up to here the push one-shot (allreduce7) beats the two-shot on two GPUs: it waits once where
// the two-shot meets its peers twice. With more GPUs each rank pushes G-1 copies of its input, and
// the two-shot takes over right after the lines.
inline constexpr std::size_t kPushMaxBytes = std::size_t{4} << 20;

inline Step step_for(std::size_t bytes_per_gpu, int gpus) {
  if (bytes_per_gpu <= kLineMaxBytes) return Step::one_shot_ll;
  if (gpus == 2 && bytes_per_gpu <= kPushMaxBytes) return Step::one_shot_push;
  return Step::two_shot_push;
}

inline const char* step_name(Step s) {
  switch (s) {
    case Step::one_shot_ll: return "allreduce8_one_shot_ll";
    case Step::one_shot_push: return "allreduce7_one_shot_push";
    case Step::two_shot: return "allreduce4_two_shot";
    case Step::two_shot_vec16: return "allreduce6_two_shot_vec16";
    case Step::two_shot_push: return "allreduce9_two_shot_push";
  }
  return "?";
}

}  // namespace kl::allreduce_plan
