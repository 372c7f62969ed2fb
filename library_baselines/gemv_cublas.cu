// Library baselines for the gemv and gevm families: cuBLAS.
//
//   gemv: "cublas_gemv_t"  cublasSgemv / cublasDgemv with CUBLAS_OP_T on A's buffer, y = A·x
//   gevm: "cublas_gemv_n"  the same routine with CUBLAS_OP_N, y = x·A
//
// Row-major through column-major cuBLAS, said once (gemv_row_major below). cuBLAS is
// column-major: a column-major m × n matrix with leading dimension lda holds element (r, c) at
// r + c·lda. Our A is row-major M × N: element (i, j) at i·N + j. Read by cuBLAS with
// m = N, n = M, lda = N, the same bytes are the column-major N × M matrix Aᵀ (its element
// (j, i) is at j + i·N). No data is transposed or copied; only the operation changes:
//   y = A·x   (y_i = Σ_j A_ij x_j)  is (Aᵀ)ᵀ·x: gemv with CUBLAS_OP_T, x of length N, y of M;
//   y = x·A   (y_j = Σ_i x_i A_ij)  is  Aᵀ·x:  gemv with CUBLAS_OP_N, x of length M, y of N.
// Alpha = 1, beta = 0: cuBLAS does not read y when beta is 0, so its poisoned contents do not
// matter. The handle and its math mode (pure FP32 / FP64) are in common/cublas_handle.hpp.
#include <cublas_v2.h>

#include <vector>

#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/args/matvec_args.hpp"

namespace kl {
namespace {

// y = A·x, or y = x·A when x_times_a, for row-major A, M × N, lda = N:
// cuBLAS's view of A's buffer is Aᵀ, N × M, so the operation flips.
template <class T>
void gemv_row_major(cublasHandle_t h, bool x_times_a, int M, int N, const T* A, const T* x, T* y) {
  const T one = T(1), zero = T(0);
  const cublasOperation_t op = x_times_a ? CUBLAS_OP_N : CUBLAS_OP_T;
  KL_CUBLAS_CHECK(cublas_sd<T>(cublasSgemv, cublasDgemv)(h, op, N, M, &one, A, N, x, 1, &zero, y, 1));
}

template <class T>
void launch_gemv(const MatVecArgs<T>& a, cudaStream_t s) {
  gemv_row_major(cublas_on(s), false, a.M, a.N, a.A, a.x, a.y);
}

template <class T>
void launch_gevm(const MatVecArgs<T>& a, cudaStream_t s) {
  gemv_row_major(cublas_on(s), true, a.M, a.N, a.A, a.x, a.y);
}

}  // namespace

template <class T>
std::vector<MatVecVariant<T>> gemv_library() {
  return {
      {.info = {"cublas_gemv_t", "cuBLAS", "cublasSgemv/cublasDgemv, CUBLAS_OP_T on A's buffer (row-major A = col-major A^T)",
                Source::library},
       .launch = launch_gemv<T>,
       .prepare = prepare_cublas},
  };
}

template <class T>
std::vector<MatVecVariant<T>> gevm_library() {
  return {
      {.info = {"cublas_gemv_n", "cuBLAS", "cublasSgemv/cublasDgemv, CUBLAS_OP_N on A's buffer: A^T x = x A",
                Source::library},
       .launch = launch_gevm<T>,
       .prepare = prepare_cublas},
  };
}

template std::vector<MatVecVariant<float>> gemv_library<float>();
template std::vector<MatVecVariant<double>> gemv_library<double>();
template std::vector<MatVecVariant<float>> gevm_library<float>();
template std::vector<MatVecVariant<double>> gevm_library<double>();

}  // namespace kl
