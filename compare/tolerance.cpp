#include "compare/tolerance.hpp"

#include <cstdio>

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

}  // namespace kl
