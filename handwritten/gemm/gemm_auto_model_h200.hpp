// gemm_auto's time model on the H200 (gemm_auto_model.hpp's rows; step_model_us's constants).
//
// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs
// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the
// command that regenerates this file. Do not edit it by hand.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"

namespace kl::gemm_plan {

inline constexpr std::string_view kProvenanceH200 =
    "scripts/fit_gemm_model.py run at 4f78f9f, 132 SMs; inputs: "
    "ee6fc9c:results/h200/gemm_auto_rules_float.json.gz; "
    "ee6fc9c:results/h200/gemm_auto_rules_double.json.gz; "
    "ee6fc9c:results/h200/gemm_auto_sweep_b_float.json.gz; "
    "ee6fc9c:results/h200/gemm_auto_sweep_b_double.json.gz; "
    "ee6fc9c:results/h200/gemm_auto_sweep_c_float.json.gz; "
    "ee6fc9c:results/h200/gemm_auto_sweep_c_double.json.gz";
inline constexpr std::string_view kCommandH200 =
    "scripts/fit_gemm_model.py --gpu H200 --sms 132 --out handwritten/gemm/gemm_auto_model_h200.hpp ee6fc9c:results/h200/gemm_auto_rules_float.json.gz ee6fc9c:results/h200/gemm_auto_rules_double.json.gz ee6fc9c:results/h200/gemm_auto_sweep_b_float.json.gz ee6fc9c:results/h200/gemm_auto_sweep_b_double.json.gz ee6fc9c:results/h200/gemm_auto_sweep_c_float.json.gz ee6fc9c:results/h200/gemm_auto_sweep_c_double.json.gz";

inline constexpr ModelRow kModelRowsH200[] = {
    // step, path, overlap, launch µs, block µs, k tile µs, co-resident share, µs per MB
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::vec, 8, 4.03, 0.329, 0.545, 0.70, 0.038},
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::element, 8, 1.69, 3.809, 0.528, 0.48, 0.170},
    {"gemm10_swizzled_64x64x16_w32x32_t4x8_s4", Path::vec, 4, 4.00, 0.832, 0.630, 0.64, 0.000},
    {"gemm10_swizzled_32x128x16_w32x32_t4x8_s4", Path::vec, 4, 4.14, 0.575, 0.605, 0.70, 0.000},
    {"gemm10_swizzled_128x32x16_w32x32_t4x8_s4", Path::vec, 4, 3.94, 0.765, 0.675, 0.64, 0.010},
    {"gemm9_pipelined_64x64x8_w16x64_t4x8_s3", Path::vec, 4, 4.08, 0.197, 0.321, 0.55, 0.032},
    {"gemm9_pipelined_64x64x8_w16x64_t4x8_s3", Path::element, 8, 2.20, 3.073, 0.303, 0.39, 0.176},
    {"gemm9_pipelined_32x128x8_w16x64_t4x8_s3", Path::vec, 8, 3.93, 0.314, 0.331, 0.64, 0.000},
    {"gemm9_pipelined_32x128x8_w16x64_t4x8_s3", Path::element, 8, 2.91, 2.525, 0.304, 0.44, 0.128},
    {"gemm9_pipelined_128x64x8_w32x64_t8x8_s3", Path::vec, 8, 4.08, 0.388, 0.503, 0.73, 0.054},
    {"gemm9_pipelined_128x64x8_w32x64_t8x8_s3", Path::element, 8, 0.00, 5.853, 0.483, 0.50, 0.197},
    {"gemm9_pipelined_128x128x8_w64x32_t8x8_s3", Path::vec, 8, 4.42, 0.554, 0.819, 0.80, 0.111},
    {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", Path::vec, 8, 4.49, 0.642, 1.522, 0.83, 0.098},
    {"gemm10_swizzled_128x128x16_w64x32_t8x8_s3", Path::vec, 2, 3.59, 2.173, 1.701, 0.78, 0.082},
    {"gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", Path::vec, 8, 4.33, 1.920, 2.740, 0.94, 0.099},
    {"gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", Path::vec, 8, 5.96, 4.387, 4.869, 0.89, 0.113},
    {"gemm11_dmma_32x32x16_w16x16_s4_k8", Path::vec, 4, 4.06, 0.367, 0.228, 0.50, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8", Path::vec, 8, 3.72, 1.325, 0.567, 0.61, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8_pf", Path::vec, 4, 4.15, 1.450, 0.399, 0.77, 0.000},
    {"gemm11_dmma_32x128x16_w32x32_s4_k8_pf", Path::vec, 2, 4.17, 1.219, 0.338, 0.80, 0.019},
    {"gemm11_dmma_128x32x16_w32x32_s4_k8_pf", Path::vec, 2, 3.98, 1.982, 0.574, 0.47, 0.000},
    {"gemm11_dmma_64x128x16_w32x64_s3_k8", Path::vec, 8, 3.72, 1.898, 0.870, 0.63, 0.030},
    {"gemm11_dmma_64x128x16_w32x64_s3_k4_pf", Path::vec, 2, 4.27, 2.095, 0.740, 0.63, 0.012},
    {"gemm11_dmma_64x64x32_w32x32_s3_k16_pf", Path::vec, 2, 4.41, 1.717, 0.870, 0.66, 0.000},
    {"gemm11_dmma_32x64x32_w16x32_s3_k16_pf", Path::vec, 2, 3.93, 1.198, 0.581, 0.46, 0.000},
    {"gemm11_dmma_128x128x16_w64x32_s4_k4_pf", Path::vec, 8, 1.88, 5.448, 1.183, 0.86, 0.049},
};
inline constexpr GpuModel kModelH200{"H200", kModelRowsH200, sizeof(kModelRowsH200) / sizeof(kModelRowsH200[0]), kProvenanceH200, kCommandH200};

}  // namespace kl::gemm_plan
