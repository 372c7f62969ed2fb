// Which step allreduce_auto runs for a message, as a pure function of its size and the GPU count,
// so the host suite pins every choice without a GPU (tests/host/test_allreduce.cpp). The
// thresholds are where the measured curves cross (docs/allreduce.md, "allreduce_auto"): the LL128
// one-shot launched early while the one crossing it saves is worth more than the link bytes the
// two-shot saves, then the LL128 two-shot while its lines hold the message; past the lines, on two
// GPUs the push one-shot while the time is still latency, the 16-byte two-shot, then the two-shot
// that only stores; on more GPUs the staggered two-shot; for the largest messages the ring with
// the copy engines moving. Without NVLink (the LL128 steps need it) the LL one-shot takes the
// small messages.
#pragma once

#include "common/gpu_group.hpp"

#include <cstddef>

namespace kl::allreduce_plan {

enum class Step {
  one_shot_ll,
  one_shot_ll128_pdl,
  two_shot_ll128_pdl,
  one_shot_push,
  two_shot_vec16,
  two_shot_push,
  two_shot_staggered,
  ring_copy_engines,
};

// Out of each GPU the LL128 one-shot sends (G-1)·bytes and the LL128 two-shot 2(G-1)/G·bytes
// (both in 128-byte lines), but the two-shot crosses the links twice. The one-shot wins while the
// bytes the two-shot would save, (G-1)(G-2)/G·bytes, cost less time than that second crossing:
// kSecondCrossingBytes of link traffic (measured where the curves cross on four GPUs). On two GPUs
// the two-shot saves nothing and the one-shot takes every message its lines hold.
inline constexpr std::size_t kSecondCrossingBytes = std::size_t{384} << 10;
// The LL128 two-shot's lines: each rank's chunk of lines fills at most half a slot.
inline constexpr std::size_t kLine128Bytes = 120;  // message bytes per 128-byte line
inline constexpr std::size_t kHalfSlotLines = kLineSlotBytes / 128 / 2;
// Without NVLink: the LL one-shot (16-byte lines, half of each flag) sends 2(G-1) bytes per
// message byte out of each GPU, and takes the messages while that stays within kLineTrafficMax
// (between the crossings measured on two and on four GPUs, before the LL128 steps).
inline constexpr std::size_t kLineTrafficMax = std::size_t{3} << 19;  // 1.5 MiB
// Past the lines, on two GPUs, the push one-shot (allreduce7) beats the two-shots up to here: it
// waits once where they meet their peers twice.
inline constexpr std::size_t kPushMaxBytes = std::size_t{4} << 20;
// Then the 16-byte two-shot, which meets its peers twice but moves half the push one-shot's link
// bytes, up to here (measured ahead of the push two-shot at 8 MiB, behind it at 32 MiB).
inline constexpr std::size_t kVec16MaxBytes = std::size_t{16} << 20;
// The ring with the copy engines (allreduce13) moves bytes faster than any SM pattern, but it
// enqueues 9(G-1) calls per segment and rank and waits on events between GPUs: it takes over
// where the SM two-shots' ceiling, not that overhead, sets the time. Measured crossings: on more
// than two GPUs it is behind the staggered two-shot at 32 MiB and ahead at 128 MiB; on two it is
// behind the push two-shot at 32 MiB and ahead at 256 MiB.
inline constexpr std::size_t kRingMinBytes = std::size_t{64} << 20;     // more than two GPUs: above this
inline constexpr std::size_t kRingMinBytes2 = std::size_t{256} << 20;  // two GPUs: from this

inline bool two_shot_ll128_fits(std::size_t bytes, int gpus) {
  const std::size_t lines = (bytes + kLine128Bytes - 1) / kLine128Bytes;
  return lines <= static_cast<std::size_t>(gpus) * kHalfSlotLines;
}

// `nvlink`: every pair has native peer atomics (AllreduceSize::nvlink).
inline Step step_for(std::size_t bytes_per_gpu, int gpus, bool nvlink) {
  const std::size_t g = gpus > 2 ? static_cast<std::size_t>(gpus) : 2;
  if (nvlink) {
    if (bytes_per_gpu <= kLine128MaxBytes && (g - 1) * (g - 2) * bytes_per_gpu <= g * kSecondCrossingBytes)
      return Step::one_shot_ll128_pdl;
    if (g > 2 && two_shot_ll128_fits(bytes_per_gpu, gpus)) return Step::two_shot_ll128_pdl;
  } else if (bytes_per_gpu <= kLineMaxBytes && 2 * (g - 1) * bytes_per_gpu <= kLineTrafficMax) {
    return Step::one_shot_ll;
  }
  if (g == 2) {
    if (bytes_per_gpu <= kPushMaxBytes) return Step::one_shot_push;
    if (bytes_per_gpu <= kVec16MaxBytes) return Step::two_shot_vec16;
    return bytes_per_gpu < kRingMinBytes2 ? Step::two_shot_push : Step::ring_copy_engines;
  }
  // More GPUs loading from each other, their peers staggered, keep NVLink busier than pushing into
  // staging (measured: docs/allreduce.md, "allreduce_auto").
  return bytes_per_gpu <= kRingMinBytes ? Step::two_shot_staggered : Step::ring_copy_engines;
}

inline const char* step_name(Step s) {
  switch (s) {
    case Step::one_shot_ll: return "allreduce8_one_shot_ll";
    case Step::one_shot_ll128_pdl: return "allreduce11_one_shot_ll128_pdl";
    case Step::two_shot_ll128_pdl: return "allreduce12_two_shot_ll128_pdl";
    case Step::one_shot_push: return "allreduce7_one_shot_push";
    case Step::two_shot_vec16: return "allreduce6_two_shot_vec16";
    case Step::two_shot_push: return "allreduce9_two_shot_push";
    case Step::two_shot_staggered: return "allreduce14_two_shot_staggered";
    case Step::ring_copy_engines: return "allreduce13_ring_copy_engines";
  }
  return "?";
}

}  // namespace kl::allreduce_plan
