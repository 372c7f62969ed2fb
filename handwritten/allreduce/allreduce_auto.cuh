// allreduce_auto — the ladder's answer for any size and GPU count: the step allreduce_plan picks
// (handwritten/allreduce/allreduce_plan.hpp), as gemm_auto is for the products. What a user
// would call; the row to hold against NCCL at every size.
#pragma once

#include "handwritten/allreduce/allreduce4_two_shot.cuh"
#include "handwritten/allreduce/allreduce7_one_shot_push.cuh"
#include "handwritten/allreduce/allreduce8_one_shot_ll.cuh"
#include "handwritten/allreduce/allreduce9_two_shot_push.cuh"
#include "handwritten/allreduce/allreduce11_one_shot_ll128_pdl.cuh"
#include "handwritten/allreduce/allreduce12_two_shot_ll128_pdl.cuh"
#include "handwritten/allreduce/allreduce13_ring_copy_engines.cuh"
#include "handwritten/allreduce/allreduce_plan.hpp"

namespace kl::allreduce_auto {

template <class T>
allreduce_plan::Step step_of(AllreduceSize s) {
  return allreduce_plan::step_for(s.n * sizeof(T), s.gpus, s.nvlink);
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  switch (step_of<T>({a.n, a.group->gpus, a.group->native_peer_atomics})) {
    case allreduce_plan::Step::one_shot_ll: return allreduce8::launch<T>(a, s);
    case allreduce_plan::Step::one_shot_ll128_pdl: return allreduce11::launch<T>(a, s);
    case allreduce_plan::Step::two_shot_ll128_pdl: return allreduce12::launch<T>(a, s);
    case allreduce_plan::Step::one_shot_push: return allreduce7::launch<T>(a, s);
    case allreduce_plan::Step::two_shot_vec16: return allreduce4::launch<T, true>(a, s);
    case allreduce_plan::Step::two_shot_push: return allreduce9::launch<T>(a, s);
    case allreduce_plan::Step::two_shot_staggered: return allreduce4::launch<T, true, true>(a, s);
    case allreduce_plan::Step::ring_copy_engines: return allreduce13::launch<T>(a, s);
  }
}

template <class T>
void prepare() {
  allreduce8::prepare<T>();
  allreduce11::prepare<T>();
  allreduce12::prepare<T>();
  allreduce7::prepare<T>();
  allreduce4::prepare<T, true>();
  allreduce4::prepare<T, true, true>();
  allreduce9::prepare<T>();
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce_auto", "beyond",
               "the step for the size and GPU count: the LL128 one-shot launched early for small messages (the LL "
               "one-shot without NVLink), the LL128 two-shot on more than two GPUs, then on two GPUs the push "
               "one-shot, the 16-byte two-shot and the push two-shot, on more the staggered two-shot; the ring "
               "with the copy engines for the largest"},
      .launch = launch<T>,
      .workspace_bytes = [](AllreduceSize s) -> std::size_t {
        switch (step_of<T>(s)) {
          case allreduce_plan::Step::one_shot_push: return allreduce7::workspace_bytes<T>(s);
          case allreduce_plan::Step::two_shot_push: return allreduce9::workspace_bytes<T>(s);
          case allreduce_plan::Step::ring_copy_engines: return allreduce13::workspace_bytes<T>(s);
          default: return 0;
        }
      },
      .prepare = prepare<T>,
  };
}

}  // namespace kl::allreduce_auto
