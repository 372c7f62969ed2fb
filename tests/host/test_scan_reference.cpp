// The scan family without a GPU: its reference (reference_scan) against an exact prefix on inputs
// whose sums a 128-bit integer holds exactly, in both forms and across the chunks it scans on
// separate cores; its exact input set (every partial sum exact); and its variants' declared depths
// at the sizes that are run (each one meaningful, or the size declared unsupported).
#include "common/args/scan_args.hpp"
#include "compare_cli.hpp"
#include "compare/core/problem.hpp"
#include "compare/core/random.hpp"
#include "compare/core/reference.hpp"
#include "compare/core/tolerance.hpp"
#include "compare/families/family_scan.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace kl;

namespace {

// Values m·2^e with |m| < 2^24 and e in [-40, 0] (both float and double hold them exactly): every
// prefix is an integer multiple of 2^-63 below 2^24·n, which an __int128 holds exactly.
template <class T>
std::vector<T> dyadic_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<long long> m(-(1LL << 24) + 1, (1LL << 24) - 1);
  std::uniform_int_distribution<int> e(-40, 0);
  std::vector<T> x(n);
  for (auto& v : x) v = static_cast<T>(std::ldexp(static_cast<double>(m(g)), e(g)));
  return x;
}

template <class T>
void check_against_exact(const std::vector<T>& x, bool inclusive) {
  const std::size_t n = x.size();
  std::vector<double> ref(n), abs(n), err(n);
  reference_scan(x.data(), n, inclusive, ref.data(), abs.data(), err.data());
  __int128 exact = 0, exact_abs = 0;
  std::size_t bad = 0, loose = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto scaled = static_cast<__int128>(std::ldexp(static_cast<double>(x[i]), 63));  // exact: x_i·2^63 is an integer
    if (inclusive) exact += scaled, exact_abs += scaled < 0 ? -scaled : scaled;  // exclusive: after the check
    const long double want = std::ldexp(static_cast<long double>(exact), -63);
    const long double want_abs = std::ldexp(static_cast<long double>(exact_abs), -63);
    if (!(std::fabs(static_cast<long double>(ref[i]) - want) <= err[i] + 1e-300)) ++bad;
    if (!(abs[i] >= static_cast<double>(want_abs) * (1 - 1e-15))) ++bad;
    // The reference's own error bound stays far below any kernel's: within a few units of roundoff
    // of the prefix's magnitude.
    if (err[i] > 4e-16 * abs[i] + 1e-300) ++loose;
    if (!inclusive) exact += scaled, exact_abs += scaled < 0 ? -scaled : scaled;
  }
  CHECK(bad == 0);
  CHECK(loose == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("reference_scan: every prefix within its own error bound of the exact one", T, float, double) {
  // 300000: more than one chunk wherever there are two cores (chunks of at least 2^16).
  for (std::size_t n : {1u, 2u, 33u, 1000u, 300000u})
    for (bool inclusive : {true, false}) {
      CAPTURE(n);
      CAPTURE(inclusive);
      check_against_exact(dyadic_values<T>(n, 17 + n), inclusive);
    }
}

TEST_CASE("reference_scan: cancellation (huge terms that cancel) keeps the small ones") {
  std::vector<double> x;
  for (int i = 0; i < 100000; ++i) x.insert(x.end(), {1e16, 1.0, -1e16});
  std::vector<double> ref(x.size()), abs(x.size()), err(x.size());
  reference_scan(x.data(), x.size(), true, ref.data(), abs.data(), err.data());
  CHECK(ref.back() == 100000.0);
  CHECK(ref[2] == 1.0);
  CHECK(ref[ref.size() - 2] == 1e16 + 100000.0);
}

TEST_CASE("reference_scan: ints exact, wrapping modulo 2^32 like CUDA's int adds, in both forms") {
  std::vector<int> x(200003);
  fill_random(x.data(), x.size(), fresh_seed());
  x[5] = 2147483647;  // prefixes past INT_MAX from here on
  x[6] = 2147483647;
  for (bool inclusive : {true, false}) {
    std::vector<double> ref(x.size()), abs(x.size()), err(x.size());
    reference_scan(x.data(), x.size(), inclusive, ref.data(), abs.data(), err.data());
    long long run = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (inclusive) run += x[i];
      if (ref[i] != static_cast<double>(wrap_int32(run))) ++bad;
      if (!inclusive) run += x[i];
    }
    CAPTURE(inclusive);
    CHECK(bad == 0);
    CHECK(ref[0] == (inclusive ? x[0] : 0));
  }
}

TEST_CASE_TEMPLATE("the exact input set: every prefix, and every partial sum of any subset, exact", T, float, double) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1000003}, (std::size_t{1} << 25) + 7}) {
    CAPTURE(n);
    std::vector<T> x(n);
    fill_exact(x.data(), n, fresh_seed(), exact_values<T>(static_cast<double>(n), 1, true), Sentinels{n, 0});
    double abs_sum = 0;
    for (T v : x) {
      REQUIRE(v == std::round(v));  // integers
      abs_sum += std::fabs(static_cast<double>(v));
    }
    // Every partial sum of any subset is at most sum|x| in magnitude: within the mantissa.
    CHECK(abs_sum <= std::ldexp(1.0, std::numeric_limits<T>::digits));
    CHECK(std::fabs(static_cast<double>(x[0])) == sentinel_value<T>());  // x_0: the precision sentinel
    if (n > 2 * kExactEdge) {
      for (std::size_t i = 1; i < kExactEdge; ++i) REQUIRE(x[i] != T(0));  // the edges are never sparse
      for (std::size_t i = n - kExactEdge; i < n; ++i) REQUIRE(x[i] != T(0));
    }
  }
}

