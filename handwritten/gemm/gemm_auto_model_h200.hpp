// gemm_auto's time model on the H200 (gemm_auto_model.hpp's rows; step_model_us's constants).
//
// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs
// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the
// command that regenerates this file. Do not edit it by hand.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"

namespace kl::gemm_plan {

inline constexpr std::string_view kProvenanceH200 =
    "scripts/fit_gemm_model.py run at 8760f5c, 132 SMs; inputs: "
    "0ad4a93:results/h200/gemm_auto_rules_float.json.gz; "
    "0ad4a93:results/h200/gemm_auto_rules_double.json.gz; "
    "0ad4a93:results/h200/gemm_auto_sweep_b_float.json.gz; "
    "0ad4a93:results/h200/gemm_auto_sweep_b_double.json.gz; "
    "0ad4a93:results/h200/gemm_auto_sweep_c_float.json.gz; "
    "0ad4a93:results/h200/gemm_auto_sweep_c_double.json.gz";
inline constexpr std::string_view kCommandH200 =
    "scripts/fit_gemm_model.py --gpu H200 --sms 132 --out handwritten/gemm/gemm_auto_model_h200.hpp 0ad4a93:results/h200/gemm_auto_rules_float.json.gz 0ad4a93:results/h200/gemm_auto_rules_double.json.gz 0ad4a93:results/h200/gemm_auto_sweep_b_float.json.gz 0ad4a93:results/h200/gemm_auto_sweep_b_double.json.gz 0ad4a93:results/h200/gemm_auto_sweep_c_float.json.gz 0ad4a93:results/h200/gemm_auto_sweep_c_double.json.gz";

inline constexpr ModelRow kModelRowsH200[] = {
    // step, path, overlap, launch µs, block µs, k tile µs, co-resident share, µs per MB
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::vec, 8, 4.01, 0.309, 0.538, 0.70, 0.039},
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::element, 8, 1.53, 3.861, 0.522, 0.47, 0.179},
    {"gemm10_swizzled_64x64x16_w32x32_t4x8_s4", Path::vec, 4, 3.92, 0.828, 0.629, 0.64, 0.000},
    {"gemm10_swizzled_32x128x16_w32x32_t4x8_s4", Path::vec, 4, 4.10, 0.572, 0.604, 0.70, 0.000},
    {"gemm10_swizzled_128x32x16_w32x32_t4x8_s4", Path::vec, 4, 3.83, 0.769, 0.672, 0.65, 0.009},
    {"gemm9_pipelined_64x64x8_w16x64_t4x8_s3", Path::vec, 4, 4.05, 0.152, 0.317, 0.54, 0.043},
    {"gemm9_pipelined_64x64x8_w16x64_t4x8_s3", Path::element, 8, 2.13, 3.085, 0.304, 0.40, 0.169},
    {"gemm9_pipelined_32x128x8_w16x64_t4x8_s3", Path::vec, 8, 3.90, 0.294, 0.329, 0.63, 0.004},
    {"gemm9_pipelined_32x128x8_w16x64_t4x8_s3", Path::element, 8, 2.78, 2.536, 0.304, 0.44, 0.123},
    {"gemm9_pipelined_128x64x8_w32x64_t8x8_s3", Path::vec, 8, 4.03, 0.339, 0.500, 0.72, 0.062},
    {"gemm9_pipelined_128x64x8_w32x64_t8x8_s3", Path::element, 8, 0.00, 5.841, 0.479, 0.50, 0.203},
    {"gemm9_pipelined_64x128x8_w32x64_t8x8_s3", Path::vec, 8, 4.00, 0.415, 0.474, 0.74, 0.036},
    {"gemm9_pipelined_64x128x8_w32x64_t8x8_s3", Path::element, 8, 0.00, 5.728, 0.444, 0.41, 0.253},
    {"gemm9_pipelined_32x64x8_w16x64_t4x8_s3", Path::vec, 8, 3.85, 0.207, 0.279, 0.34, 0.000},
    {"gemm9_pipelined_32x64x8_w16x64_t4x8_s3", Path::element, 8, 2.73, 1.933, 0.298, 0.30, 0.019},
    {"gemm9_pipelined_128x128x8_w64x32_t8x8_s3", Path::vec, 8, 4.43, 0.436, 0.814, 0.79, 0.119},
    {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", Path::vec, 8, 4.45, 0.547, 1.514, 0.82, 0.105},
    {"gemm10_swizzled_128x128x16_w64x32_t8x8_s3", Path::vec, 2, 3.45, 2.161, 1.695, 0.78, 0.085},
    {"gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", Path::vec, 8, 4.30, 1.831, 2.720, 0.93, 0.105},
    {"gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", Path::vec, 8, 6.05, 4.303, 4.826, 0.90, 0.113},
    {"gemm11_dmma_32x32x16_w16x16_s4_k8", Path::vec, 4, 4.11, 0.287, 0.228, 0.50, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8", Path::vec, 8, 3.92, 0.980, 0.563, 0.62, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8_pf", Path::vec, 4, 4.35, 1.056, 0.392, 0.81, 0.000},
    {"gemm11_dmma_32x128x16_w32x32_s4_k8_pf", Path::vec, 2, 4.24, 1.046, 0.341, 0.81, 0.017},
    {"gemm11_dmma_128x32x16_w32x32_s4_k8_pf", Path::vec, 2, 4.40, 1.702, 0.559, 0.53, 0.000},
    {"gemm11_dmma_64x128x16_w32x64_s3_k8", Path::vec, 8, 3.74, 1.634, 0.858, 0.64, 0.035},
    {"gemm11_dmma_64x128x16_w32x64_s3_k4_pf", Path::vec, 2, 4.17, 1.876, 0.740, 0.62, 0.015},
    {"gemm11_dmma_64x64x32_w32x32_s3_k16_pf", Path::vec, 4, 4.37, 1.453, 0.869, 0.76, 0.000},
    {"gemm11_dmma_32x64x32_w16x32_s3_k16_pf", Path::vec, 2, 4.17, 0.962, 0.565, 0.49, 0.000},
    {"gemm11_dmma_128x128x16_w64x32_s4_k4_pf", Path::vec, 8, 2.35, 4.497, 1.176, 0.87, 0.050},
};
inline constexpr GpuModel kModelH200{"H200", kModelRowsH200, sizeof(kModelRowsH200) / sizeof(kModelRowsH200[0]), kProvenanceH200, kCommandH200};

}  // namespace kl::gemm_plan
