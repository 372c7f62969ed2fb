// allreduce11_one_shot_ll128_pdl — beyond the documents: step 10 launched with Hopper's
// programmatic dependent launch (PDL), so back-to-back all-reduces overlap each launch with the
// call before it.
//
// Lesson: once a small all-reduce is one kernel and one NVLink crossing, a good part of what is
// left between two calls is the launch itself: the next kernel's blocks are scheduled only after
// the previous kernel on the stream has finished and its memory is flushed. With
// cudaLaunchAttributeProgrammaticStreamSerialization the next kernel may be scheduled as soon as
// every block of the previous one has called cudaTriggerProgrammaticLaunchCompletion (step 10's
// kernel does so first thing); it then waits in cudaGridDependencySynchronize until the previous
// kernel has completed and flushed, before it reads the epoch or touches a line. So the wait for
// the previous call, and everything it guarantees, is unchanged; only the scheduling moves ahead.
//
// Residency (every block of a kernel that waits for its peers must be resident): the trigger
// fires only once every block of the current kernel has started, so the early blocks of the next
// one never keep a block of the current one off an SM; they wait for it to finish, and become
// resident as its blocks leave.
//
// Where it applies: compute capability 9.0 and newer, and a loaded image built for 9.0 or newer
// (elsewhere the attribute is not set and the launch is plain stream order, step 10). In a graph
// the captured attribute becomes a programmatic edge between consecutive kernel nodes (the runner's
// --ops); the harness's cold mode forks each call from the runner's stream through an event, so
// there is no kernel before it in its stream and the launch is step 10's.
#pragma once

#include "handwritten/allreduce/allreduce10_one_shot_ll128.cuh"

namespace kl::allreduce11 {

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  allreduce10::launch<T, allreduce10::kDefaultThreads, true>(a, s);
}

template <class T>
void prepare() {
  allreduce10::prepare<T, allreduce10::kDefaultThreads, true>();
}

template <class T>
AllreduceVariant<T> variant() {
  return allreduce10::variant<T, allreduce10::kDefaultThreads, true>(
      "allreduce11_one_shot_ll128_pdl",
      "step 10 launched programmatically dependent (PDL): scheduled while the call before it drains");
}

}  // namespace kl::allreduce11
