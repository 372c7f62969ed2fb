// `compare diff`: the Mann-Whitney U test against hand-computed and published values, the
// verdicts on synthetic reports (a real regression, pure noise, a new failure, an improvement,
// rows in one run only, schema-1 input), and the exit status through the real executable.
// (Figures in this file's comments are unmeasured: the synthetic reports' own parameters.)
#include "compare/diff/diff.hpp"
#include "compare/report/schema.hpp"
#include "compare_cli.hpp"

#include <zlib.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace kl;
using nlohmann::json;

namespace {

// ---- synthetic samples and reports ---------------------------------------------------------

// Normal draws from mt19937_64 (fully specified by the standard, unlike normal_distribution),
// so every platform sees the same samples.
std::vector<double> draws(std::uint64_t seed, std::size_t n, double mean, double rel_sd) {
  std::mt19937_64 g(seed);
  auto uniform = [&] { return (static_cast<double>(g() >> 11) + 0.5) / 9007199254740992.0; };
  std::vector<double> v;
  while (v.size() < n) {
    const double r = std::sqrt(-2 * std::log(uniform())), t = 6.283185307179586 * uniform();
    v.push_back(mean * (1 + rel_sd * r * std::cos(t)));
    if (v.size() < n) v.push_back(mean * (1 + rel_sd * r * std::sin(t)));
  }
  return v;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double noise_of(const std::vector<double>& v) {
  double m = 0, ss = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1)) / m;
}

// A row as compare's to_json writes it (schema 2), or schema 1 (samples only counted).
json row(const std::string& variant, const std::vector<double>& samples, const std::string& status = "ok",
         int schema = 2, const std::string& shape = "n=1024", const std::string& source = "handwritten") {
  json r = {{"family", "reduce"}, {"dtype", "float"}, {"shape", shape}, {"dims", {1024}},
            {"variant", variant}, {"source", source},  {"status", status}};
  if (status != "ok") r["note"] = variant + ": out of bounds";
  if (!samples.empty()) {
    r["timing_ms"] = {{"median", median_of(samples)}, {"noise", noise_of(samples)}, {"converged", true}};
    if (schema == 2) {
      r["timing_ms"]["count"] = samples.size();
      r["timing_ms"]["samples"] = samples;
    } else {
      r["timing_ms"]["samples"] = samples.size();
    }
  }
  return r;
}

json report(std::vector<json> rows, int schema = 2, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  json j = {{"schema", "kernel-ladder/compare/" + std::to_string(schema)},
            {"git_commit", "abc123"},
            {"timestamp_utc", "2026-01-01T00:00:00Z"},
            {"mode", "kernel"},
            {"device", {{"name", gpu}, {"sm_count", 132}, {"smem_bank_mode", "4-byte"}}},
            {"versions", {{"driver", 13000}, {"cuda_runtime", 13000}, {"cublas", "13.1.0"}, {"cccl", "3.0.1"}}},
            {"complete", true},
            {"results", rows}};
  if (schema >= 2) j["l2_flush"] = "read";
  return j;
}

// These tests judge the U test, Holm's adjustment, the threshold and the control on one-pass runs;
// the run floor added to one-pass rows (tests/diff/test_judging.cpp tests it) is turned off here,
// so the reports' small synthetic medians show the mechanism each test is about.
DiffResult diff(const json& o, const json& n, DiffOptions opt = {}) {
  opt.run_floor_us = 0;
  return diff_runs(parse_run(o.dump(), "OLD.json"), parse_run(n.dump(), "NEW.json"), opt);
}

const DiffRow& find(const DiffResult& d, const std::string& variant) {
  for (const DiffRow& r : d.rows)
    if (r.variant == variant) return r;
  FAIL("no row " << variant);
  return d.rows.front();
}

// ---- the real executable ---------------------------------------------------------------------

using test::count_lines;

struct Run {
  int code;
  std::string out, err;
};

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kl-diff-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

Run run_diff(const TempDir& dir, const std::string& args, const std::string& exe = test::compare_exe() + " diff") {
  const std::string err_file = (dir.path / "stderr.txt").string();
  const test::Run r = test::run_shell(exe + " " + args + " 2>" + err_file);
  return {r.code, r.output, dir.read("stderr.txt")};
}

// `text` gzip-compressed into `path` (what `gzip` writes).
void write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

}  // namespace

// ---- the U statistic -----------------------------------------------------------------------------

