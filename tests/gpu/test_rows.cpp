// Every rows variant × type × operation × layout against the fp64 reference, the exact-input
// check and the library, at shapes that break every tile and group assumption: 1 × 1, one row,
// one column, primes, many short rows (100003 × 7) and a few long ones (7 × 100003); every
// variant from bases and pitches that are and are not 16-byte aligned (vector paths, peeled
// heads, element paths); mutants (the last column of every row dropped, every row shifted by one
// element, the output never written) that must fail.
#include "compare/core/device_memory.hpp"
#include "compare/families/family_rows.hpp"
#include "gpu_test_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace kl;
using namespace kl::test;

namespace {

struct Shape {
  long long M, N;
};

// A shape that splits both ways: rows_block_split cuts its 8209-element rows in 2 chunks (3 for
// double) and rows_cols_coalesced its 260-row columns in 2 chunks, so both second passes
// (combine_parts) and rows_auto's split path run even under the sanitizers.
constexpr Shape kSplitBothWays = {260, 8209};

std::vector<Shape> shapes() {
  // Under the sanitizers (quick 2): still one row, one column, odd and multi-block shapes, and
  // both split paths.
  if (quick() >= 2) return {{1, 1}, {1, 1031}, {1031, 1}, {31, 33}, {33, 31}, {257, 7}, {7, 1031}, {5, 4099}, kSplitBothWays};
  std::vector<Shape> s = {{1, 1}, {1, 100003}, {100003, 1}, {1009, 997}, {31, 33}, {33, 31}, {100003, 7}, {7, 100003}};
  // One row and one column long enough for rows_block_split to cut the row into 128 chunks and
  // rows_cols_coalesced to split the column into 1024; 2500 × 2001 as in the default run.
  if (quick() < 1) s.insert(s.end(), {{1, (1LL << 20) + 3}, {(1LL << 20) + 3, 1}, {2500, 2001}});
  return s;
}

std::vector<std::string> ops() {
  if (quick() >= 2) return {"row_sum", "row_max", "col_mean"};  // the other three: the same kernels, other functors
  return {"row_sum", "row_mean", "col_mean", "row_max", "row_sumsq", "row_min"};
}

const std::vector<std::string> kLayouts = {"packed", "pitched"};

std::string axis_of(const Row& r, const std::string& name) {
  for (const auto& [n, v] : r.axes)
    if (n == name) return v;
  return "";
}

// The variants that do one direction only, and cuBLAS where gemv cannot do the job.
bool declared_unsupported(const Row& r) {
  const std::string op = axis_of(r, "op");
  if (op == "col_mean")
    return r.variant == "rows_warp_vec" || r.variant == "rows_warp_peel" || r.variant == "rows_subwarp" ||
           r.variant.rfind("rows_block", 0) == 0;
  if (r.variant.rfind("rows_cols", 0) == 0) return true;  // rows_cols_coalesced, _vec16, _cluster
  return r.variant == "cublas_gemv_ones" && (op == "row_max" || op == "row_min" || op == "row_sumsq");
}

std::size_t pitch_for(std::size_t N, std::size_t elem, bool pitched) {
  const std::size_t per16 = 16 / elem;
  return pitched ? (N + per16 - 1) / per16 * per16 : N;
}

}  // namespace

TEST_CASE_TEMPLATE("every rows variant passes at every shape, operation and layout", T, float, double) {
  for (Shape s : shapes()) {
    for (const std::string& op : ops()) {
      for (const std::string& layout : kLayouts) {
        CAPTURE(s.M);
        CAPTURE(s.N);
        CAPTURE(op);
        CAPTURE(layout);
        expect_all_pass(run_family("rows", dtype_of<T>(), {s.M, s.N}, {{"op", op}, {"layout", layout}}),
                        declared_unsupported);
      }
    }
  }
}

