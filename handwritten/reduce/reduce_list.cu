// The reduction family's hand-written ladder, in ladder order. One line per variant.
#include "common/args/reduce_args.hpp"
#include "handwritten/reduce/reduce1_interleaved_divergent.cuh"
#include "handwritten/reduce/reduce2_interleaved_strided_index.cuh"
#include "handwritten/reduce/reduce3_sequential_addressing.cuh"
#include "handwritten/reduce/reduce4_first_add_during_load.cuh"
#include "handwritten/reduce/reduce5_unroll_last_warp.cuh"
#include "handwritten/reduce/reduce6_complete_unroll.cuh"
#include "handwritten/reduce/reduce7_vectorized_shuffle.cuh"
#include "handwritten/reduce/reduce8_single_pass.cuh"
#include "handwritten/reduce/reduce9_pdl.cuh"
#include "handwritten/reduce/reduce10_wide_blocks.cuh"
#include "handwritten/reduce/reduce_atomic_serial_block.cuh"
#include "handwritten/reduce/reduce_atomic_tree.cuh"

namespace kl {

template <class T>
std::vector<ReduceVariant<T>> reduce_handwritten() {
  return {
      reduce1::variant<T>(),
      reduce2::variant<T>(),
      reduce3::variant<T>(),
      reduce4::variant<T>(),
      reduce5::variant<T>(),
      reduce6::variant<T>(),
      reduce_atomic_serial::variant<T>(),
      reduce_atomic_tree::variant<T>(),
      reduce7::variant<T>(),
      reduce8::variant<T>(),
      reduce9::variant<T>(),
      reduce9::variant_even_share<T>(),
      reduce10::variant<T>(),
  };
}

template std::vector<ReduceVariant<int>> reduce_handwritten<int>();
template std::vector<ReduceVariant<float>> reduce_handwritten<float>();
template std::vector<ReduceVariant<double>> reduce_handwritten<double>();

}  // namespace kl
