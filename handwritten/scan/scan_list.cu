// The scan family's hand-written ladder, in ladder order. One line per variant.
#include "common/args/scan_args.hpp"
#include "handwritten/scan/scan1_hillis_steele.cuh"
#include "handwritten/scan/scan2_scan_then_propagate.cuh"
#include "handwritten/scan/scan3_blelloch.cuh"
#include "handwritten/scan/scan4_conflict_free.cuh"
#include "handwritten/scan/scan5_warp_shuffle.cuh"
#include "handwritten/scan/scan6_reduce_then_scan.cuh"
#include "handwritten/scan/scan7_chained.cuh"
#include "handwritten/scan/scan8_decoupled_lookback.cuh"
#include "handwritten/scan/scan9_vectorized.cuh"

namespace kl {

template <class T>
std::vector<ScanVariant<T>> scan_handwritten() {
  return {
      scan1::variant<T>(),
      scan2::variant<T>(),
      scan3::variant<T>(),
      scan4::variant<T>(),
      scan5::variant<T>(),
      scan6::variant<T>(),
      scan7::variant<T>(),
      scan8::variant<T>(),
      // CUB's sm_90 float tile and its look-back waits (tuning_scan.cuh), then the same waits with a
      // third more work per thread.
      scan9::variant<scan9::Tile<128, 96, 688, 1140>, T>(),
      scan9::variant<scan9::Tile<128, 128, 688, 1140>, T>(),
  };
}

template std::vector<ScanVariant<int>> scan_handwritten<int>();
template std::vector<ScanVariant<float>> scan_handwritten<float>();
template std::vector<ScanVariant<double>> scan_handwritten<double>();

}  // namespace kl
