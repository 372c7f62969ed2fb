// Welch's and Student's t tests and Student's t distribution, through the regularized
// incomplete beta function
// (the continued fraction of Numerical Recipes, 3rd ed., section 6.4).
#include "compare/diff/ttest.hpp"

#include <cmath>
#include <limits>

namespace kl {

namespace {

// The continued fraction of I_x(a, b), by the modified Lentz method; converges quickly for
// x < (a + 1) / (a + b + 2), the side incomplete_beta calls it on.
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int step = 0; step < 2; ++step) {
      d = 1 + aa * d;
      if (std::fabs(d) < tiny) d = tiny;
      c = 1 + aa / c;
      if (std::fabs(c) < tiny) c = tiny;
      d = 1 / d;
      const double del = d * c;
      h *= del;
      if (step == 1 && std::fabs(del - 1) < eps) return h;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

struct Moments {
  double mean = 0, var = 0;  // var: the unbiased sample variance
};

Moments moments(std::span<const double> v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

}  // namespace

double student_t_two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

namespace {

// Both tests: t from the two means and the squared standard error se2, p from df.
WelchTest finish(WelchTest w, const Moments& ma, const Moments& mb, double se2, double df) {
  if (!(se2 > 0)) {  // no spread on either side: the means are equal or not, nothing to weigh
    w.t = mb.mean == ma.mean ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mb.mean - ma.mean);
    w.df = static_cast<double>(w.n1 + w.n2 - 2);
    w.p = mb.mean == ma.mean ? 1 : 0;
    return w;
  }
  w.t = (mb.mean - ma.mean) / std::sqrt(se2);
  w.df = df;
  w.p = student_t_two_sided_p(w.t, w.df);
  return w;
}

bool enough(WelchTest& w, std::span<const double> a, std::span<const double> b) {
  w.n1 = a.size();
  w.n2 = b.size();
  if (w.n1 < 2 || w.n2 < 2) {
    w.why_not = "fewer than 2 values in a run";
    return false;
  }
  w.ran = true;
  return true;
}

}  // namespace

WelchTest welch_t(std::span<const double> a, std::span<const double> b) {
  WelchTest w;
  if (!enough(w, a, b)) return w;
  const Moments ma = moments(a), mb = moments(b);
  const double va = ma.var / static_cast<double>(w.n1), vb = mb.var / static_cast<double>(w.n2);
  const double se2 = va + vb;
  const double df = se2 > 0 ? se2 * se2 / (va * va / static_cast<double>(w.n1 - 1) + vb * vb / static_cast<double>(w.n2 - 1)) : 0;
  return finish(w, ma, mb, se2, df);
}

WelchTest student_t(std::span<const double> a, std::span<const double> b) {
  WelchTest w;
  if (!enough(w, a, b)) return w;
  w.pooled = true;
  const Moments ma = moments(a), mb = moments(b);
  const double n1 = static_cast<double>(w.n1), n2 = static_cast<double>(w.n2), df = n1 + n2 - 2;
  const double pooled = ((n1 - 1) * ma.var + (n2 - 1) * mb.var) / df;
  return finish(w, ma, mb, pooled * (1 / n1 + 1 / n2), df);
}

WelchTest pass_t(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() ? student_t(a, b) : welch_t(a, b);
}

}  // namespace kl
