// The gemv family's hand-written ladder (y = A·x), in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/matvec_args.hpp"
#include "handwritten/gemv/gemv1_thread_per_row.cuh"
#include "handwritten/gemv/gemv2_shared_vector.cuh"
#include "handwritten/gemv/gemv3_shared_accumulator.cuh"
#include "handwritten/gemv/gemv4_warp_per_row.cuh"
#include "handwritten/gemv/gemv5_rows_per_warp.cuh"
#include "handwritten/gemv/gemv6_row_segments.cuh"
#include "handwritten/gemv/gemv7_warps_per_row.cuh"

namespace kl {

namespace {
// "<step>_u<U>", with "_cs" where the loads are streaming (CS): the name from the parameters.
inline std::string_view unrolled_name(std::string_view step, int u, bool cs) {
  return keep_name(std::string(step) + "_u" + std::to_string(u) + (cs ? "_cs" : ""));
}
}  // namespace

template <class T>
std::vector<MatVecVariant<T>> gemv_handwritten() {
  return {
      gemv1::variant<T>(),  // 003: lab 1's thread per row
      gemv2::variant<T>(),  // 003: listing 1, x staged through shared memory
      gemv3::variant<T>(),  // 003: listing 2, plus the shared accumulator
      // beyond the document (docs/gemv.md)
      gemv4::variant<T>(),  // a warp per row, 16-byte coalesced loads, shuffle tree
      gemv5::variant<T>(),  // lanes per row fitted to N: short rows share a warp
      gemv6::variant<T>(),  // few long rows split over blocks, fixed-order second pass
      // long rows shared by several warps of a block; configurations: U loads in flight, A streamed
      gemv7::variant<T, 4, false>(unrolled_name("gemv7_warps_per_row", 4, false)),
      gemv7::variant<T, 8, false>(unrolled_name("gemv7_warps_per_row", 8, false)),
      gemv7::variant<T, 4, true>(unrolled_name("gemv7_warps_per_row", 4, true)),
  };
}

template std::vector<MatVecVariant<float>> gemv_handwritten<float>();
template std::vector<MatVecVariant<double>> gemv_handwritten<double>();

}  // namespace kl
