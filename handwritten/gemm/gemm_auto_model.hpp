// The shape of gemm_auto's fitted time model, per GPU: one row per modelled step (gemm_auto_plan.hpp,
// step_model_us), read from a data file per GPU (gemm_auto_models.hpp lists them). Each file is
// written by scripts/fit_gemm_model.py from named results files and says so (GpuModel's
// provenance and command); a GPU without one has no model, and tune measures every candidate there.
#pragma once

#include <cstddef>
#include <string_view>

namespace kl::gemm_plan {

// The path a row was fitted on: 16-byte accesses to B and C (vec), or element by element (a step
// whose element path runs differently enough to need its own constants; the others use their
// vec row on both paths).
enum class Path { vec, element };

// A step's constants (step_model_us): its blocks overlap in groups of `overlap` per SM, each
// further block of a group costing `co` of a block's time; launch_us once, block_us and ktile_us
// per block and per k tile, us_per_mb per MB moved.
struct ModelRow {
  std::string_view step;  // its name in the gemm list (gemm_auto_plan.hpp's table)
  Path path;
  int overlap;
  double launch_us, block_us, ktile_us, co, us_per_mb;
};

// One GPU's model: the rows of the steps it has constants for, and where they come from.
struct GpuModel {
  std::string_view gpu;  // as the device's name contains it ("H100")
  const ModelRow* rows;
  std::size_t count;
  std::string_view provenance;  // the script, its inputs, the commit it ran at
  std::string_view command;     // what regenerates the file
  const ModelRow* find(std::string_view step, Path path) const {
    for (std::size_t i = 0; i < count; ++i)
      if (rows[i].step == step && rows[i].path == path) return &rows[i];
    return nullptr;
  }
};

}  // namespace kl::gemm_plan
