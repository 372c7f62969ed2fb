#include "compare/core/tolerance.hpp"

#include <cstdio>
#include <limits>

namespace kl {

Check CheckAccumulator::finish() const {
  Check c;
  c.ran = true;
  c.pass = count_ > 0 && bad_ == 0;
  c.max_abs_err = max_err_;
  c.worst_ratio = worst_;
  c.worst_index = worst_index_;
  c.bound_at_worst = worst_bound_;
  c.bad_count = bad_;
  if (count_ == 0) c.detail = "no elements checked";
  if (bad_ > 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%zu of %zu elements out of bound; first at %zu: got %.17g, want %.17g +- %.3g",
                  bad_, count_, first_bad_, first_got_, first_ref_, first_bound_);
    c.detail = buf;
  }
  return c;
}

Check meaningless_bound(double depth, double factor) {
  Check bad;
  bad.ran = true;
  bad.pass = false;
  bad.worst_ratio = std::numeric_limits<double>::infinity();
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "error bound not meaningful: gamma(depth %.4g) = %.3g (depth x unit roundoff >= 1/2: anything within "
                "sum|x| of the truth would pass)",
                depth, factor);
  bad.detail = buf;
  return bad;
}

}  // namespace kl
