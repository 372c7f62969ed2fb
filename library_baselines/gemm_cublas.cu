// Library baselines for the gemm and A·Aᵀ families: cuBLAS.
//
//   gemm: "cublas_gemm"    cublasSgemm / cublasDgemm, C = A·B.
//   aat:  "cublas_gemm_nt" the same gemm with the second operand transposed, C = A·Aᵀ in full.
//         "cublas_syrk"    cublasSsyrk / cublasDsyrk on one triangle, then a mirror kernel.
//
// Why two A·Aᵀ baselines: the hand-written A·Aᵀ kernels (document 000) compute every element
// of C, both triangles, 2·M²·K flops; gemm_nt is the library doing exactly that job. syrk is
// the routine a library user would actually call: C is symmetric, so it computes one triangle,
// about half the flops. Its C would then hold only a triangle, so the launcher completes it
// with a mirror kernel on the same stream; both baselines thus meet the same output contract
// (every element of C written) and the timing includes the O(M²) mirror next to syrk's O(M²K).
//
// The handle, its math mode (CUBLAS_DEFAULT_MATH: pure FP32 / FP64) and its checks are in
// common/cublas_handle.hpp, shared by every cuBLAS baseline. Alpha = 1, beta = 0 (C's previous
// contents are never read).
#include <cublas_v2.h>

#include <cstddef>
#include <vector>

#include "common/cublas_handle.hpp"
#include "common/cuda_check.hpp"
#include "common/args/gemm_args.hpp"

namespace kl {
namespace {

// ---------------------------------------------------------------------------------------------
// Row-major gemm through column-major cuBLAS.
//
// cuBLAS is column-major. A row-major r × c matrix with leading dimension ld is, byte for byte,
// the column-major c × r matrix with the same ld: its transpose. So the row-major product
// C = op_a(A)·op_b(B) (C is M × N, inner dimension K) is, seen by cuBLAS, Cᵀ = op_b(B)ᵀ·op_a(A)ᵀ,
// and op_b(B)ᵀ is op_b applied to B's buffer read column-major (likewise for A). Hence: call
// gemm with the operands swapped, B first, the dimensions as N, M, K, and every leading
// dimension unchanged (the row-major row lengths). For C = A·B: ldb = N, lda = K, ldc = N.
// No data is transposed or copied.
template <class T>
void gemm_row_major(cublasHandle_t h, cublasOperation_t op_a, cublasOperation_t op_b, int M,
                    int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc) {
  const T one = T(1), zero = T(0);
  KL_CUBLAS_CHECK(cublas_sd<T>(cublasSgemm, cublasDgemm)(h, op_b, op_a, N, M, K, &one, B, ldb, A, lda,
                                                        &zero, C, ldc));
}

// ---------------------------------------------------------------------------------------------
// Completes a symmetric M × M matrix of which only the column-major lower triangle (row i >=
// column j, element c[i + j·M]; in row-major terms the upper triangle) holds data: copies it
// into the other triangle. Threads run along i, so the writes are coalesced and the reads
// c[j + i·M] are strided; it is O(M²) memory traffic against syrk's O(M²·K) flops, a small part
// of the time for any K worth timing. Reads and writes touch disjoint triangles: no race.
constexpr int kMirrorTile = 32;
constexpr int kMirrorRows = 8;

template <class T>
__global__ void __launch_bounds__(kMirrorTile * kMirrorRows)
    mirror_lower_to_upper(T* __restrict__ c, int M) {
  if (blockIdx.x > blockIdx.y) return;  // tile strictly below the diagonal: nothing to write
  const int i = kMirrorTile * blockIdx.x + threadIdx.x;  // column-major row
  const int j_end = min(M, kMirrorTile * static_cast<int>(blockIdx.y) + kMirrorTile);
  for (int j = kMirrorTile * blockIdx.y + threadIdx.y; j < j_end; j += kMirrorRows) {
    if (i < j) c[i + static_cast<std::size_t>(j) * M] = c[j + static_cast<std::size_t>(i) * M];
  }
}

template <class T>
void launch_gemm(const GemmArgs<T>& g, cudaStream_t s) {
  // Row-major C (M × N) = A (M × K, lda K) · B (K × N, ldb N).
  gemm_row_major(cublas_on(s), CUBLAS_OP_N, CUBLAS_OP_N, g.M, g.N, g.K, g.A, g.K, g.B, g.N, g.C,
                 g.N);
}

template <class T>
void launch_aat_gemm_nt(const AatArgs<T>& a, cudaStream_t s) {
  // Row-major C (M × M) = A (M × K, lda K) · Aᵀ, the second operand being A's buffer transposed.
  gemm_row_major(cublas_on(s), CUBLAS_OP_N, CUBLAS_OP_T, a.M, a.M, a.K, a.A, a.K, a.A, a.K, a.C,
                 a.M);
}

template <class T>
void launch_aat_syrk(const AatArgs<T>& a, cudaStream_t s) {
  // Seen column-major, A's buffer is Aᵀ (K × M, ld K), and C = A·Aᵀ is symmetric, so it is its
  // own column-major view. syrk with trans = T computes op(X)·op(X)ᵀ = Xᵀ·X for X = Aᵀ: A·Aᵀ.
  // It fills the column-major lower triangle; the mirror kernel fills the rest.
  const T one = T(1), zero = T(0);
  KL_CUBLAS_CHECK(cublas_sd<T>(cublasSsyrk, cublasDsyrk)(cublas_on(s), CUBLAS_FILL_MODE_LOWER,
                                                        CUBLAS_OP_T, a.M, a.K, &one, a.A, a.K,
                                                        &zero, a.C, a.M));
  const int tiles = (a.M + kMirrorTile - 1) / kMirrorTile;
  mirror_lower_to_upper<T><<<dim3(tiles, tiles), dim3(kMirrorTile, kMirrorRows), 0, s>>>(a.C, a.M);
  KL_CHECK_LAUNCH();
}

}  // namespace

template <class T>
std::vector<GemmVariant<T>> gemm_library() {
  return {
      {.info = {"cublas_gemm", "cuBLAS", "cublasSgemm/cublasDgemm, row-major via C^T = B^T A^T", Source::library},
       .launch = launch_gemm<T>,
       .prepare = prepare_cublas},
  };
}

template <class T>
std::vector<AatVariant<T>> aat_library() {
  return {
      {.info = {"cublas_gemm_nt", "cuBLAS", "gemm with A^T as second operand: full C, 2 M^2 K flops",
                Source::library},
       .launch = launch_aat_gemm_nt<T>,
       .prepare = prepare_cublas},
      {.info = {"cublas_syrk", "cuBLAS", "syrk: one triangle, M(M+1)K flops (rated on those) + mirror kernel",
                Source::library},
       .launch = launch_aat_syrk<T>,
       .prepare = prepare_cublas,
       // syrk computes the M(M+1)/2 elements of one triangle, K multiply-adds each.
       .work = [](AatShape s) { return static_cast<double>(s.M) * (static_cast<double>(s.M) + 1) * s.K; }},
  };
}

template std::vector<GemmVariant<float>> gemm_library<float>();
template std::vector<GemmVariant<double>> gemm_library<double>();
template std::vector<AatVariant<float>> aat_library<float>();
template std::vector<AatVariant<double>> aat_library<double>();

}  // namespace kl
