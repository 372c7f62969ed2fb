// gemm_auto's time model on the H200 (gemm_auto_model.hpp's rows; step_model_us's constants).
//
// Written whole by scripts/fit_gemm_model.py: kProvenance below names the script, its inputs
// (compare reports, COMMIT:PATH for one as it was at a commit), the commit it ran at and the
// command that regenerates this file. Do not edit it by hand.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"

namespace kl::gemm_plan {

inline constexpr std::string_view kProvenanceH200 =
    "scripts/fit_gemm_model.py run at d476ab4, 132 SMs; inputs: "
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
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::vec, 8, 4.08, 0.301, 0.539, 0.69, 0.042},
    {"gemm9_pipelined_64x64x16_w32x32_t4x8_s4", Path::element, 8, 1.45, 3.887, 0.528, 0.47, 0.176},
    {"gemm10_swizzled_64x64x16_w32x32_t4x8_s4", Path::vec, 4, 3.91, 0.831, 0.631, 0.64, 0.000},
    {"gemm9_pipelined_128x128x8_w64x32_t8x8_s3", Path::vec, 8, 4.44, 0.462, 0.814, 0.79, 0.118},
    {"gemm9_pipelined_128x128x16_w64x32_t8x8_s3", Path::vec, 8, 4.44, 0.572, 1.515, 0.82, 0.105},
    {"gemm10_swizzled_128x128x16_w64x32_t8x8_s3", Path::vec, 2, 3.56, 2.145, 1.694, 0.78, 0.084},
    {"gemm12_fragment_prefetch_256x128x16_w64x64_t16x8_s4", Path::vec, 8, 4.26, 1.879, 2.724, 0.93, 0.104},
    {"gemm13_tma_warpspecialized_128x256x32_w64x64_t8x16_s4_r232_at", Path::vec, 2, 2.18, 4.274, 4.998, 0.59, 0.174},
    {"gemm11_dmma_32x32x16_w16x16_s4_k8", Path::vec, 4, 4.06, 0.368, 0.227, 0.50, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8", Path::vec, 8, 3.69, 1.351, 0.565, 0.60, 0.000},
    {"gemm11_dmma_64x64x16_w32x32_s4_k8_pf", Path::vec, 4, 4.10, 1.470, 0.399, 0.77, 0.000},
    {"gemm11_dmma_128x128x16_w64x32_s4_k4_pf", Path::vec, 8, 1.79, 5.532, 1.179, 0.85, 0.051},
};
inline constexpr GpuModel kModelH200{"H200", kModelRowsH200, sizeof(kModelRowsH200) / sizeof(kModelRowsH200[0]), kProvenanceH200, kCommandH200};

}  // namespace kl::gemm_plan
