#include "compare/testing/candidate_wrapper.hpp"

#include "compare/core/problem.hpp"
#include "compare/testing/fault_injection.hpp"

namespace kl {

std::function<void(std::vector<Candidate>&)> candidate_wrapper(const TestingOptions& t) {
  if (!t.any()) return {};
  return [t](std::vector<Candidate>& cands) {
    for (Candidate& c : cands)
      for (const auto& [name, us] : t.inject_delay)
        if (name == c.info.name)
          c.launch = [inner = std::move(c.launch), us = us](void* ws, cudaStream_t s) {
            inner(ws, s);
            launch_delay(us, s);
          };
    if (t.inject_fault.empty()) return;
    Candidate f;
    f.info = {fault_variant_name(t.inject_fault), "test (compare --inject-fault)", "a kernel that faults on purpose",
              Source::handwritten};
    f.launch = [kind = t.inject_fault](void* ws, cudaStream_t s) { launch_fault(kind, ws, s); };
    const bool has_hw = !cands.empty() && cands.front().info.source == Source::handwritten;
    cands.insert(cands.begin() + (has_hw ? 1 : 0), std::move(f));
  };
}

}  // namespace kl
