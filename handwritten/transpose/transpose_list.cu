// The transpose family's hand-written ladder, in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/transpose_args.hpp"
#include "handwritten/transpose/transpose1_naive.cuh"
#include "handwritten/transpose/transpose2_smem_tile.cuh"
#include "handwritten/transpose/transpose3_smem_padded.cuh"
#include "handwritten/transpose/transpose4_rows_per_thread.cuh"
#include "handwritten/transpose/transpose5_vec16_swizzled.cuh"
#include "handwritten/transpose/transpose6_wide_tile.cuh"
#include "handwritten/transpose/transpose7_vec_tile.cuh"

namespace kl {

namespace {
// Names from the parameters: R thread rows (transpose4: a 32-wide tile, 32×R threads), TILE².
template <class T, int R>
TransposeVariant<T> transpose4_at() {
  return transpose4::variant<T, R>(keep_name("transpose4_rows_per_thread_32x" + std::to_string(R)));
}
template <class T, int R>
TransposeVariant<T> transpose5_at() {
  return transpose5::variant<T, R>(keep_name("transpose5_vec16_swizzled_r" + std::to_string(R)));
}
template <class T, int TILE, int R>
TransposeVariant<T> transpose6_at() {
  return transpose6::variant<T, TILE, R>(keep_name("transpose6_wide_tile_" + dims_name(TILE, R)));
}
// BYTES per global access, R thread rows: (64 / elements per access) × R threads.
template <class T, int BYTES, int R>
TransposeVariant<T> transpose7_at() {
  return transpose7::variant<T, BYTES, R>(keep_name("transpose7_vec_tile_" + std::to_string(BYTES) + "B_r" + std::to_string(R)));
}
}  // namespace

template <class T>
std::vector<TransposeVariant<T>> transpose_handwritten() {
  return {
      transpose1::variant<T>(),                                           // 000: uncoalesced writes
      transpose2::variant<T>(),                                           // shared tile, 32-way conflicts
      transpose3::variant<T>(),                                           // padded tile
      transpose4_at<T, 8>(),       // 4 elements per thread
      transpose5_at<T, 8>(),          // 16-byte accesses, 8 thread rows
      transpose5_at<T, 16>(),        // ... 16 thread rows
      transpose6_at<T, 64, 4>(),         // 64x64 tile, 16 per thread
      transpose6_at<T, 64, 8>(),         // 64x64 tile, 8 per thread
      transpose7_at<T, 8, 16>(),         // 64x64 tile, 8-byte accesses
      transpose7_at<T, 16, 16>(),        // ... 16-byte accesses
  };
}

template std::vector<TransposeVariant<float>> transpose_handwritten<float>();
template std::vector<TransposeVariant<double>> transpose_handwritten<double>();

}  // namespace kl
