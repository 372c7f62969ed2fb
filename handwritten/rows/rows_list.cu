// The rows family's hand-written ladder, in ladder order. One line per variant.
#include "common/args/rows_args.hpp"
#include "handwritten/rows/rows_auto.cuh"
#include "handwritten/rows/rows_block_deep.cuh"
#include "handwritten/rows/rows_block_split.cuh"
#include "handwritten/rows/rows_cols_cluster.cuh"
#include "handwritten/rows/rows_cols_coalesced.cuh"
#include "handwritten/rows/rows_cols_vec16.cuh"
#include "handwritten/rows/rows_global.cuh"
#include "handwritten/rows/rows_shared.cuh"
#include "handwritten/rows/rows_shared_padded.cuh"
#include "handwritten/rows/rows_subwarp.cuh"
#include "handwritten/rows/rows_warp_peel.cuh"
#include "handwritten/rows/rows_warp_vec.cuh"

namespace kl {

template <class T>
std::vector<RowsVariant<T>> rows_handwritten() {
  return {
      rows_global::variant<T>(),          // 000 lab: a thread per row (per column), global memory
      rows_shared::variant<T>(),          // 000 lab: 32x32 tiles in shared memory, bank conflicts
      rows_shared_padded::variant<T>(),   // 000 lab: tiles padded to 32x33 (table 3.2)
      rows_warp_vec::variant<T>(),        // a warp per row, 16-byte loads on aligned layouts only
      rows_warp_peel::variant<T>(),       // a warp per row, head/tail peeled: 16-byte loads always
      rows_subwarp::variant<T>(),         // lanes per row sized to the row
      rows_block_split::variant<T>(),     // a block per row chunk, for few long rows
      rows_block_deep::variant<T>(),      // a block per row, 4 loads in flight, sized to the row
      rows_cols_coalesced::variant<T>(),  // col_mean: coalesced, split over rows
      rows_cols_vec16::variant<T>(),      // col_mean: ... with 16-byte loads
      rows_cols_cluster::variant<T>(),    // col_mean: ... in one launch, chunks folded in a cluster (9.0+)
      rows_auto::variant<T>(),            // picks one of the steps above by shape
  };
}

template std::vector<RowsVariant<float>> rows_handwritten<float>();
template std::vector<RowsVariant<double>> rows_handwritten<double>();

}  // namespace kl