TEST_CASE("U test: the textbook example (scipy.stats.mannwhitneyu docs), exact") {
  // Pairs (male > female): 19 beats 11,17,12; 22 beats all 4; 16 beats 11,12; 29 and 24 beat
  // all 4: U1 = 3 + 4 + 2 + 4 + 4 = 17, U2 = 20 - 17 = 3. Exact two-sided p: U <= 3 happens in
  // 1 + 1 + 2 + 3 = 7 of C(9,4) = 126 arrangements, so p = 2 * 7 / 126 = 0.1111.
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  const UTest t = mann_whitney_u(males, females);
  REQUIRE(t.ran);
  CHECK(t.exact);
  CHECK(t.u1 == 17);
  CHECK(t.u2 == 3);
  CHECK(t.p == doctest::Approx(14.0 / 126.0).epsilon(1e-12));
  const UTest swapped = mann_whitney_u(females, males);
  CHECK(swapped.u1 == 3);
  CHECK(swapped.p == doctest::Approx(t.p).epsilon(1e-12));
}

TEST_CASE("U test: exact p for 30 vs 30 without ties (scipy method='exact': 0.04620984721428615)") {
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) a.push_back((i * 37) % 101), b.push_back((i * 53) % 97 + 20.5);
  const UTest t = mann_whitney_u(a, b);
  CHECK(t.exact);
  CHECK(t.u1 == 315);
  CHECK(t.p == doctest::Approx(0.04620984721428615).epsilon(1e-9));
}

TEST_CASE("U test: exact p with ties equals brute-force enumeration of the permutations") {
  // Midranks by definition: #smaller + (#equal + 1) / 2. Every 5-subset of the 11 pooled values
  // is equally likely under H0; p = share of subsets whose rank sum is at least as far from
  // its mean 5 * 12 / 2 = 30 as the observed one.
  const std::vector<double> a = {1, 2, 2, 3, 5}, b = {2, 3, 3, 4, 6, 6};
  std::vector<double> pool = a;
  pool.insert(pool.end(), b.begin(), b.end());
  std::vector<double> rank;
  for (double x : pool) {
    double less = 0, equal = 0;
    for (double y : pool) less += y < x, equal += y == x;
    rank.push_back(less + (equal + 1) / 2);
  }
  const double observed = rank[0] + rank[1] + rank[2] + rank[3] + rank[4];
  int extreme = 0, all = 0;
  for (int mask = 0; mask < (1 << 11); ++mask) {
    if (__builtin_popcount(static_cast<unsigned>(mask)) != 5) continue;
    double s = 0;
    for (int i = 0; i < 11; ++i)
      if (mask >> i & 1) s += rank[static_cast<std::size_t>(i)];
    ++all;
    extreme += std::fabs(s - 30) >= std::fabs(observed - 30) - 1e-9;
  }
  REQUIRE(all == 462);
  CHECK(extreme == 78);  // p = 0.1688 (scipy's tie-corrected normal approximation says 0.162)
  const UTest t = mann_whitney_u(a, b);
  CHECK(t.exact);
  CHECK(t.u1 == observed - 15);  // U1 = R1 - n1(n1+1)/2 = 7
  CHECK(t.p == doctest::Approx(78.0 / 462.0).epsilon(1e-12));
}

TEST_CASE("U test: normal approximation with tie and continuity corrections for large samples") {
  // 50 vs 60 values with heavy ties (46 distinct of 110): scipy.stats.mannwhitneyu(a, b,
  // method='asymptotic') gives U1 = 1168.5, p = 0.046854603934272286.
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) a.push_back((i * 7) % 23 + 0.5 * (i % 3));
  for (int i = 0; i < 60; ++i) b.push_back((i * 5) % 19 + 5 + 0.5 * (i % 2));
  const UTest t = mann_whitney_u(a, b);
  REQUIRE(t.ran);
  CHECK_FALSE(t.exact);
  CHECK(t.u1 == 1168.5);
  CHECK(t.u1 + t.u2 == 3000);
  CHECK(t.p == doctest::Approx(0.046854603934272286).epsilon(1e-9));
  CHECK(t.z < 0);  // a tends to be smaller
}

TEST_CASE("U test: degenerate and small samples") {
  const std::vector<double> one = {1.0}, two = {1.0, 2.0};
  CHECK_FALSE(mann_whitney_u(one, two).ran);
  // Identical values cannot be told apart.
  const std::vector<double> same(10, 3.0);
  CHECK(mann_whitney_u(same, same).p == 1.0);
  // Complete separation at 3 vs 3: p = 2 / C(6,3) = 0.1, the smallest possible, so 3 samples
  // per run can never be significant at 0.05; at 4 vs 4 the floor is 2 / 70.
  const std::vector<double> lo3 = {1, 2, 3}, hi3 = {4, 5, 6}, lo4 = {1, 2, 3, 4}, hi4 = {5, 6, 7, 8};
  CHECK(mann_whitney_u(lo3, hi3).p == doctest::Approx(0.1));
  CHECK(mann_whitney_u(lo3, hi3).min_p == doctest::Approx(0.1));
  CHECK(mann_whitney_u(lo4, hi4).min_p == doctest::Approx(2.0 / 70.0));
  CHECK(mann_whitney_u(lo4, hi4).u1 == 0);
}

