// Testing the runner itself: what `compare --inject-fault` and `--inject-delay` add to every
// problem, as a wrapper around its candidates (RunOptions::wrap_candidates). The runner core
// knows nothing of it.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kl {

struct Candidate;

struct TestingOptions {
  // Adds a variant that faults ("oob": an out-of-bounds write; "trap") after the first
  // hand-written variant of every problem, so the ones after it are the ones a fault strands.
  std::string inject_fault;
  // The variants named here wait this many microseconds on the GPU after every launch: a
  // slowdown `compare diff` must flag.
  std::vector<std::pair<std::string, double>> inject_delay;
  bool any() const { return !inject_fault.empty() || !inject_delay.empty(); }
};

// The name of the variant --inject-fault KIND adds.
inline std::string fault_variant_name(const std::string& kind) { return "test_fault_" + kind; }

// The wrapper for RunOptions::wrap_candidates; empty when `t` asks for nothing.
std::function<void(std::vector<Candidate>&)> candidate_wrapper(const TestingOptions& t);

}  // namespace kl
