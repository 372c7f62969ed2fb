// A variant whose code runs in another process: a submission from outside the tree, launched by
// its sandbox (compare/sandbox/). The runner core (execute.cpp) keeps everything else on its own
// side: it owns the buffers, poisons them, validates them, checks their guards and the inputs, and
// checks the timings the sandbox reports against clocks it reads itself.
#pragma once

#include "compare/core/problem.hpp"
#include "compare/core/stats.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kl {

// One timed phase in the sandbox. Before sample j the inputs listed in `scale` are multiplied so
// that they are the loaded inputs times factors[j] (signed powers of two: exact); the output and
// the workspace are poisoned; the L2 is flushed; the GPU's global timer is written to clock[2j]
// and clock[2j + 1] around the sample. The output of sample snap_at[k] is copied to snaps[k], and
// the last sample's to snaps.back(). Afterwards the inputs are as loaded.
struct RemoteTimeRequest {
  int warmup = 2;
  StopRule rule;
  std::vector<Problem::Region> scale;  // the inputs scaled between samples
  int elem_bytes = 4;
  bool is_int = false;
  std::vector<double> factors;
  std::vector<std::size_t> snap_at;
  std::vector<Problem::Region> snaps;  // snap_at.size() + 1
  Problem::Region output, clock;
  std::vector<Problem::Region> poison;  // the output and the workspace
  std::vector<Problem::Region> buffers;  // every buffer the launch arguments may point into
  double limit_seconds = 0;
};

struct RemoteTimeResult {
  std::vector<double> samples_ms;
  bool converged = false;
  std::vector<long long> held;  // which sample each snapshot holds (-1: none)
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