// ---- verdicts --------------------------------------------------------------------------------------

TEST_CASE("a real regression is flagged: 30 samples around 1.00 ms vs 30 around 1.10 ms, 1% noise") {
  const auto old_s = draws(1, 30, 1.00, 0.01), new_s = draws(2, 30, 1.10, 0.01);
  const DiffResult d = diff(report({row("k", old_s)}), report({row("k", new_s)}));
  const DiffRow& r = find(d, "k");
  CHECK(r.verdict == Verdict::slower);
  CHECK(r.regression);
  CHECK(r.test.p < 1e-6);
  CHECK(r.ratio == doctest::Approx(1.10).epsilon(0.01));
  CHECK(diff_exit_code(d) == 1);
  std::ostringstream os;
  print_diff(os, d, false);
  CHECK(has(os.str(), "SLOWER"));
  CHECK(has(os.str(), "-9."));  // speed change old/new - 1 = -9.1%
  CHECK(has(diff_markdown(d, false), "**SLOWER**"));
}

TEST_CASE("pure noise is not flagged: two seeded draws from one distribution") {
  const DiffResult d = diff(report({row("k", draws(100, 30, 1.0, 0.01))}), report({row("k", draws(101, 30, 1.0, 0.01))}));
  CHECK(find(d, "k").verdict == Verdict::same);
  CHECK(diff_exit_code(d) == 0);
  // Over many one-row comparisons: the U test alone rejects at about its nominal rate alpha (it
  // is calibrated: neither blind nor trigger-happy), and the threshold only removes flags.
  for (std::size_t n : {10u, 30u}) {
    int rejected = 0, flagged = 0;
    const int pairs = 400;
    for (int i = 0; i < pairs; ++i) {
      const auto a = draws(1000 + 2 * i, n, 0.5, 0.02), b = draws(1001 + 2 * i, n, 0.5, 0.02);
      const DiffResult d_ab = diff(report({row("k", a)}), report({row("k", b)}));
      const DiffRow& r = find(d_ab, "k");
      rejected += r.test.p < 0.05;
      flagged += r.verdict != Verdict::same;
    }
    INFO("n " << n << ": U test rejected " << rejected << ", flagged " << flagged << " of " << pairs);
    CHECK(rejected >= pairs / 100);      // >= 1%
    CHECK(rejected <= pairs * 8 / 100);  // <= 8%: 5% nominal plus sampling error
    CHECK(flagged <= rejected);
  }
}

TEST_CASE("a run of many rows: noise flags nothing (Holm), one slowed row is flagged alone") {
  // Like the default comparison run twice: 200 rows at 10 samples each with 2% noise (the
  // runner's stopping target, the worst case for the threshold). Per-row tests at 0.05 would
  // flag some of them; the adjusted p-values flag none.
  std::vector<json> old_rows, new_rows, slowed_rows;
  for (int i = 0; i < 200; ++i) {
    const std::string v = "v" + std::to_string(i);
    old_rows.push_back(row(v, draws(5000 + 3 * i, 10, 0.2, 0.02)));
    const auto again = draws(5001 + 3 * i, 10, 0.2, 0.02);
    new_rows.push_back(row(v, again));
    slowed_rows.push_back(row(v, i == 77 ? draws(5002 + 3 * i, 10, 0.2 * 1.10, 0.02) : again));
  }
  const DiffResult same = diff(report(old_rows), report(new_rows));
  std::size_t raw_rejections = 0;
  for (const DiffRow& r : same.rows) raw_rejections += r.test.p < 0.05;
  INFO("per-row U tests below 0.05: " << raw_rejections);
  CHECK(raw_rejections > 0);  // what an unadjusted gate would have tripped on
  CHECK(same.count(Verdict::same) == 200);
  CHECK(diff_exit_code(same) == 0);
  const DiffResult slowed = diff(report(old_rows), report(slowed_rows));
  CHECK(slowed.count(Verdict::slower) == 1);
  CHECK(find(slowed, "v77").verdict == Verdict::slower);
  CHECK(diff_exit_code(slowed) == 1);
}

