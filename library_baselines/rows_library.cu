// Library baselines for the rows family: CUB and cuBLAS, the same job as the hand-written ladder
// (handwritten/rows/), wrapped to the same contract (common/variant.hpp).
//
//   "cub_segmented_reduce"  cub::DeviceSegmentedReduce, one segment per row: Sum (row_sum), Sum
//                           written through a transform output iterator that divides by N
//                           (row_mean), Sum over a transform input iterator that squares
//                           (row_sumsq), Max, Min. The segments are the rows: begin i·pitch, end
//                           i·pitch + N, computed by transform iterators over a counting
//                           iterator (no offsets array to build). CUB has no column reduction:
//                           col_mean runs the same Sum over a transposed view of the matrix, a
//                           transform iterator mapping k to A[(k mod M)·pitch + k / M], segment j
//                           being column j. Correct, and slow by construction: a block walks one
//                           column, each load a separate sector, and the 64-bit division per
//                           element is not free either. It is there to show what CUB alone gives;
//                           cuBLAS's gemv is the library's answer for columns.
//   "cublas_gemv_ones"      cublasSgemv_64 / cublasDgemv_64 with a vector of ones: A·1 sums the
//                           rows, Aᵀ·1 the columns. Row-major A (pitch elements apart) is, to
//                           column-major cuBLAS, the N × M matrix Aᵀ with lda = pitch: row sums are
//                           op T, column sums op N, nothing copied. The ones vector lives in the
//                           workspace, whose contents are undefined on entry, so the launcher fills
//                           it on the stream at every launch: that fill (N or M elements, against
//                           M·N read by gemv) is part of what this baseline must do and is in its
//                           time. Means: gemv with alpha = 1, then cublas<t>scal by 1/N (1/M) over
//                           the M (N) sums. Not alpha = 1/N in gemv: cuBLAS documents y = α·op(A)·x
//                           + β·y, not where α is applied, and the reference BLAS's op-N gemv
//                           scales each x_j by α before the products (TEMP = ALPHA*X(JX)); a gemv
//                           that does so rounds every product a_ij·fl(1/N), which fails the
//                           exact-input check of a mean (the sum of integers is exact, its mean
//                           within two roundings) by up to gamma(count)·sum|a|/N. scal documents
//                           one product per element: the mean is fl(s·fl(1/N)), as the family's
//                           bound has it, whatever gemv does inside. The extra launch (M or N
//                           elements read and written) is in the time. gemv forms sums of
//                           products: max, min and sums of squares are declared unsupported.
//
// Rounding depth. CUB's segmented reduce gives each segment one block running the reduce policy:
// lib_detail::cub_segmented_depth (library_common.cuh, read from the CCCL 3.0 source). cuBLAS
// documents no order for gemv: the family's default, N (or M for columns), holds for any order; in
// float it bounds nothing from 2^23 elements per output on (1 × 2^24 row sums, 2^24 × 1 column
// means), which cublas_gemv_ones therefore declares unsupported.
// The mean's scaling (the division, or 1/N and the product) is added by the family.
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cached_query.hpp"
#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/reduce_launch.cuh"
#include "common/args/rows_args.hpp"
#include "library_baselines/library_common.cuh"

