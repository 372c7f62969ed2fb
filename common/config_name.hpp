// Names of tuned configurations, built from their parameters so that a name cannot disagree with
// the template arguments it describes ("gemm9_pipelined_128x128x16_w64x32_t8x8_s3": block tile
// 128×128×16, warp tile 64×32, thread tile 8×8, 3 stages). VariantInfo holds string_views, so a
// built name is kept for the life of the program.
#pragma once

#include <deque>
#include <mutex>
#include <string>
#include <string_view>

namespace kl {

// Stores `s` for the life of the program and returns a view of it.
inline std::string_view keep_name(std::string s) {
  static std::deque<std::string> names;  // a deque never moves its elements
  static std::mutex m;
  const std::lock_guard<std::mutex> lock(m);
  return names.emplace_back(std::move(s));
}

// "128x128x16"
template <class... Ints>
std::string dims_name(int first, Ints... rest) {
  std::string s = std::to_string(first);
  ((s += "x" + std::to_string(rest)), ...);
  return s;
}

// "<step>_<BM>x<BN>x<BK>_w<WM>x<WN>_t<TM>x<TN>_s<STAGES>": a tile configuration of the last steps
// (block tile, warp tile, thread tile, stages), to which a step may add a suffix of its own.
inline std::string tile_name(std::string_view step, int bm, int bn, int bk, int wm, int wn, int tm, int tn, int stages) {
  return std::string(step) + "_" + dims_name(bm, bn, bk) + "_w" + dims_name(wm, wn) + "_t" + dims_name(tm, tn) + "_s" +
         std::to_string(stages);
}

}  // namespace kl
