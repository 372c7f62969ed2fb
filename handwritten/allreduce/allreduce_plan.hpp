// Which step allreduce_auto runs for a message, as a pure function of its size and the GPU count,
// so the host suite pins every choice without a GPU (tests/host/test_allreduce.cpp). The
// thresholds are where the measured curves cross (docs/allreduce.md, "allreduce_auto"): the LL128
// one-shot launched early while its link traffic is small, then on two GPUs the push one-shot
// while the time is still latency and the two-shot that only stores; on more GPUs the two-shot
// that loads.
#pragma once

#include "common/gpu_group.hpp"

#include <cstddef>

namespace kl::allreduce_plan {

enum class Step { one_shot_ll128_pdl, one_shot_push, two_shot, two_shot_push };

// The LL128 one-shot sends (G-1)·128/120 bytes per message byte out of each GPU, so it wins while
// that traffic is still small beside the two-shot's second crossing: while (G-1)·bytes <=
// kLine128TrafficMax (between the crossings measured on four GPUs), and never past its lines.
// On two GPUs that is every message its lines hold.
inline constexpr std::size_t kLine128TrafficMax = std::size_t{2} << 20;  // 2 MiB
// Up to here the push one-shot (allreduce7) beats the two-shots on two GPUs: it waits once where
// they meet their peers twice. With more GPUs each rank pushes G-1 copies of its input, and the
// two-shot takes over right after the lines.
inline constexpr std::size_t kPushMaxBytes = std::size_t{4} << 20;

inline Step step_for(std::size_t bytes_per_gpu, int gpus) {
  const std::size_t peers = gpus > 1 ? static_cast<std::size_t>(gpus - 1) : 1;
  if (bytes_per_gpu <= kLine128MaxBytes && peers * bytes_per_gpu <= kLine128TrafficMax) return Step::one_shot_ll128_pdl;
  if (gpus == 2) return bytes_per_gpu <= kPushMaxBytes ? Step::one_shot_push : Step::two_shot_push;
  // Four GPUs loading from each other keep NVLink busier than four pushing into staging (measured:
  // docs/allreduce.md, "allreduce_auto").
  return Step::two_shot;
}

inline const char* step_name(Step s) {
  switch (s) {
    case Step::one_shot_ll128_pdl: return "allreduce11_one_shot_ll128_pdl";
    case Step::one_shot_push: return "allreduce7_one_shot_push";
    case Step::two_shot: return "allreduce4_two_shot";
    case Step::two_shot_push: return "allreduce9_two_shot_push";
  }
  return "?";
}

}  // namespace kl::allreduce_plan
