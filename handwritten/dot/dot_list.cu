// The dot family's hand-written ladder, in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/dot_args.hpp"
#include "handwritten/dot/dot1_global_memory.cuh"
#include "handwritten/dot/dot2_shared_memory.cuh"
#include "handwritten/dot/dot3_vectorized.cuh"
#include "handwritten/dot/dot4_single_pass.cuh"
#include "handwritten/dot/dot_atomic_serial_block.cuh"
#include "handwritten/dot/dot_atomic_tree.cuh"

namespace kl {

namespace {
// dot4 with U vectors of each array per round: "dot4_single_pass", "dot4_single_pass_u2", ...
template <class T, unsigned U>
DotVariant<T> dot4_at() {
  return dot4::variant<T, U>(keep_name(std::string("dot4_single_pass") + (U > 1 ? "_u" + std::to_string(U) : "")).data());
}
}  // namespace

template <class T>
std::vector<DotVariant<T>> dot_handwritten() {
  return {
      dot1::variant<T>(),                                // 000 lab: tree in global memory
      dot2::variant<T>(),                                // 000 lab: tree in shared memory
      dot_atomic_serial::variant<T>(),                   // 004: dotKernel
      dot_atomic_tree::variant<T>(),                     // 004: dotKernel_V2
      dot3::variant<T>(),                                // 16-byte loads of x and y, two passes
      dot4_at<T, 1>(),           // one pass, last block sums
      dot4_at<T, 2>(),        // 2 vectors of each array per round
  };
}

template std::vector<DotVariant<int>> dot_handwritten<int>();
template std::vector<DotVariant<float>> dot_handwritten<float>();
template std::vector<DotVariant<double>> dot_handwritten<double>();

}  // namespace kl
