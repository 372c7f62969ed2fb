// Family "rows": one value per row (sum, mean, max, min, sum of squares) or per column (mean) of a
// row-major M × N matrix (document 000's lab, variants 2-6), float and double, any M × N >= 1 × 1.
//
// Axes (compare --axis): `op`, the operation; `layout`, how rows are laid out in memory:
//   packed   rows N elements apart (pitch = N): with N·sizeof(T) not a multiple of 16 (odd N)
//            every row after the first starts off a 16-byte boundary
//   pitched  rows padded to a multiple of 16 bytes, as cudaMallocPitch pads them (it pads to its
//            own larger alignment, 512 bytes on current GPUs; 16 bytes is what 16-byte loads
//            need, and keeps narrow matrices from growing eighteenfold, e.g. 7 floats -> 128)
// The padding of the input is filled with a value that makes any kernel reading it fail: NaN for
// sums and means, +inf for max, -inf for min (max and min ignore NaN in CUDA's fmax/fmin).
//
// Metric: GB/s over the bytes the job must move (M·N·sizeof(T) read, one value per row or column
// written; never the padding), against the device-to-device copy bandwidth measured in the same
// run.
// Validation, per output, against a compensated fp64 reference: sums |s_hat - s| <= gamma(h)·sum|x|
// (h: the variant's declared depth); sums of squares gamma(h + 1)·sum x² (each square rounds once);
// means gamma(h + 2)·sum|x| / count (the count converted to T and the division, or 1/count and a
// multiplication, round twice more); max and min exactly (they round nothing). Plus the
// reference's own error. Exact inputs: integers whose every partial sum is representable (means:
// within exact_slack, see make_reference); for max and min an independent set whose extreme is
// planted at the first column of every third row, the last column of the next, and inside the
// row of the third, so a dropped or shifted edge element changes the answer.
#pragma once

#include "common/args/rows_args.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace kl {

inline RowOp parse_row_op(const std::string& s) {
  if (s == "row_sum") return RowOp::row_sum;
  if (s == "row_mean") return RowOp::row_mean;
  if (s == "col_mean") return RowOp::col_mean;
  if (s == "row_max") return RowOp::row_max;
  if (s == "row_min") return RowOp::row_min;
  if (s == "row_sumsq") return RowOp::row_sumsq;
  throw UsageError("rows: op '" + s + "' is not one of row_sum, row_mean, col_mean, row_max, row_sumsq, row_min");
}

struct RowsFamily : FamilyTraits {
  static constexpr std::string_view name = "rows";
  static constexpr std::string_view summary =
      "per-row sum, mean, max, min, sum of squares and per-column mean of a row-major matrix (doc 000 lab, variants 2-6)";
  static constexpr std::string_view unit = "GB/s";
  using Types = TypeList<float, double>;
  static std::vector<DType> default_types() { return {DType::f32}; }
  // 1000²: document 000's lab (Size = 1000); 2500 × 2000: document 003's largest matrix;
  // 16384²: 1 GiB of float, DRAM-bound; 100003 × 7: many short rows, odd N (every row unaligned
  // when packed). 1 × 2^24 and 2^24 × 1 are in the results commands (docs/rows-and-dot.md): there
  // the documents' one-thread-per-row (per column) kernels take about a second per run.
  static SizeSpec sizes() {
    return {.dims = {"M", "N"},
            .defaults = {{1000, 1000}, {2500, 2000}, {16384, 16384}, {100003, 7}},
            .sweep_lo = 8,
            .sweep_hi = 14,
            .named = {{"shapes", "one matrix per rule of rows_auto: long rows (16384²), few rows (1000²), short rows (100003 x 7)",
                       {{16384, 16384}, {1000, 1000}, {100003, 7}}}}};
  }
  // The default comparison runs a representative subset: a sum (row_sum), a selection (row_max)
  // and the column direction (col_mean). row_mean and row_sumsq are row_sum's kernels with
  // another functor, row_min is row_max's: --axis op=... runs them (docs/rows-and-dot.md).
  static std::vector<StringAxis> axes() {
    return {
        {.name = "op",
         .values = {"row_sum", "row_mean", "col_mean", "row_max", "row_sumsq", "row_min"},
         .defaults = {"row_sum", "row_max", "col_mean"},
         .help = "the operation: sum, mean, max, sum of squares or min of each row, or mean of each column"},
        {.name = "layout",
         .values = {"packed", "pitched"},
         .defaults = {"packed"},
         .help = "rows N elements apart (packed), or padded to a multiple of 16 bytes as cudaMallocPitch does (pitched)"},
    };
  }
  // The aligned-versus-unaligned measurement of the lab in the default results: the pitched
  // layout beside the packed one at 100003 × 7 (every packed row off a 16-byte boundary), and a
  // row sum at 2500 × 2001, a medium size whose packed rows are unaligned (2000 columns would be
  // aligned in both layouts).
  static std::vector<std::pair<Dims, AxisValues>> extra_defaults() {
    std::vector<std::pair<Dims, AxisValues>> extra;
    for (const char* op : {"row_sum", "row_max", "col_mean"})
      extra.push_back({{100003, 7}, {{"op", op}, {"layout", "pitched"}}});
    for (const char* layout : {"packed", "pitched"})
      extra.push_back({{2500, 2001}, {{"op", "row_sum"}, {"layout", layout}}});
    return extra;
  }
  template <class T> using Args = RowsArgs<T>;
  template <class T> static std::vector<Variant<Args<T>>> handwritten() { return rows_handwritten<T>(); }
  template <class T> static std::vector<Variant<Args<T>>> library() { return rows_library<T>(); }

