// What a captured launch may hold before it is replayed (README, "Method"): said once for the
// runner's stream check of its own variants (timing.cu, run_captured) and for a submission's
// sandbox (compare/sandbox/child/), which replays nothing else.
//
// Every node is looked at, child graphs walked. Two rule sets:
//   - own:        the ladder's launches. Kernels, memsets and copies of any kind (a document's step
//                 copies its parameter into __constant__ from the host); no launch attribute that
//                 changes how the L2 caches or how the kernel is scheduled.
//   - submission: only kernels, memsets, device-to-device copies and empty nodes; no host work, no
//                 allocation, no event record or wait, no semaphore, no conditional; the same
//                 attribute rule.
// A caching attribute is refused because it outlives the flush: an access-policy window marks an
// input persisting, and persisting lines stay in the L2 across a flush that reads or writes another
// buffer; a priority changes what runs first beside the timed work.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kl {

enum class GraphRules { own, submission };

// "" when `g` may be replayed under `rules`; otherwise one line saying what it holds.
std::string graph_refusal(cudaGraph_t g, GraphRules rules);

// "" when the stream carries no caching or priority attribute of its own (a launch may set one on
// the stream it is given, and every later launch there would inherit it); otherwise why.
std::string stream_attribute_refusal(cudaStream_t s);

// Clears the access-policy window a launch may have set on `s`.
void clear_stream_window(cudaStream_t s);

}  // namespace kl
