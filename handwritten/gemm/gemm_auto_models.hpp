// The GPUs gemm_auto has a fitted time model for, one data file each (gemm_auto_model_<gpu>.hpp,
// written by scripts/fit_gemm_model.py), and which one a device takes: the first whose name the
// device's name contains. Any other GPU has no model: tune measures every candidate there, and
// where nothing is measured launch runs the first candidate. Adding a GPU is one file and one line.
#pragma once

#include "handwritten/gemm/gemm_auto_model_h100.hpp"
#include "handwritten/gemm/gemm_auto_model_h200.hpp"

#include <string_view>

namespace kl::gemm_plan {

inline constexpr const GpuModel* kGpuModels[] = {&kModelH100, &kModelH200};

inline const GpuModel* model_for(std::string_view device_name) {
  for (const GpuModel* m : kGpuModels)
    if (device_name.find(m->gpu) != std::string_view::npos) return m;
  return nullptr;
}

}  // namespace kl::gemm_plan