  template <class T>
  class Problem final : public ProblemBase<T> {
   public:
    Problem(const ProblemKey& k, const RunContext& ctx)
        : ProblemBase<T>(k, ctx, input_sizes(k), output_size(k)), s_(size_of(k)) {}

    static std::size_t pitch_of(const ProblemKey& k) {
      const std::size_t n = static_cast<std::size_t>(k.dims.at(1));
      if (k.axis("layout") == "packed") return n;
      const std::size_t per16 = 16 / sizeof(T);
      return (n + per16 - 1) / per16 * per16;
    }
    static RowsShape size_of(const ProblemKey& k) {
      return {dim(k, 0), dim(k, 1), pitch_of(k), parse_row_op(k.axis("op"))};
    }
    static std::vector<std::size_t> input_sizes(const ProblemKey& k) {
      return {static_cast<std::size_t>(k.dims.at(0)) * pitch_of(k)};
    }
    static std::size_t output_size(const ProblemKey& k) {
      return static_cast<std::size_t>(is_column_op(parse_row_op(k.axis("op"))) ? k.dims.at(1) : k.dims.at(0));
    }

    Args<T> args(void* ws) const {
      return {this->in(0).device(), s_.M, s_.N, s_.pitch, s_.op, this->out().device(), ws};
    }
    // Any order of the count's additions is at most that many roundings high.
    double default_depth() const { return static_cast<double>(count()); }
    Metric metric() const override {
      const double read = static_cast<double>(s_.M) * s_.N * sizeof(T);
      return this->bandwidth_metric(read + static_cast<double>(this->out().size() * sizeof(T)));
    }

   protected:
    // Sums gamma(h), sums of squares gamma(h + 1), means gamma(h + 2); max and min exact
    // (row_op_extra_roundings, common/variant.hpp, which the variants' hooks use too).
    double error_factor(const Candidate& c) const override {
      const int extra = row_op_extra_roundings(s_.op);
      if (extra < 0) return 0;  // selections: exact
      return gamma_bound(c.rounding_depth + extra, unit_roundoff<T>());
    }

    void make_inputs(InputKind kind, std::uint64_t seed) override {
      T* a = this->in(0).host.data();
      const std::size_t mn = static_cast<std::size_t>(s_.M) * s_.N;
      // The values, packed, in the first M·N elements; then spread to the pitch.
      if (kind == InputKind::random) {
        fill_random(a, mn, seed);
      } else if (is_selection()) {
        fill_random(a, mn, seed);
        plant_extremes(a, seed);
      } else {
        // Exact sums: count terms per output (squares: two factors, the same value).
        // A precision sentinel (compare/core/problem.hpp) in every output's sum: the first element of
        // each row, or for a column operation the whole first row.
        const int factors = s_.op == RowOp::row_sumsq ? 2 : 1;
        const std::size_t N = static_cast<std::size_t>(s_.N);
        const Sentinels where = is_column_op(s_.op) ? Sentinels{0, N} : Sentinels{N, 0};
        fill_exact(a, mn, seed, exact_values<T>(static_cast<double>(count()), factors, true), where);
      }
      spread_to_pitch(a);
    }