namespace {

template <class T>
std::vector<ScanVariant<T>> all_variants() {
  auto v = scan_handwritten<T>();
  for (const auto& l : scan_library<T>()) v.push_back(l);
  return v;
}

template <class T>
void check_depths(std::set<std::string>& checked) {
  std::vector<std::size_t> sizes = {1, 31, 33, 1000, 1009, 1000003, std::size_t{1} << 28, (std::size_t{1} << 31) + 7,
                                    std::size_t{1} << 34, std::size_t{1} << 36};
  for (const auto& v : all_variants<T>())
    for (std::size_t n : sizes)
      for (ScanForm form : {ScanForm::inclusive, ScanForm::exclusive}) {
        CAPTURE(v.info.name);
        CAPTURE(n);
        const ScanShape sh{n, form};
        double depth = 0;
        try {
          if (v.unsupported && v.unsupported(sh)) continue;
          depth = v.rounding_depth ? v.rounding_depth(sh) : static_cast<double>(n);
        } catch (const std::exception&) {
          continue;  // a hook that needs a device (SM count, CUB's storage query)
        }
        checked.insert(std::string(v.info.name));
        CHECK(depth >= 1);
        if (!std::is_integral_v<T>) CHECK(meaningful_factor(gamma_bound(depth, unit_roundoff<T>())));
      }
}

}  // namespace

TEST_CASE_TEMPLATE("every scan variant is unsupported or meaningfully bounded at the sizes that are run", T, int, float,
                   double) {
  std::set<std::string> checked;
  check_depths<T>(checked);
  // The steps whose hooks need no device were all checked.
  for (const char* name : {"scan1_hillis_steele", "scan2_scan_then_propagate", "scan3_blelloch", "scan4_conflict_free",
                           "scan5_warp_shuffle", "scan7_chained", "scan8_decoupled_lookback",
                           "scan9_vectorized_128x96B_p688_w1140", "scan9_vectorized_128x128B_p688_w1140"})
    CHECK(checked.count(name) == 1);
}

TEST_CASE("scan1 says why beyond one block; the ladder's names and order") {
  const auto v = scan_handwritten<float>();
  REQUIRE(v.size() >= 9);
  CHECK(v[0].info.name == "scan1_hillis_steele");
  CHECK(v[0].unsupported(ScanShape{1024, ScanForm::inclusive}) == nullptr);
  CHECK(v[0].unsupported(ScanShape{1025, ScanForm::exclusive}) != nullptr);
  CHECK(v[7].info.name == "scan8_decoupled_lookback");
  for (const auto& x : v) CHECK(x.info.origin.rfind("beyond the documents", 0) == 0);
  std::set<std::string> lib;
  for (const auto& l : scan_library<double>()) lib.insert(std::string(l.info.name));
  CHECK(lib == std::set<std::string>{"cub_device_scan", "thrust_scan", "cub_block_scan"});
}

TEST_CASE("the scan family: its axis, its sizes, its argument struct") {
  const Family& f = family<ScanFamily>();
  CHECK(f.args_kind() == "ScanArgs");
  const auto axes = f.axes();
  REQUIRE(axes.size() == 1);
  CHECK(axes[0].name == "form");
  CHECK(axes[0].values == std::vector<std::string>{"inclusive", "exclusive"});
  CHECK(parse_scan_form("exclusive") == ScanForm::exclusive);
  CHECK_THROWS_AS(parse_scan_form("both"), UsageError);
  const auto odd = f.sizes().parse("scan", "odd");
  CHECK(odd.back().at(0) == (1LL << 31) + 7);
  const ProblemKey k = make_key(f, DType::f32, {1000003}, {{"form", "exclusive"}});
  const ScanShape sh = ScanFamily::Problem<float>::size_of(k);
  CHECK(sh.n == 1000003);
  CHECK(sh.form == ScanForm::exclusive);
  // Every field of ScanArgs a whole 8-byte word: no padding bytes beside the device pointers that a
  // submission's sandbox finds by scanning the struct's words.
  static_assert(sizeof(ScanArgs<float>) == 5 * 8);
  static_assert(sizeof(ScanShape) == 16);
}

TEST_CASE("compare lists the scan family without a GPU, and an outside folder's scans join it") {
  const kl::test::Run list = kl::test::run_compare("--list -f scan -t float");
  REQUIRE(list.code == 0);
  for (const char* v : {"scan1_hillis_steele", "scan6_reduce_then_scan", "scan8_decoupled_lookback",
                        "scan9_vectorized_128x96B", "cub_device_scan", "thrust_scan", "cub_block_scan"}) {
    CAPTURE(v);
    CHECK(list.output.find(v) != std::string::npos);
  }
  const kl::test::Run user = kl::test::run_compare(std::string("--submissions ") + KL_EXAMPLES_MANIFEST + " --list -f scan");
  REQUIRE(user.code == 0);
  CHECK(user.output.find("dave/two_pass") != std::string::npos);
  CHECK(user.output.find("dave/block_only") != std::string::npos);
  const kl::test::Run dry = kl::test::run_compare("--dry-run -f scan -t int,float,double -a form=inclusive,exclusive -s odd");
  CHECK(dry.code == 0);
  CHECK(dry.output.find("scan float n=2147483655 form=exclusive") != std::string::npos);
}