TEST_CASE("the library as a control: a whole-problem shift or a library-only shift is not flagged, a kernel's own change is") {
  // What two H100 runs of one commit showed (tests/fixtures/twice_a.json.gz, twice_b.json.gz):
  // every row of a problem moved together, the library with them, by ~3%, far beyond the samples' 0.3% spread.
  auto lib = [](const std::vector<double>& s) { return row("lib", s, "ok", 2, "n=1024", "library"); };
  const auto k_old = draws(60, 30, 1.0, 0.003), lib_old = draws(61, 30, 0.8, 0.003);
  const auto k_new = draws(62, 30, 1.03, 0.003), lib_new = draws(63, 30, 0.8 * 1.03, 0.003);
  const json o = report({row("k", k_old), lib(lib_old)});
  const json shifted = report({row("k", k_new), lib(lib_new)});
  const DiffResult d = diff(o, shifted);
  CHECK(d.control_used);
  const DiffRow& k = find(d, "k");
  CHECK(k.control == doctest::Approx(1.03).epsilon(0.005));
  CHECK(k.raw_ratio == doctest::Approx(1.03).epsilon(0.005));
  CHECK(k.ratio == doctest::Approx(1.0).epsilon(0.005));
  CHECK(k.verdict == Verdict::same);
  // The library itself is judged raw: it moved 3%, which the report shows as a slower library.
  CHECK(find(d, "lib").control == 0);
  CHECK(find(d, "lib").verdict == Verdict::slower);
  // Without the control the kernel's 3% is a regression like the library's.
  DiffOptions raw;
  raw.control = false;
  CHECK(find(diff(o, shifted, raw), "k").verdict == Verdict::slower);
  // The kernel slowed 6% while the library stayed: flagged, through the control.
  const json slowed = report({row("k", draws(64, 30, 1.06, 0.003)), lib(draws(65, 30, 0.8, 0.003))});
  const DiffResult s = diff(o, slowed);
  CHECK(find(s, "k").verdict == Verdict::slower);
  CHECK(find(s, "lib").verdict == Verdict::same);
  CHECK(diff_exit_code(s) == 1);
  std::ostringstream os;
  print_diff(os, s, false);
  CHECK(has(os.str(), "/lib"));
  CHECK(has(os.str(), "must change both raw and against its problem's library rows"));
  // The library alone got 8% faster (it happened between two lent H100s at small products) and
  // the kernel stayed: relative to the library the kernel looks 8% slower, raw it is the same,
  // so it is not flagged.
  const json lib_faster = report({row("k", draws(66, 30, 1.0, 0.003)), lib(draws(67, 30, 0.8 / 1.08, 0.003))});
  const DiffResult lf = diff(o, lib_faster);
  CHECK(find(lf, "k").raw_ratio == doctest::Approx(1.0).epsilon(0.005));
  CHECK(find(lf, "k").raw_ratio / find(lf, "k").control == doctest::Approx(1.08).epsilon(0.01));
  CHECK(find(lf, "k").verdict == Verdict::same);
  CHECK(find(lf, "lib").verdict == Verdict::faster);
  CHECK(diff_exit_code(lf) == 0);
  // The control is per problem: another shape's library does not move this shape's rows.
  const json other = report({row("k", k_new), row("lib", lib_new, "ok", 2, "n=2048", "library")});
  const json other_old = report({row("k", k_old), row("lib", lib_old, "ok", 2, "n=2048", "library")});
  CHECK(find(diff(other_old, other), "k").control == 0);
  CHECK(find(diff(other_old, other), "k").verdict == Verdict::slower);
  // Another cuBLAS version: the library is no control, every row judged raw, and said so.
  json other_lib = shifted;
  other_lib["versions"]["cublas"] = "12.9.0";
  const DiffResult v = diff(o, other_lib);
  CHECK_FALSE(v.control_used);
  CHECK(find(v, "k").verdict == Verdict::slower);
  std::string all;
  for (const auto& w : v.warnings) all += w + "\n";
  CHECK(has(all, "library is no control"));
}

TEST_CASE("significant but within the threshold is the same; the threshold rises to the quieter run's noise") {
  // 1% slower with 0.1% noise: overwhelming p, but under the 2% floor.
  const DiffResult small = diff(report({row("k", draws(3, 200, 1.0, 0.001))}), report({row("k", draws(4, 200, 1.01, 0.001))}));
  CHECK(find(small, "k").test.p < 1e-6);
  CHECK(find(small, "k").verdict == Verdict::same);
  CHECK(has(find(small, "k").why, "within 2.0%"));
  // ...and flagged once the threshold is lowered.
  DiffOptions strict;
  strict.threshold = 0.005;
  CHECK(diff(report({row("k", draws(3, 200, 1.0, 0.001))}), report({row("k", draws(4, 200, 1.01, 0.001))}), strict)
            .rows[0]
            .verdict == Verdict::slower);
  // 4% slower where both runs have ~6% noise: significant with 300 samples, but within the noise.
  const DiffResult noisy_d = diff(report({row("k", draws(5, 300, 1.0, 0.06))}), report({row("k", draws(6, 300, 1.04, 0.06))}));
  const DiffRow& noisy = find(noisy_d, "k");  // a reference into a live result, not a temporary
  CHECK(noisy.threshold > 0.05);
  CHECK(noisy.verdict == Verdict::same);
  // nvbench's rule takes the quieter run: one noisy run does not hide a 5% change.
  const DiffResult one_noisy_d = diff(report({row("k", draws(7, 300, 1.0, 0.001))}), report({row("k", draws(8, 300, 1.05, 0.08))}));
  const DiffRow& one_noisy = find(one_noisy_d, "k");
  CHECK(one_noisy.threshold == doctest::Approx(0.02));
  CHECK(one_noisy.verdict == Verdict::slower);
}