namespace kl {
namespace {

// ---------------------------------------------------------------------------------------------
// cub_segmented_reduce

using Offset = std::int64_t;
using Counting = thrust::counting_iterator<Offset>;

// Segment i starts at i·stride and ends `len` later (rows: stride = pitch, len = N; the
// transposed view: stride = len = M).
struct SegmentBegin {
  Offset stride;
  __host__ __device__ Offset operator()(Offset i) const { return i * stride; }
};
struct SegmentEnd {
  Offset stride, len;
  __host__ __device__ Offset operator()(Offset i) const { return i * stride + len; }
};

template <class T>
struct Square {
  __host__ __device__ T operator()(T x) const { return x * x; }
};

template <class T>
struct DivideBy {
  T count;
  __host__ __device__ T operator()(T x) const { return x / count; }
};

// Element k of the column-major view of A: row k mod M, column k / M.
template <class T>
struct Transposed {
  const T* A;
  Offset M;
  std::size_t pitch;
  __host__ __device__ T operator()(Offset k) const { return A[static_cast<std::size_t>(k % M) * pitch + static_cast<std::size_t>(k / M)]; }
};

// One CUB call for any operation; with ws == nullptr it only sets `bytes`.
template <class T>
cudaError_t cub_segmented(void* ws, std::size_t& bytes, const T* A, int M, int N, std::size_t pitch, RowOp op, T* out,
                          cudaStream_t s) {
  using cub::DeviceSegmentedReduce;
  const auto begins = thrust::make_transform_iterator(Counting(0), SegmentBegin{static_cast<Offset>(pitch)});
  const auto ends = thrust::make_transform_iterator(Counting(0), SegmentEnd{static_cast<Offset>(pitch), N});
  switch (op) {
    case RowOp::row_sum: return DeviceSegmentedReduce::Sum(ws, bytes, A, out, M, begins, ends, s);
    case RowOp::row_mean:
      return DeviceSegmentedReduce::Sum(ws, bytes, A, thrust::make_transform_output_iterator(out, DivideBy<T>{T(N)}), M,
                                        begins, ends, s);
    case RowOp::row_sumsq:
      return DeviceSegmentedReduce::Sum(ws, bytes, thrust::make_transform_iterator(A, Square<T>{}), out, M, begins, ends, s);
    case RowOp::row_max: return DeviceSegmentedReduce::Max(ws, bytes, A, out, M, begins, ends, s);
    case RowOp::row_min: return DeviceSegmentedReduce::Min(ws, bytes, A, out, M, begins, ends, s);
    case RowOp::col_mean: {
      const auto view = thrust::make_transform_iterator(Counting(0), Transposed<T>{A, M, pitch});
      const auto col_begins = thrust::make_transform_iterator(Counting(0), SegmentBegin{M});
      const auto col_ends = thrust::make_transform_iterator(Counting(0), SegmentEnd{M, M});
      return DeviceSegmentedReduce::Sum(ws, bytes, view, thrust::make_transform_output_iterator(out, DivideBy<T>{T(M)}), N,
                                        col_begins, col_ends, s);
    }
  }
  return cudaErrorInvalidValue;
}

template <class T>
std::size_t cub_workspace_bytes(RowsShape sh) {
  std::size_t bytes = 0;
  KL_CUDA_CHECK(cub_segmented<T>(nullptr, bytes, nullptr, sh.M, sh.N, sh.pitch, sh.op, nullptr, nullptr));
  return bytes;
}

// RowsShape as a key the launcher's remembered query can compare.
struct ShapeKey {
  RowsShape s;
  bool operator==(const ShapeKey& o) const {
    return s.M == o.s.M && s.N == o.s.N && s.pitch == o.s.pitch && s.op == o.s.op;
  }
};
template <class T>
std::size_t cub_workspace_bytes_of(ShapeKey k) {
  return cub_workspace_bytes<T>(k.s);
}

template <class T>
void cub_launch(const RowsArgs<T>& a, cudaStream_t s) {
  std::size_t bytes = remembered<cub_workspace_bytes_of<T>>(ShapeKey{{a.M, a.N, a.pitch, a.op}});
  KL_CUDA_CHECK(cub_segmented<T>(a.workspace, bytes, a.A, a.M, a.N, a.pitch, a.op, a.out, s));
}

// ---------------------------------------------------------------------------------------------
// cublas_gemv_ones

template <class T>
__global__ void fill_ones(T* __restrict__ p, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = T(1);
}

// The ones vector: one per column for row ops (A·1), one per row for col_mean (Aᵀ·1).
std::size_t ones_length(RowsShape s) { return static_cast<std::size_t>(is_column_op(s.op) ? s.M : s.N); }

template <class T>
const char* gemv_unsupported(RowsShape s) {
  switch (s.op) {
    case RowOp::row_max:
    case RowOp::row_min:
    case RowOp::row_sumsq:
      return "gemv with a vector of ones forms sums (and, scaled, means), not max, min or sums of squares";
    default: break;
  }
  // No rounding_depth: the family's default, the count, the only bound that holds for any order.
  if (reduce_launch::rows_unbounded_depth<T>(s.op, static_cast<double>(ones_length(s))))
    return "cuBLAS documents no summation order for gemv, and the bound that holds for every order (a chain of N, "
           "or M, roundings) means nothing at this size: gamma >= 1";
  return nullptr;
}

template <class T>
void gemv_launch(const RowsArgs<T>& a, cudaStream_t s) {
  const RowsShape sh{a.M, a.N, a.pitch, a.op};
  const std::size_t len = ones_length(sh);
  T* ones = static_cast<T*>(a.workspace);
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(ceil_div(len, std::size_t{256}), 1024));
  fill_ones<T><<<blocks, 256, 0, s>>>(ones, len);
  KL_CHECK_LAUNCH();
  // Column-major view: X = Aᵀ is N × M with lda = pitch. Row sums y(M) = Xᵀ·1(N): op T;
  // column sums y(N) = X·1(M): op N. m, n are X's dimensions in both cases.
  // beta = 0: y is not read (cuBLAS: "if beta == 0 then y does not have to be a valid input"),
  // so the poisoned output does not leak in.
  const bool columns = is_column_op(a.op);
  const T one = T(1), zero = T(0);
  cublasHandle_t h = cublas_on(s);
  KL_CUBLAS_CHECK(cublas_sd<T>(cublasSgemv_64, cublasDgemv_64)(h, columns ? CUBLAS_OP_N : CUBLAS_OP_T, a.N, a.M, &one, a.A,
                                                              static_cast<std::int64_t>(a.pitch), ones, 1, &zero, a.out, 1));
  if (a.op == RowOp::row_mean || columns) {
    // 1/count rounded once to T (from double: for float within u + u64, as the family allows).
    const std::int64_t outputs = columns ? a.N : a.M;
    const T inv = static_cast<T>(1.0 / static_cast<double>(columns ? a.M : a.N));
    KL_CUBLAS_CHECK(cublas_sd<T>(cublasSscal_64, cublasDscal_64)(h, outputs, &inv, a.out, 1));
  }
}

}  // namespace

template <class T>
std::vector<RowsVariant<T>> rows_library() {
  return {
      {
          .info = {"cub_segmented_reduce", "CUB",
                   "cub::DeviceSegmentedReduce, a block per row (Sum, Max, Min; squares and means through "
                   "iterators); col_mean through a transposed view",
                   Source::library},
          .launch = cub_launch<T>,
          .workspace_bytes = cub_workspace_bytes<T>,
          .rounding_depth = [](RowsShape s) {
            return lib_detail::cub_segmented_depth<T>(static_cast<std::size_t>(is_column_op(s.op) ? s.M : s.N));
          },
      },
      {
          .info = {"cublas_gemv_ones", "cuBLAS",
                   "gemv with a vector of ones (filled on the stream each launch): row sums A*1, column sums A^T*1; "
                   "means scaled by 1/N (1/M) with scal",
                   Source::library},
          .launch = gemv_launch<T>,
          .workspace_bytes = [](RowsShape s) { return ones_length(s) * sizeof(T); },
          .unsupported = gemv_unsupported<T>,
          .prepare = prepare_cublas,
      },
  };
}

template std::vector<RowsVariant<float>> rows_library<float>();
template std::vector<RowsVariant<double>> rows_library<double>();

}  // namespace kl
