// gemm_auto's time model on the H200 (gemm_auto_model.hpp's rows; step_model_us's constants).
//
// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs
// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the
// command that regenerates this file. Do not edit it by hand.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"

namespace kl::gemm_plan {

inline constexpr std::string_view kProvenanceH200 =
    "scripts/fit_gemm_model.py run at 43bd45a, 132 SMs; inputs: "
    "results/h200/gemm_auto_rules_float.json.gz; "
    "results/h200/gemm_auto_rules_double.json.gz; "
    "results/h200/gemm_auto_sweep_b_float.json.gz; "
    "results/h200/gemm_auto_sweep_b_double.json.gz; "
    "results/h200/gemm_auto_sweep_c_float.json.gz; "
    "results/h200/gemm_auto_sweep_c_double.json.gz";
inline constexpr std::string_view kCommandH200 =
    "scripts/fit_gemm_model.py --gpu H200 --sms 132 --out handwritten/gemm/gemm_auto_model_h200.hpp results/h200/gemm_auto_rules_float.json.gz results/h200/gemm_auto_rules_double.json.gz results/h200/gemm_auto_sweep_b_float.json.gz results/h200/gemm_auto_sweep_b_double.json.gz results/h200/gemm_auto_sweep_c_float.json.gz results/h200/gemm_auto_sweep_c_double.json.gz";

inline constexpr ModelRow kModelRowsH200[] = {
    // step, path, overlap, launch µs, block µs, k tile µs, co-resident share, µs per MB
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::vec, 8, 4.02, 0.326, 0.542, 0.71, 0.031},
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::element, 8, 1.52, 3.868, 0.531, 0.47, 0.171},
    {"gemm10_swizzled_64x64x16_w32x32_t4x8_s4", Path::vec, 4, 3.94, 0.829, 0.629, 0.64, 0.000},
    {"gemm10_swizzled_32x128x16_w32x32_t4x8_s4", Path::vec, 4, 4.09, 0.571, 0.604, 0.70, 0.000},
    {"gemm10_swizzled_128x32x16_w32x32_t4x8_s4", Path::vec, 4, 3.86, 0.762, 0.673, 0.64, 0.011},
    {"gemm9_pipelined_128x128x8_w64x32_t8x8_s3", Path::vec, 8, 4.37, 0.532, 0.815, 0.80, 0.110},
    {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", Path::vec, 8, 4.42, 0.627, 1.516, 0.83, 0.097},
    {"gemm10_swizzled_128x128x16_w64x32_t8x8_s3", Path::vec, 2, 3.53, 2.154, 1.695, 0.79, 0.084},
    {"gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", Path::vec, 8, 4.33, 1.854, 2.730, 0.93, 0.103},
    {"gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", Path::vec, 8, 6.02, 4.400, 4.841, 0.89, 0.113},
    {"gemm11_dmma_32x32x16_w16x16_s4_k8", Path::vec, 4, 4.10, 0.362, 0.225, 0.51, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8", Path::vec, 8, 3.72, 1.335, 0.567, 0.61, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8_pf", Path::vec, 4, 4.14, 1.447, 0.399, 0.78, 0.000},
    {"gemm11_dmma_32x128x16_w32x32_s4_k8_pf", Path::vec, 2, 4.21, 1.224, 0.336, 0.79, 0.021},
    {"gemm11_dmma_128x32x16_w32x32_s4_k8_pf", Path::vec, 2, 3.94, 1.981, 0.572, 0.48, 0.000},
    {"gemm11_dmma_128x128x16_w64x32_s4_k4_pf", Path::vec, 8, 1.91, 5.464, 1.179, 0.85, 0.052},
};
inline constexpr GpuModel kModelH200{"H200", kModelRowsH200, sizeof(kModelRowsH200) / sizeof(kModelRowsH200[0]), kProvenanceH200, kCommandH200};

}  // namespace kl::gemm_plan