// Every row variant's result from a base shifted by 0 or 1 element and a packed or 16-byte pitch,
// on integer-valued inputs (every partial sum exact in any order): the 16-byte path, the peeled
// one and the element one must all give exactly the host's sum, max and min. The padding holds
// NaN (sum) or ±inf (max, min), as in the family, so a kernel that reads it fails.
TEST_CASE_TEMPLATE("rows variants agree exactly at every base alignment and pitch", T, float, double) {
  // N = 5, 13, 50, 100, 1031: every group size of rows_subwarp (1..32 lanes per row, float and
  // double); 3 × 20011: rows_block_split's chunks (their peeled heads and tails) and its second pass.
  // The column mean too: 1001 × 1024 is 8 uneven chunks of a cluster (rows_cols_cluster) on its
  // 16-byte path (shift 0) and on its element path (shift 1), and split chunks for the others.
  const std::vector<Shape> cases = {{37, 1024}, {37, 1031}, {5, 4099},  {300, 5},
                                    {37, 13},   {37, 50},   {37, 100}, {3, 20011}, {1001, 1024}};
  for (Shape sh : cases) {
    const std::size_t M = static_cast<std::size_t>(sh.M), N = static_cast<std::size_t>(sh.N);
    std::vector<T> values(M * N);
    fill_exact(values.data(), values.size(), fresh_seed(), ExactValues{8, 1});
    for (RowOp op : {RowOp::row_sum, RowOp::row_max, RowOp::row_min, RowOp::col_mean}) {
      const bool columns = is_column_op(op);
      const std::size_t outputs = columns ? N : M;
      std::vector<double> want(outputs);
      if (columns) {
        // Integer sums are exact in T; the mean is that sum divided by M in T (rows_detail::finish).
        for (std::size_t j = 0; j < N; ++j) {
          double acc = 0;
          for (std::size_t i = 0; i < M; ++i) acc += values[i * N + j];
          want[j] = static_cast<double>(static_cast<T>(acc) / static_cast<T>(M));
        }
      }
      for (std::size_t i = 0; i < M && !columns; ++i) {
        double acc = values[i * N];
        for (std::size_t j = 1; j < N; ++j) {
          const double v = values[i * N + j];
          acc = op == RowOp::row_sum ? acc + v : op == RowOp::row_max ? std::max(acc, v) : std::min(acc, v);
        }
        want[i] = acc;
      }
      const T pad = op == RowOp::row_max   ? std::numeric_limits<T>::infinity()
                    : op == RowOp::row_min ? -std::numeric_limits<T>::infinity()
                                           : std::numeric_limits<T>::quiet_NaN();
      for (bool pitched : {false, true}) {
        const std::size_t pitch = pitch_for(N, sizeof(T), pitched);
        std::vector<T> host(M * pitch, pad);
        for (std::size_t i = 0; i < M; ++i) std::copy(&values[i * N], &values[i * N] + N, &host[i * pitch]);
        DeviceArray<T> buf(M * pitch + 4), out(outputs);
        std::vector<T> got(outputs);
        for (int shift : {0, 1}) {
          KL_CUDA_CHECK(cudaMemcpy(buf.get() + shift, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
          const RowsShape shape{static_cast<int>(M), static_cast<int>(N), pitch, op};
          for (const RowsVariant<T>& v : rows_handwritten<T>()) {
            if (v.unsupported && v.unsupported(shape)) continue;
            if (!check_on_this_device(v.needs).empty()) continue;  // rows_cols_cluster below 9.0 (skipped, as the runner does)
            CAPTURE(v.info.name);
            CAPTURE(M);
            CAPTURE(N);
            CAPTURE(static_cast<int>(op));
            CAPTURE(pitched);
            CAPTURE(shift);
            DeviceArray<unsigned char> ws(v.workspace_bytes ? v.workspace_bytes(shape) : 0);
            KL_CUDA_CHECK(cudaMemset(out.get(), 0xff, outputs * sizeof(T)));  // NaN
            if (v.prepare) v.prepare();
            v.launch({buf.get() + shift, shape.M, shape.N, pitch, op, out.get(), ws.get()}, nullptr);
            KL_CUDA_CHECK(cudaDeviceSynchronize());
            KL_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), outputs * sizeof(T), cudaMemcpyDeviceToHost));
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < outputs; ++i) wrong += !(static_cast<double>(got[i]) == want[i]);
            CHECK(wrong == 0);
          }
        }
      }
    }
  }
}

// Mutants of every variant, each caught by the exact-input check: for sums the inputs are
// integers, for max and min the extreme of every third row sits in its first column and of the
// next row in its last (family_rows.hpp), so an edge element dropped or shifted changes the answer.
TEST_CASE_TEMPLATE("mutants: every rows variant with the last column dropped, rows shifted or no output fails", T, float,
                   double) {
  // A plain shape, and one where the split steps run their second pass.
  const std::vector<Shape> mutant_shapes = {quick() < 2 ? Shape{67, 1031} : Shape{37, 129}, kSplitBothWays};
  std::size_t most = 0;
  int widest = 0;
  for (Shape sh : mutant_shapes) {
    most = std::max(most, static_cast<std::size_t>(sh.M) * pitch_for(static_cast<std::size_t>(sh.N), sizeof(T), true));
    widest = std::max({widest, static_cast<int>(sh.M), static_cast<int>(sh.N)});
  }
  DeviceArray<T> shifted(most + 1), elsewhere(static_cast<std::size_t>(widest));
  for (Shape sh : mutant_shapes) {
    for (const std::string& op : ops()) {
      for (const std::string& layout : kLayouts) {
        const int M = static_cast<int>(sh.M), N = static_cast<int>(sh.N);
        CAPTURE(M);
        CAPTURE(N);
        CAPTURE(op);
        CAPTURE(layout);
        const ProblemKey key = make_key(family<RowsFamily>(), dtype_of<T>(), {M, N}, {{"op", op}, {"layout", layout}});
        // The last column of every row dropped: N - 1 columns read, the pitch unchanged (the column
        // mean then leaves its last output unwritten).
        expect_mutants_fail<RowsFamily, T>(key, [](const RowsArgs<T>& a, cudaStream_t) {
          auto b = a;
          b.N -= 1;
          return b;
        }, "last column dropped");
        // Every row read one element late: the first element dropped, the next row's first (or the
        // padding) taken instead. The copy has one element more, so the last row stays in bounds.
        expect_mutants_fail<RowsFamily, T>(key, [&](const RowsArgs<T>& a, cudaStream_t s) {
          const std::size_t elems = static_cast<std::size_t>(a.M) * a.pitch;
          KL_CUDA_CHECK(cudaMemcpyAsync(shifted.get(), a.A, elems * sizeof(T), cudaMemcpyDeviceToDevice, s));
          KL_CUDA_CHECK(cudaMemsetAsync(shifted.get() + elems, 0, sizeof(T), s));
          auto b = a;
          b.A = shifted.get() + 1;
          return b;
        }, "every row shifted by one element");
        expect_mutants_fail<RowsFamily, T>(key, [&](const RowsArgs<T>& a, cudaStream_t) {
          auto b = a;
          b.out = elsewhere.get();
          return b;
        }, "output never written");
      }
    }
  }
}
