// The gevm family's hand-written ladder (y = x·A), in ladder order. One line per variant.
#include "common/config_name.hpp"
#include "common/args/matvec_args.hpp"
#include "handwritten/gemv/gevm1_thread_per_column.cuh"
#include "handwritten/gemv/gevm2_shared_vector.cuh"
#include "handwritten/gemv/gevm3_shared_accumulator.cuh"
#include "handwritten/gemv/gevm4_column_tiles.cuh"
#include "handwritten/gemv/gevm5_fitted_tiles.cuh"
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"

namespace kl {

namespace {
// "<step>_u<U>", with "_cs" where the loads are streaming (CS): the name from the parameters.
inline std::string_view unrolled_name(std::string_view step, int u, bool cs) {
  return keep_name(std::string(step) + "_u" + std::to_string(u) + (cs ? "_cs" : ""));
}
}  // namespace

template <class T>
std::vector<MatVecVariant<T>> gevm_handwritten() {
  return {
      gevm1::variant<T>(),  // 003 by analogy: thread per column
      gevm2::variant<T>(),  // 003 listing 1 by analogy: x staged through shared memory
      gevm3::variant<T>(),  // 003 listing 2 by analogy: plus the shared accumulator
      // beyond the document (docs/gemv.md)
      gevm4::variant<T>(),  // column tiles x row slabs, 16-byte row reads, fixed-order 2nd pass
      // tile width fitted to N; configurations: U loads in flight, A streamed
      gevm5::variant<T, 4, false>(unrolled_name("gevm5_fitted_tiles", 4, false)),
      gevm5::variant<T, 8, false>(unrolled_name("gevm5_fitted_tiles", 8, false)),
      gevm5::variant<T, 4, true>(unrolled_name("gevm5_fitted_tiles", 4, true)),
      // one launch: a tile's slabs are a cluster, summed through distributed shared memory
      gevm6::variant<T, 4, false>(unrolled_name("gevm6_cluster_slabs", 4, false)),
      gevm6::variant<T, 4, true>(unrolled_name("gevm6_cluster_slabs", 4, true)),
      // aiming at one block per SM: wider tiles (docs/gemv.md)
      gevm6::variant<T, 4, true, 1>(keep_name(std::string(unrolled_name("gevm6_cluster_slabs", 4, true)) + "_b1")),
      // one line of a row per tile, slabs only up to one block per SM, 8 loads in flight
      // (the plan sweep: docs/gemv.md, "gevm: y = x·A")
      gevm6::variant<T, 8, true, gevm6::kNarrowPlan>(keep_name(std::string(unrolled_name("gevm6_cluster_slabs", 8, true)) + "_c128")),
      // deeper per thread: 256 bytes of a row per tile, 32 loads in flight, one block per SM
      // (docs/gemv.md, "gevm: y = x·A")
      gevm6::variant<T, gevm_plan::kDeepLoads, true, gevm6::kDeepPlan, 1>(
          keep_name(std::string(unrolled_name("gevm6_cluster_slabs", gevm_plan::kDeepLoads, true)) + "_c256")),
  };
}

template std::vector<MatVecVariant<float>> gevm_handwritten<float>();
template std::vector<MatVecVariant<double>> gevm_handwritten<double>();

}  // namespace kl