TEST_CASE("an improvement is flagged as faster and exits 0") {
  const DiffResult d = diff(report({row("k", draws(9, 30, 1.0, 0.01))}), report({row("k", draws(10, 30, 0.8, 0.01))}));
  CHECK(find(d, "k").verdict == Verdict::faster);
  CHECK_FALSE(find(d, "k").regression);
  CHECK(diff_exit_code(d) == 0);
}

TEST_CASE("a variant that starts failing is a regression; one that was failing is not") {
  const auto s = draws(11, 10, 1.0, 0.01);
  const DiffResult d = diff(report({row("a", s), row("b", s, "FAIL"), row("c", s), row("d", s, "skipped")}),
                            report({row("a", s, "FAIL"), row("b", s, "FAIL"), row("c", {}, "ERROR"), row("d", s)}));
  CHECK(find(d, "a").verdict == Verdict::now_failing);
  CHECK(has(find(d, "a").why, "out of bounds"));
  CHECK(find(d, "b").verdict == Verdict::still_failing);
  CHECK_FALSE(find(d, "b").regression);
  CHECK(find(d, "c").verdict == Verdict::now_failing);
  CHECK(find(d, "d").verdict == Verdict::now_runs);
  CHECK(d.regressions() == 2);
  CHECK(diff_exit_code(d) == 1);
  // Fixed: failing before, ok now.
  CHECK(diff(report({row("a", s, "FAIL")}), report({row("a", s)})).rows[0].verdict == Verdict::fixed);
}

TEST_CASE("rows in one run only are listed, never dropped; duplicates pair up in order") {
  const auto s = draws(12, 10, 1.0, 0.01);
  const DiffResult d = diff(report({row("gone", s), row("kept", s), row("twice", s, "ok", 2, "n=1"), row("twice", s, "ok", 2, "n=1")}),
                            report({row("kept", s), row("new", s), row("new_broken", s, "FAIL"), row("twice", s, "ok", 2, "n=1")}));
  CHECK(find(d, "gone").verdict == Verdict::only_old);
  CHECK(find(d, "new").verdict == Verdict::only_new);
  CHECK_FALSE(find(d, "new").regression);
  CHECK(find(d, "new_broken").regression);  // a new variant that fails is a new failure
  std::size_t twice_matched = 0, twice_old_only = 0;
  for (const DiffRow& r : d.rows)
    if (r.variant == "twice") (r.verdict == Verdict::only_old ? twice_old_only : twice_matched) += 1;
  CHECK(twice_matched == 1);
  CHECK(twice_old_only == 1);
  std::ostringstream os;
  print_diff(os, d, true);  // --only-changed keeps them
  CHECK(has(os.str(), "only in OLD"));
  CHECK(has(os.str(), "only in NEW"));
  CHECK_FALSE(has(os.str(), "kept"));
}

TEST_CASE("schema-1 input: medians and ratio, no significance, no failure of the comparison") {
  const json old1 = report({row("k", draws(13, 10, 1.0, 0.01), "ok", 1), row("q", draws(14, 10, 1.0, 0.01), "ok", 1)}, 1);
  const json new2 = report({row("k", draws(15, 10, 1.5, 0.01)), row("q", draws(16, 10, 1.0, 0.01))});
  const DiffResult d = diff(old1, new2);
  const DiffRow& k = find(d, "k");
  CHECK_FALSE(k.test.ran);
  CHECK(k.verdict == Verdict::maybe_slower);
  CHECK(has(k.why, "no samples in OLD"));
  CHECK(k.ratio == doctest::Approx(1.5).epsilon(0.02));
  CHECK(find(d, "q").verdict == Verdict::unknown);
  CHECK(diff_exit_code(d) == 0);
  bool warned = false;
  for (const auto& w : d.warnings) warned |= has(w, "without samples");
  CHECK(warned);
}

TEST_CASE("too few samples to reach significance is said, not guessed") {
  const DiffResult d = diff(report({row("k", {1.0, 1.01, 0.99})}), report({row("k", {2.0, 2.01, 1.99})}));
  CHECK(find(d, "k").verdict == Verdict::maybe_slower);
  CHECK(has(find(d, "k").why, "too few samples"));
  CHECK(diff_exit_code(d) == 0);
}

