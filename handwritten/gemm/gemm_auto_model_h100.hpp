// gemm_auto's time model on the H100 (gemm_auto_model.hpp's rows; step_model_us's constants).
//
// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs
// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the
// command that regenerates this file. Do not edit it by hand.
// The element-path row of gemm9's 64² tile was fitted by hand on products whose N is not a multiple
// of 4, of these inputs and two later sweeps as they then were; it is kept as gemm_auto has used it.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"

namespace kl::gemm_plan {

inline constexpr std::string_view kProvenanceH100 =
    "scripts/fit_gemm_model.py run at d476ab4, 132 SMs; inputs: "
    "83a0d70:journal/h100/934d557/gemm_auto_rules.json.gz; "
    "f362b52:results/h100/shapes.json.gz; "
    "f362b52:results/h100/default.json.gz; "
    "83a0d70:journal/h100/80d4380/gemm_auto_sweep_a.json.gz"
    "; fixed (given, not fitted): gemm9_pipelined_64x64x16_w32x32_t4x8_s4 element 8 0.07 5.428 0.536 0.44 0.166";
inline constexpr std::string_view kCommandH100 =
    "scripts/fit_gemm_model.py --gpu H100 --sms 132 --out handwritten/gemm/gemm_auto_model_h100.hpp --fixed 'gemm9_pipelined_64x64x16_w32x32_t4x8_s4 element 8 0.07 5.428 0.536 0.44 0.166' --note 'The element-path row of gemm9'\"'\"'s 64² tile was fitted by hand on products whose N is not a multiple' --note 'of 4, of these inputs and two later sweeps as they then were; it is kept as gemm_auto has used it.' 83a0d70:journal/h100/934d557/gemm_auto_rules.json.gz f362b52:results/h100/shapes.json.gz f362b52:results/h100/default.json.gz 83a0d70:journal/h100/80d4380/gemm_auto_sweep_a.json.gz";

inline constexpr ModelRow kModelRowsH100[] = {
    // step, path, overlap, launch µs, block µs, k tile µs, co-resident share, µs per MB
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::vec, 6, 4.08, 0.358, 0.529, 0.66, 0.048},
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::element, 8, 0.07, 5.428, 0.536, 0.44, 0.166},  // fixed
    {"gemm10_swizzled_64x64x16_w32x32_t4x8_s4", Path::vec, 4, 4.00, 0.841, 0.622, 0.64, 0.000},
    {"gemm9_pipelined_128x128x8_w64x32_t8x8_s3", Path::vec, 8, 4.50, 0.417, 0.802, 0.76, 0.136},
    {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", Path::vec, 8, 4.54, 0.579, 1.487, 0.78, 0.124},
    {"gemm10_swizzled_128x128x16_w64x32_t8x8_s3", Path::vec, 2, 3.60, 2.261, 1.674, 0.77, 0.093},
    {"gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", Path::vec, 8, 4.25, 1.561, 2.719, 0.87, 0.143},
    {"gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", Path::vec, 2, 1.26, 4.767, 5.268, 0.72, 0.130},
    {"gemm11_dmma_32x32x16_w16x16_s4_k8", Path::vec, 3, 4.20, 0.387, 0.213, 0.42, 0.010},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8", Path::vec, 8, 3.85, 1.398, 0.528, 0.63, 0.003},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8_pf", Path::vec, 3, 4.24, 1.451, 0.385, 0.79, 0.001},
    {"gemm11_dmma_128x128x16_w64x32_s4_k4_pf", Path::vec, 4, 2.23, 5.576, 1.126, 0.83, 0.064},
};
inline constexpr GpuModel kModelH100{"H100", kModelRowsH100, sizeof(kModelRowsH100) / sizeof(kModelRowsH100[0]), kProvenanceH100, kCommandH100};

}  // namespace kl::gemm_plan
