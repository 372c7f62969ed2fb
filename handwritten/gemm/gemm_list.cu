// The gemm family's hand-written ladder, in ladder order. One line per variant.
#include "common/variant.hpp"
#include "handwritten/gemm/gemm_global_16x16.cuh"
#include "handwritten/gemm/gemm_global_32x32.cuh"
#include "handwritten/gemm/gemm_sdk_tiles_004.cuh"
#include "handwritten/gemm/gemm_smem1_transposed.cuh"
#include "handwritten/gemm/gemm_smem2_padded.cuh"
#include "handwritten/gemm/gemm_smem3_natural.cuh"
#include "handwritten/gemm/gemm_smem4_ilp2.cuh"
#include "handwritten/gemm/gemm_smem5_ilp4.cuh"
#include "handwritten/gemm/gemm_smem_16x16.cuh"

namespace kl {

template <class T>
std::vector<GemmVariant<T>> gemm_handwritten() {
  return {
      gemm_global16::variant<T>(),  // 000: naive, 16x16
      gemm_global32::variant<T>(),  // 001: GLOBAL, 32x32
      gemm_smem16::variant<T>(),    // 000: shared tiles 16x16
      gemm_smem1::variant<T>(),     // 001: SMEM-1, transposed tiles (bank conflicts)
      gemm_smem2::variant<T>(),     // 001: SMEM-2, padded
      gemm_smem3::variant<T>(),     // 001: SMEM-3, natural indexing
      gemm_smem4::variant<T>(),     // 001: SMEM-4, 2 outputs per thread
      gemm_smem5::variant<T>(),     // 001: SMEM-5, 4 outputs per thread
      gemm_sdk004::variant<T>(),    // 004: Multiplica_Matrices_SM
  };
}

template std::vector<GemmVariant<float>> gemm_handwritten<float>();
template std::vector<GemmVariant<double>> gemm_handwritten<double>();

}  // namespace kl
