// Error bounds, derived from the operation (Higham, "Accuracy and Stability of Numerical
// Algorithms", ch. 3-4), never from a constant:
//
//   sum:      |s_hat - s| <= gamma(h) * sum|x_i|                 h: height of the summation tree
//   product:  |c_hat_ij - c_ij| <= gamma(K) * (|A|·|B|)_ij        one chain of K products per element
//
// gamma(k) = k·u / (1 - k·u), u the unit roundoff of the accumulating type. The fp64 reference
// carries an error of its own; its bound is added (it is tiny next to float's, and for double
// the references are built to keep it well under the kernel's). Integers are exact: bound 0.
// NaN or Inf where the reference is finite never passes.
//
// A comparison's outcome, Check, is recorded in the report's rows: compare/report/row.hpp.
#pragma once

#include "compare/report/row.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace kl {

// gamma(k) for unit roundoff u; +inf once k·u >= 1 (the bound says nothing any more).
inline double gamma_bound(double k, double u) {
  const double ku = k * u;
  if (ku >= 1.0) return std::numeric_limits<double>::infinity();
  return ku / (1.0 - ku);
}

// One element: does `got` lie within `bound` of `ref`? NaN/Inf never passes, and neither does
// anything against a bound that is not a finite number (a bound of +inf says nothing).
inline bool within(double got, double ref, double bound) {
  if (!std::isfinite(got) || !std::isfinite(bound)) return false;
  return std::fabs(got - ref) <= bound;
}

// A bound multiplier gamma >= 1 (depth·u >= 1/2), or one that is not finite, lets anything within
// sum|x| of the truth pass (0 passes for a zero-mean sum): that is no check. false for NaN too.
inline bool meaningful_factor(double factor) { return factor < 1; }

// The failing Check of a variant whose bound is not meaningful, saying why.
Check meaningless_bound(double depth, double factor);

// Accumulates element checks into a Check.
class CheckAccumulator {
 public:
  void add(std::size_t index, double got, double ref, double bound) {
    ++count_;
    const double err = std::isfinite(got) ? std::fabs(got - ref)
                                          : std::numeric_limits<double>::infinity();
    const double ratio = bound > 0 ? err / bound
                                   : (err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    if (!within(got, ref, bound)) {
      if (bad_ == 0) first_bad_ = index, first_got_ = got, first_ref_ = ref, first_bound_ = bound;
      ++bad_;
    }
    if (err > max_err_) max_err_ = err;
    if (ratio > worst_ || count_ == 1) worst_ = ratio, worst_index_ = index, worst_bound_ = bound;
  }
  Check finish() const;
  // Folds in the checks of elements that all come after this accumulator's (chunks of one output
  // checked in parallel, merged in order): the same Check as one accumulator over all of them.
  void merge(const CheckAccumulator& later) {
    if (later.count_ == 0) return;
    if (bad_ == 0 && later.bad_ > 0)
      first_bad_ = later.first_bad_, first_got_ = later.first_got_, first_ref_ = later.first_ref_,
      first_bound_ = later.first_bound_;
    if (count_ == 0 || later.worst_ > worst_) worst_ = later.worst_, worst_index_ = later.worst_index_, worst_bound_ = later.worst_bound_;
    if (later.max_err_ > max_err_) max_err_ = later.max_err_;
    count_ += later.count_;
    bad_ += later.bad_;
  }

 private:
  std::size_t count_ = 0, bad_ = 0, worst_index_ = 0, first_bad_ = 0;
  double max_err_ = 0, worst_ = 0, worst_bound_ = 0, first_got_ = 0, first_ref_ = 0, first_bound_ = 0;
};

// Checks elements [0, n) with f(acc, i) (which calls acc.add for element i), in chunks on every
// core: a 2^28-element output takes seconds on one. The result is that of one sequential pass.
template <class F>
Check check_elements(std::size_t n, F&& f) {
  constexpr std::size_t kMinChunk = std::size_t{1} << 16;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::max<std::size_t>(1, std::min(cores, n / kMinChunk));
  std::vector<CheckAccumulator> acc(chunks);
  auto run = [&](std::size_t c) {
    const std::size_t lo = n * c / chunks, hi = n * (c + 1) / chunks;
    for (std::size_t i = lo; i < hi; ++i) f(acc[c], i);
  };
  std::vector<std::thread> threads;
  for (std::size_t c = 1; c < chunks; ++c) threads.emplace_back(run, c);
  run(0);
  for (auto& t : threads) t.join();
  for (std::size_t c = 1; c < chunks; ++c) acc[0].merge(acc[c]);
  return acc[0].finish();
}

}  // namespace kl
