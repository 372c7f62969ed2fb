// A variant whose code runs in another process: a submission from outside the tree, launched by
// its sandbox (compare/sandbox/). The runner core (execute.cpp) keeps everything else on its own
// side: it owns the buffers, poisons them, validates them, checks their guards and the inputs, and
// checks the timings the sandbox reports against clocks it reads itself.
#pragma once

#include "compare/core/problem.hpp"
#include "compare/core/stats.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace kl {

// One timed phase in the sandbox: the sandbox runs the sampling loop (compare/core/sampler.hpp)
// over graphs it captured from the launch, one per input slot, and asks this process before each
// sample which slot it runs on (`next`): here the previous sample's output is kept, the sample's set
// drawn and the output and workspace poisoned, all on this process's buffers, outside the timed
// window. The GPU's global timer is written to `clock` around each sample.
struct RemoteTimeRequest {
  int warmup = 2;
  StopRule rule;
  L2Flush flush = L2Flush::read;
  std::size_t slots = 0;                               // extra input slots (arguments go for 0..slots)
  std::function<void(std::size_t slot)> use_slot;      // points the problem's arguments at a slot
  std::function<std::vector<Problem::Region>()> buffers;  // what the arguments may point into, now
  // Before sample j (warm-ups: j < 0; `last`: the final probe): returns the slot it runs on.
  std::function<std::size_t(long long j, bool last)> next;
  std::function<void(long long j)> done;               // after the last sample j
  Problem::Region clock;                               // 2 marks per sample
  double limit_seconds = 0;
};

struct RemoteTimeResult {
  std::vector<double> samples_ms;  // every sample, in order
  bool converged = false;
};

class RemoteLaunch {
 public:
  virtual ~RemoteLaunch() = default;
  // Runs the variant once on the problem's buffers (poisoned and synchronised by the caller) and
  // waits for it. Throws StreamContractError when the launch broke the contract, and
  // std::runtime_error when it failed, timed out ("timed out after N s") or its process died.
  // `buffers`: the problem's inputs, output and workspace, the only memory its arguments may
  // point into (each pointer is sent as a buffer and an offset).
  virtual void run(void* workspace, const std::vector<Problem::Region>& buffers, double limit_seconds) = 0;
  virtual RemoteTimeResult time(void* workspace, const RemoteTimeRequest& request) = 0;
};

}  // namespace kl