    void make_reference(InputKind kind) override {
      auto& o = this->out();
      const T* a = this->in(0).host.data();
      const std::size_t M = static_cast<std::size_t>(s_.M), N = static_cast<std::size_t>(s_.N), p = s_.pitch;
      constexpr double u64 = std::numeric_limits<double>::epsilon() / 2;
      if (s_.op == RowOp::col_mean) {
        std::vector<CompensatedSum> sums(N);
        std::vector<double> abs(N, 0.0);
        for (std::size_t i = 0; i < M; ++i) {
          const T* row = a + i * p;
          for (std::size_t j = 0; j < N; ++j) {
            const double v = static_cast<double>(row[j]);
            sums[j].add(v);
            abs[j] += std::fabs(v);
          }
        }
        for (std::size_t j = 0; j < N; ++j) set_mean(j, sums[j].value(), abs[j], M, kind);
        return;
      }
      for (std::size_t i = 0; i < M; ++i) {
        const T* row = a + i * p;
        switch (s_.op) {
          case RowOp::row_max:
          case RowOp::row_min: {
            T e = row[0];
            for (std::size_t j = 1; j < N; ++j) e = s_.op == RowOp::row_max ? std::max(e, row[j]) : std::min(e, row[j]);
            o.ref[i] = static_cast<double>(e);
            o.scale[i] = 0;
            o.slack[i] = 0;
            break;
          }
          case RowOp::row_sumsq: {
            CompensatedDot d;
            for (std::size_t j = 0; j < N; ++j) d.add(static_cast<double>(row[j]), static_cast<double>(row[j]));
            o.ref[i] = d.value();
            o.scale[i] = d.abs / (1 - gamma_bound(static_cast<double>(N), u64));
            o.slack[i] = CompensatedDot::self_error(o.ref[i], d.abs, static_cast<double>(N));
            break;
          }
          default: {  // row_sum, row_mean
            const SumReference r = reference_sum(row, N);
            if (s_.op == RowOp::row_mean) {
              set_mean(i, r.sum, r.abs_sum, N, kind);
            } else {
              o.ref[i] = r.sum;
              o.scale[i] = r.abs_sum;
              o.slack[i] = r.self_error;
            }
          }
        }
      }
    }

    // The packed random values spread to the pitch, the padding as spread_to_pitch fills it.
    RandomLayout random_layout(std::size_t) const override {
      return {static_cast<std::size_t>(s_.M), static_cast<std::size_t>(s_.N), s_.pitch, static_cast<double>(pad_value())};
    }

   private:
    bool is_selection() const { return s_.op == RowOp::row_max || s_.op == RowOp::row_min; }
    // Elements that go into one output.
    std::size_t count() const { return static_cast<std::size_t>(is_column_op(s_.op) ? s_.M : s_.N); }

    // Output i is sum / count, the sum compensated (its error bound as in reference_sum).
    void set_mean(std::size_t i, double sum, double abs, std::size_t n, InputKind kind) {
      constexpr double u64 = std::numeric_limits<double>::epsilon() / 2;
      auto& o = this->out();
      const double c = static_cast<double>(n);
      const double sum_error = 2 * u64 * std::fabs(sum) + 2.0 * c * u64 * u64 * abs * 1.01;
      o.ref[i] = sum / c;
      o.scale[i] = abs / c;
      o.slack[i] = sum_error / c + 2 * u64 * std::fabs(o.ref[i]);  // + the division's rounding
      if (kind != InputKind::exact) return;
      // Exact inputs: the sum s is exact in T, the mean is not an integer. A kernel returns
      // fl(s / fl(count)) or fl(s · fl(1 / count)): at most two roundings in T, (2u + u²)|s/count|,
      // and the fp64 reference one more (u64). 1.01·(2u + 2u64)·|ref| covers both for float and
      // double (u64 = u for double: 3u + u² <= 4.04u).
      if (o.exact_slack.empty()) o.exact_slack.assign(o.size(), 0.0);
      o.exact_slack[i] = 1.01 * (2 * unit_roundoff<T>() + 2 * u64) * std::fabs(o.ref[i]);
    }

    // Max and min exact inputs: values in [-1, 1), and in each row one extreme beyond them (2 for
    // max, -2 for min) at column 0 (rows 0, 3, 6, ...), column N - 1 (rows 1, 4, ...) or a
    // random column (rows 2, 5, ...).
    void plant_extremes(T* a, std::uint64_t seed) const {
      SplitMix64 g(seed ^ 0x51ed270b2a1c3f97ull);
      const std::size_t N = static_cast<std::size_t>(s_.N);
      const T extreme = s_.op == RowOp::row_max ? T(2) : T(-2);
      for (std::size_t i = 0; i < static_cast<std::size_t>(s_.M); ++i) {
        const std::size_t col = i % 3 == 0 ? 0 : i % 3 == 1 ? N - 1 : g.next() % N;
        a[i * N + col] = extreme;
      }
    }

    // What the padding past N holds: a value no kernel may read (it changes any result).
    T pad_value() const {
      return s_.op == RowOp::row_max   ? std::numeric_limits<T>::infinity()
             : s_.op == RowOp::row_min ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::quiet_NaN();
    }

    // The M rows of N values packed at the start of `a` moved to their pitch (last row first, so
    // no row overwrites one not yet moved), the padding filled with a value no kernel may read.
    void spread_to_pitch(T* a) const {
      const std::size_t M = static_cast<std::size_t>(s_.M), N = static_cast<std::size_t>(s_.N), p = s_.pitch;
      if (p == N) return;
      const T pad = pad_value();
      for (std::size_t i = M; i-- > 0;) {
        std::memmove(a + i * p, a + i * N, N * sizeof(T));
        for (std::size_t j = N; j < p; ++j) a[i * p + j] = pad;
      }
    }

    RowsShape s_;
  };
};

}  // namespace kl
