// Library baseline for the transpose family: cuBLAS geam.
//
//   "cublas_geam"  cublasSgeam / cublasDgeam computing C = 1·op(A) + 0·op(B) with op(A) = Aᵀ:
//                  the out-of-place transpose the cuBLAS documentation lists as geam's special
//                  case (alpha = 1, beta = 0).
//
// Row-major through column-major cuBLAS, written once: a row-major r×c matrix with leading
// dimension ld is, byte for byte, the column-major c×r matrix with the same ld (its transpose).
// So A (row-major M×N, ld N) is seen as the column-major N×M matrix X, and B (row-major N×M, ld
// M) as the column-major M×N matrix Y. B = Aᵀ in row-major terms is Y = Xᵀ in column-major terms
// (transposing both sides of Bᵀ = A). Hence geam with transa = T, m = M, n = N, lda = N, and
// ldc = M: no data is copied or reinterpreted beyond the leading dimensions.
// B's operand is not needed (beta = 0); it is given A's buffer seen as a column-major M×N
// matrix with ld M (exactly M·N elements, in bounds), not a null pointer, so the call stays
// valid whether or not cuBLAS reads an operand whose factor is zero (0·a = 0 exactly for the
// finite inputs).
//
// The copy ceiling: there is no library "copy" row here. A device-to-device copy of the same
// bytes is what a transpose aims at, but it is not a transpose and could pass validation only if
// it were validated differently; the runner measures the copy bandwidth in every run and reports
// each row's rate against it ("vs ceil"), which is that yardstick without a special case.
//
// The handle (pure FP32/FP64 math mode, host pointer mode) is common/cublas_handle.hpp's.
#include <cublas_v2.h>

#include <vector>

#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/args/transpose_args.hpp"

namespace kl {
namespace {

template <class T>
void launch_geam(const TransposeArgs<T>& a, cudaStream_t s) {
  const T one = T(1), zero = T(0);
  // Column-major: Y (M×N, ldc M) = 1·Xᵀ + 0·(A's buffer as M×N, ld M), X = A's buffer as N×M, ld N.
  KL_CUBLAS_CHECK(cublas_sd<T>(cublasSgeam, cublasDgeam)(cublas_on(s), CUBLAS_OP_T, CUBLAS_OP_N, a.M, a.N, &one, a.A,
                                                        a.N, &zero, a.A, a.M, a.B, a.M));
}

}  // namespace

template <class T>
std::vector<TransposeVariant<T>> transpose_library() {
  return {
      {.info = {"cublas_geam", "cuBLAS", "cublasSgeam/cublasDgeam, C = 1*A^T + 0*B, row-major via the column-major view",
                Source::library},
       .launch = launch_geam<T>,
       .prepare = prepare_cublas},
  };
}

template std::vector<TransposeVariant<float>> transpose_library<float>();
template std::vector<TransposeVariant<double>> transpose_library<double>();

}  // namespace kl
