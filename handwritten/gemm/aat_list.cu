// The A·Aᵀ family's hand-written ladder, in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/aat_inplace.cuh"
#include "handwritten/gemm/aat_smem_padded.cuh"
#include "handwritten/gemm/aat_smem_unpadded.cuh"
#include "handwritten/gemm/aat_triangle.cuh"

namespace kl {

namespace {
// One triangle of TILE² tiles: "aat_triangle_<TILE>".
template <class T, int TILE>
AatVariant<T> triangle_at() {
  return aat_triangle::variant<T, TILE>(keep_name("aat_triangle_" + std::to_string(TILE)));
}
}  // namespace

template <class T>
std::vector<AatVariant<T>> aat_handwritten() {
  std::vector<AatVariant<T>> v = {
      aat_unpadded::variant<T>(),  // 000: ats[16][16], column reads conflict
      aat_padded::variant<T>(),    // 000: ats[16][16+1], conflict-free
      // beyond the document: the gemm ladder's last steps (float gemm10, double gemm11 DMMA)
      aat_inplace::variant<T>(),                           // A^T read in place, all of C
      triangle_at<T, 64>(),       // one triangle, mirrored; 64² tiles
      triangle_at<T, 128>(),     // 128² tiles
  };
  // DMMA only: a tile between the two, for a triangle that neither fills the SMs evenly (128²)
  // nor stays clear of the L2 bandwidth (64²); see aat_inplace.cuh.
  if constexpr (sizeof(T) == 8) v.push_back(triangle_at<T, 96>());
  if constexpr (sizeof(T) == 8) {
    v.push_back(triangle_at<T, 32>());  // more, smaller blocks: 528 tiles at 1000² (64²: 136)
    // gemm11's DMMA fragments prefetched across k steps and tiles (gemm11_dmma_prefetch.cuh)
    v.push_back(aat_triangle::variant<T, 64, true>(keep_name("aat_triangle_64_pf")));
    v.push_back(aat_triangle::variant<T, 32, true>(keep_name("aat_triangle_32_pf")));
  }
  // k split until the triangle's blocks fill the GPU (1000²: 136 tiles of 64²)
  v.push_back(aat_triangle::variant_splitk<T, 64>(keep_name("aat_triangle_splitk_64")));
  return v;
}

template std::vector<AatVariant<float>> aat_handwritten<float>();
template std::vector<AatVariant<double>> aat_handwritten<double>();

}  // namespace kl
