// The transpose family's hand-written ladder, in ladder order. One line per variant.
#include "handwritten/transpose/transpose_args.hpp"
#include "handwritten/transpose/transpose1_naive.cuh"
#include "handwritten/transpose/transpose2_smem_tile.cuh"
#include "handwritten/transpose/transpose3_smem_padded.cuh"
#include "handwritten/transpose/transpose4_rows_per_thread.cuh"
#include "handwritten/transpose/transpose5_vec16_swizzled.cuh"
#include "handwritten/transpose/transpose6_wide_tile.cuh"

namespace kl {

template <class T>
std::vector<TransposeVariant<T>> transpose_handwritten() {
  return {
      transpose1::variant<T>(),                                           // 000: uncoalesced writes
      transpose2::variant<T>(),                                           // shared tile, 32-way conflicts
      transpose3::variant<T>(),                                           // padded tile
      transpose4::variant<T, 8>("transpose4_rows_per_thread_32x8"),       // 4 elements per thread
      transpose5::variant<T, 8>("transpose5_vec16_swizzled_r8"),          // 16-byte accesses, 8 thread rows
      transpose5::variant<T, 16>("transpose5_vec16_swizzled_r16"),        // ... 16 thread rows
      transpose6::variant<T, 64, 4>("transpose6_wide_tile_64x4"),         // 64x64 tile, 16 per thread
      transpose6::variant<T, 64, 8>("transpose6_wide_tile_64x8"),         // 64x64 tile, 8 per thread
  };
}

template std::vector<TransposeVariant<float>> transpose_handwritten<float>();
template std::vector<TransposeVariant<double>> transpose_handwritten<double>();

}  // namespace kl
