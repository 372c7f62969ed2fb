// The runner core shared by every family: for one problem (family × type × size), run each
// variant through  supported? -> workspace -> poison -> run once -> validate -> time ->
// validate again -> metrics -> row.  The family supplies a Problem (its buffers, poison,
// validation and work count) and a list of Candidates (its variants bound to those buffers).
#pragma once

#include "compare/family.hpp"
#include "compare/timing.hpp"

#include <functional>
#include <memory>

namespace kl {

struct Candidate {
  VariantListing info;
  const char* unsupported = nullptr;  // reason the variant cannot run this problem
  std::size_t workspace_bytes = 0;
  void (*prepare)() = nullptr;
  double rounding_depth = 0;          // family-specific bound parameter (reduce: tree height)
  std::function<void(void* workspace, cudaStream_t)> launch;
};

class Problem {
 public:
  virtual ~Problem() = default;
  // Fills the outputs with values a correct run must overwrite (NaN; for integers a value
  // that differs from the expected one).
  virtual void poison(cudaStream_t s) = 0;
  // Reads the outputs back (after a synchronisation) and checks them against the reference.
  virtual Check validate(const Candidate& c) = 0;
  // Remembers the current outputs as the library baseline's, for cross-checks.
  virtual void keep_as_library(const Candidate& c) = 0;
  virtual bool has_library_output() const = 0;
  // Checks the current outputs against the kept library outputs (both within their bounds).
  virtual Check cross_check(const Candidate& c) = 0;
  // End-to-end mode: the host<->device copies added around the operation.
  virtual void copy_inputs_to_device(cudaStream_t s) = 0;
  virtual void copy_outputs_to_host(cudaStream_t s) = 0;
  virtual double work() const = 0;  // bytes or flops
  virtual double ceiling() const = 0;          // in the family's unit
  virtual std::string ceiling_name() const = 0;
};

// Runs every candidate on `problem`; rows come back handwritten first (ladder order), then
// library baselines. Library candidates run first so their outputs and times are known.
std::vector<Row> execute(const Family& fam, DType t, const Dims& d, Problem& problem,
                         std::vector<Candidate>& candidates, RunContext& ctx, std::uint64_t seed);

// Converts a descriptor list into candidates, filtered by the variant patterns (library
// baselines are always kept: they are the yardstick).
template <class V>
std::vector<const V*> select_variants(const std::vector<V>& list, const RunOptions& opt) {
  std::vector<const V*> out;
  for (const V& v : list)
    if (v.info.source == Source::library || matches_any(std::string(v.info.name), opt.variant_patterns))
      out.push_back(&v);
  return out;
}

inline VariantListing listing_of(const VariantInfo& i) {
  return {std::string(i.name), std::string(i.origin), std::string(i.lesson), i.source};
}

}  // namespace kl
