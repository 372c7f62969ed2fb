// The A·Aᵀ family's hand-written ladder, in ladder order. One line per variant.
#include "common/variant.hpp"
#include "handwritten/gemm/aat_smem_padded.cuh"
#include "handwritten/gemm/aat_smem_unpadded.cuh"

namespace kl {

template <class T>
std::vector<AatVariant<T>> aat_handwritten() {
  return {
      aat_unpadded::variant<T>(),  // 000: ats[16][16], column reads conflict
      aat_padded::variant<T>(),    // 000: ats[16][16+1], conflict-free
  };
}

template std::vector<AatVariant<float>> aat_handwritten<float>();
template std::vector<AatVariant<double>> aat_handwritten<double>();

}  // namespace kl