TEST_CASE("few samples among many rows: untestable after the adjustment, said so") {
  // 5 vs 5 samples can reach p = 2/252 = 0.008 alone, but not below 0.05 / 20 among 20 rows.
  std::vector<json> o, n;
  for (int i = 0; i < 20; ++i) {
    const std::string v = "v" + std::to_string(i);
    o.push_back(row(v, draws(600 + 2 * i, 5, 1.0, 0.01)));
    n.push_back(row(v, draws(601 + 2 * i, 5, i == 3 ? 1.5 : 1.0, 0.01)));
  }
  const DiffResult alone = diff(report({o[3]}), report({n[3]}));
  CHECK(alone.rows[0].verdict == Verdict::slower);
  const DiffResult many = diff(report(o), report(n));
  const DiffRow& r = find(many, "v3");
  CHECK(r.verdict == Verdict::maybe_slower);
  CHECK(r.too_few);
  CHECK(has(r.why, "among 20 rows"));
  CHECK(diff_exit_code(many) == 0);
}

TEST_CASE("identical samples in both runs (a quantised timer) are the same, not untestable") {
  const std::vector<double> q(10, 0.008192);
  const DiffResult d = diff(report({row("k", q)}), report({row("k", q)}));
  CHECK(find(d, "k").verdict == Verdict::same);
  CHECK(find(d, "k").why.empty());
}

TEST_CASE("different GPUs, versions and flush methods are warned about; device_state is shown") {
  json o = report({row("k", draws(17, 10, 1, 0.01))});
  json n = report({row("k", draws(18, 10, 1, 0.01))}, 2, "NVIDIA A100-SXM4-80GB");
  n["versions"]["cublas"] = "12.9.0";
  n["l2_flush"] = "memset";
  n["device_state"] = {{"start", {{"sm_clock_mhz", 1980}, {"temperature_c", 41}}}, {"clocks_locked", false}};
  const DiffResult d = diff(o, n);
  std::string all;
  for (const auto& w : d.warnings) all += w + "\n";
  CHECK(has(all, "GPU: 'NVIDIA H100 80GB HBM3' (OLD) vs 'NVIDIA A100-SXM4-80GB' (NEW)"));
  CHECK(has(all, "cuBLAS"));
  CHECK(has(all, "L2 flush"));
  CHECK_FALSE(has(all, "driver"));
  std::ostringstream os;
  print_diff(os, d, false);
  CHECK(has(os.str(), "warning: the runs differ in GPU"));
  CHECK(has(os.str(), "start.temperature_c: - -> 41"));
  CHECK(has(diff_markdown(d, false), "**Warning:** the runs differ in GPU"));
  // Same environment: no warning at all.
  CHECK(diff(o, o).warnings.empty());
}

TEST_CASE("bad input throws DiffInputError with one line") {
  auto fails = [](const std::string& text, const std::string& needle) {
    try {
      parse_run(text, "x.json");
    } catch (const DiffInputError& e) {
      INFO(e.what());
      CHECK(has(e.what(), needle));
      CHECK_FALSE(has(e.what(), "\n"));
      return;
    }
    FAIL("accepted: " << text);
  };
  fails("{not json", "not JSON");
  fails("[1, 2]", "not a compare report");
  fails(R"({"schema": "other/1", "results": []})", "not a compare report");
  fails(R"({"schema": "kernel-ladder/compare/2"})", "no \"results\"");
  fails(R"({"schema": "kernel-ladder/compare/2", "results": [{"family": "reduce"}]})", "no \"dtype\"");
}

// ---- through the executable ---------------------------------------------------------------------

TEST_CASE("compare diff: exit status 1 on a regression, 0 on an improvement, markdown file, --only-changed") {
  TempDir dir;
  const std::string old_f = dir.write("old.json", report({row("k", draws(1, 30, 1.0, 0.01)), row("steady", draws(20, 30, 1.0, 0.01))}).dump());
  const std::string slow_f = dir.write("slow.json", report({row("k", draws(2, 30, 1.1, 0.01)), row("steady", draws(21, 30, 1.0, 0.01))}).dump());
  const std::string fast_f = dir.write("fast.json", report({row("k", draws(3, 30, 0.9, 0.01)), row("steady", draws(22, 30, 1.0, 0.01))}).dump());
  const Run slow = run_diff(dir, old_f + " " + slow_f + " --markdown " + (dir.path / "d.md").string());
  CHECK(slow.code == 1);
  CHECK(has(slow.out, "SLOWER"));
  CHECK(has(slow.out, "steady"));
  CHECK(slow.err.empty());
  CHECK(has(dir.read("d.md"), "| `k` |"));
  const Run changed = run_diff(dir, old_f + " " + slow_f + " --only-changed");
  CHECK(changed.code == 1);
  CHECK_FALSE(has(changed.out, "steady"));
  const Run fast = run_diff(dir, old_f + " " + fast_f + " --format md");
  CHECK(fast.code == 0);
  CHECK(has(fast.out, "| faster |"));
  // A 10% regression under --threshold 15% is not one.
  CHECK(run_diff(dir, old_f + " " + slow_f + " --threshold 15%").code == 0);
  CHECK(run_diff(dir, "--help").code == 0);
}

TEST_CASE("compare diff: a variant that starts failing exits 1") {
  TempDir dir;
  const auto s = draws(30, 10, 1.0, 0.01);
  const Run r = run_diff(dir, dir.write("o.json", report({row("k", s)}).dump()) + " " +
                                  dir.write("n.json", report({row("k", s, "ERROR")}).dump()));
  CHECK(r.code == 1);
  CHECK(has(r.out, "NOW FAILING"));
}

TEST_CASE("compare diff: bad input is exit status 2 with one line on stderr") {
  TempDir dir;
  const std::string good = dir.write("good.json", report({row("k", draws(31, 10, 1, 0.01))}).dump());
  const std::string not_json = dir.write("bad.json", "{\"schema\": ");
  const std::string other = dir.write("other.json", R"({"benchmarks": []})");
  for (const std::string& args : std::vector<std::string>{good + " " + (dir.path / "missing.json").string(), not_json + " " + good,
                                 good + " " + other, good, good + " " + good + " --threshold 5",
                                 good + " " + good + " --alpha 2", good + " " + good + " --no-such-flag",
                                 good + " " + good + " --format html"}) {
    const Run r = run_diff(dir, args);
    INFO("args: " << args << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(has(r.err, "compare diff: error: "));
    CHECK(r.out.empty());
  }
}

// ---- library rows are the control (issue 22, item 8) -------------------------------------------

TEST_CASE("a library row that got slower is shown as changed but does not fail the comparison; --gate-library lets it") {
  // What happened across two machines: the library row moved, the hand-written kernel did not.
  auto lib = [](const std::vector<double>& s, const std::string& status = "ok") {
    return row("thrust_inner_product", s, status, 2, "n=1024", "library");
  };
  const json o = report({row("k", draws(70, 30, 1.0, 0.003)), lib(draws(71, 30, 0.005, 0.003))});
  const json n = report({row("k", draws(72, 30, 1.0, 0.003)), lib(draws(73, 30, 0.005 * 1.157, 0.003))});
  const DiffResult d = diff(o, n);
  const DiffRow& l = find(d, "thrust_inner_product");
  CHECK(l.library);
  CHECK(l.verdict == Verdict::slower);
  CHECK(l.regression);
  CHECK_FALSE(l.gates);
  CHECK(l.changed);
  CHECK(has(l.why, "library: not counted"));
  CHECK(find(d, "k").verdict == Verdict::same);
  CHECK(d.regressions() == 0);
  CHECK(d.library_regressions() == 1);
  CHECK(diff_exit_code(d) == 0);
  std::ostringstream os;
  print_diff(os, d, true);  // --only-changed still shows it
  CHECK(has(os.str(), "thrust_inner_product [lib]"));
  CHECK(has(os.str(), "SLOWER"));
  CHECK(has(os.str(), "no regression (exit status 0); 1 library row slower or failing, the control: not counted"));
  CHECK(has(diff_markdown(d, true), "`thrust_inner_product` (library)"));
  CHECK_FALSE(has(diff_markdown(d, true), "**SLOWER"));  // bold only for what fails the comparison
  DiffOptions gate;
  gate.gate_library = true;
  const DiffResult g = diff(o, n, gate);
  CHECK(find(g, "thrust_inner_product").gates);
  CHECK(g.regressions() == 1);
  CHECK(diff_exit_code(g) == 1);
  // A library row that starts failing is the control too, unless gated.
  const json broken = report({row("k", draws(72, 30, 1.0, 0.003)), lib({}, "ERROR")});
  CHECK(find(diff(o, broken), "thrust_inner_product").verdict == Verdict::now_failing);
  CHECK(diff_exit_code(diff(o, broken)) == 0);
  CHECK(diff_exit_code(diff(o, broken, gate)) == 1);
  // A hand-written regression still fails beside an ungated library one, and the counts say which.
  const json both = report({row("k", draws(74, 30, 1.10, 0.003)), lib(draws(75, 30, 0.005 * 1.157, 0.003))});
  const DiffResult b = diff(o, both, [] { DiffOptions raw; raw.control = false; return raw; }());
  CHECK(diff_exit_code(b) == 1);
  std::ostringstream bs;
  print_diff(bs, b, false);
  CHECK(has(bs.str(), "1 regression: 1 significantly slower, 0 newly failing (exit status 1); 1 library row"));
}

TEST_CASE("compare diff and compare-diff: a library-only slowdown exits 0, with --gate-library 1") {
  TempDir dir;
  auto lib = [](const std::vector<double>& s) { return row("cublas_gemv", s, "ok", 2, "n=1024", "library"); };
  const std::string o = dir.write("o.json", report({row("k", draws(80, 30, 1.0, 0.003)), lib(draws(81, 30, 0.005, 0.003))}).dump());
  const std::string n = dir.write("n.json", report({row("k", draws(82, 30, 1.0, 0.003)), lib(draws(83, 30, 0.00515, 0.003))}).dump());
  for (const std::string& exe : {test::compare_exe() + " diff", std::string(KL_COMPARE_DIFF_EXE)}) {
    INFO(exe);
    const Run plain = run_diff(dir, o + " " + n + " --only-changed --run-floor-us 0", exe);
    CHECK(plain.code == 0);
    CHECK(has(plain.out, "cublas_gemv [lib]"));
    CHECK(has(plain.out, "SLOWER"));
    const Run gated = run_diff(dir, o + " " + n + " --gate-library --run-floor-us 0", exe);
    CHECK(gated.code == 1);
    CHECK(has(gated.out, "1 regression: 1 significantly slower"));
  }
}

// ---- reading: the report schema, .json.gz, every committed report ------------------------------

TEST_CASE("compare diff reads .json.gz as .json; a damaged one is bad input") {
  TempDir dir;
  const json o = report({row("k", draws(90, 30, 1.0, 0.01))});
  const json n = report({row("k", draws(91, 30, 1.1, 0.01))});
  const std::string plain = dir.write("n.json", n.dump());
  write_gzip((dir.path / "n.json.gz").string(), n.dump(2));
  write_gzip((dir.path / "o.json.gz").string(), o.dump());
  const RunFile a = load_run(plain), b = load_run((dir.path / "n.json.gz").string());
  REQUIRE(a.rows.size() == b.rows.size());
  CHECK(a.rows[0].samples == b.rows[0].samples);
  const Run r = run_diff(dir, (dir.path / "o.json.gz").string() + " " + (dir.path / "n.json.gz").string(), KL_COMPARE_DIFF_EXE);
  CHECK(r.code == 1);
  CHECK(has(r.out, "SLOWER"));
  // Cut short: an error, not a silently shorter report.
  std::string gz;
  {
    std::ifstream in(dir.path / "n.json.gz", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    gz = ss.str();
  }
  std::ofstream(dir.path / "cut.json.gz", std::ios::binary) << gz.substr(0, gz.size() / 2);
  CHECK_THROWS_AS(load_run((dir.path / "cut.json.gz").string()), DiffInputError);
  const Run cut = run_diff(dir, (dir.path / "o.json.gz").string() + " " + (dir.path / "cut.json.gz").string());
  CHECK(cut.code == 2);
  CHECK(count_lines(cut.err) == 1);
  CHECK(has(cut.err, "cut.json.gz"));
}

TEST_CASE("every report in tests/fixtures/ reads (*.json and *.json.gz, schema 1 and 2)") {
  namespace fs = std::filesystem;
  std::size_t json_files = 0, gz_files = 0, rows = 0;
  std::set<int> versions;
  for (const auto& e : fs::directory_iterator(fs::path(KL_SOURCE_DIR) / "tests" / "fixtures")) {
    const std::string p = e.path().string();
    const bool gz = p.size() > 8 && p.ends_with(".json.gz");
    if (!e.is_regular_file() || !(gz || p.ends_with(".json"))) continue;
    // Other JSON there (not-a-report-config-renames.json) is no report: it names no schema; the
    // diff's own defective inputs (empty, incomplete) are in tests/fixtures/diff/, not read here.
    if (read_report_text(p).find("\"schema\"") == std::string::npos) continue;
    INFO(p);
    RunFile f{};
    CHECK_NOTHROW(f = load_run(p));
    (gz ? gz_files : json_files) += 1;
    rows += f.rows.size();
    versions.insert(f.schema_version);
    CHECK_FALSE(f.rows.empty());
    // And the schema writes back what it read: read -> write -> read is the identity on rows.
    const Report once = load_report(p);
    const Report twice = parse_report(to_json(once));
    REQUIRE(once.rows.size() == twice.rows.size());
    CHECK(nlohmann::json(once.rows).dump() == nlohmann::json(twice.rows).dump());
  }
  CHECK(json_files >= 2);
  CHECK(gz_files >= 5);
  CHECK(rows > 500);
  CHECK(versions == std::set<int>{1, 2});
}
