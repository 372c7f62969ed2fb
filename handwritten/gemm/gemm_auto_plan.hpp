// gemm_auto's plan (handwritten/gemm/gemm_auto.cuh runs it), as pure functions of the shape, the
// device's features and the model's constants: the shape's class, the time model, the candidates
// and the shortlist that tune measures. Host-compilable: the host suite checks it without a GPU.
// No ladder kernel includes it.
#pragma once

#include "handwritten/gemm/gemm_split_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace kl::gemm_plan {

// ---- gemm_auto's rule (gemm_auto.cuh applies it; the host suite checks its examples) ---------
// The shape's class, before any tile: one output column (N = 1) is a matrix-vector product, one
// output row (M = 1) a vector-matrix product, K <= kThinK a store stream; the rest is tiled.
enum class ShapeClass { gemv, gevm, thin_k, tiled };
constexpr int kThinK = 4;
inline ShapeClass shape_class(GemmShape s) {
  if (s.N == 1) return ShapeClass::gemv;  // M = N = 1 too: a dot product
  if (s.M == 1) return ShapeClass::gevm;
  if (s.K <= kThinK) return ShapeClass::thin_k;
  return ShapeClass::tiled;
}
// Output tiles of bm × bn.
// gemm_auto's small float step (gemm10 64×64×16, four blocks per SM) picks its split by a time
// model instead: splitk_splits_for, which fills the resident blocks, split 513×257×129 three
// ways where unsplit ran faster, 700×600×200 four ways (slower than unsplit) and 129×129×4097
// sixteen ways (slower than 14: 144 blocks put two on twelve SMs), docs/sgemm-ladder.md, "Every
// shape class". The model, in microseconds:
//   k tiles of the deepest slice × kSplitTileUs × the busiest SM's load
//   + where there is a split: kSplitReduceUs (the reduction's launch and ramp) and the
//     reduction's bytes, (slices + 1) × M × N elements, at kSplitReduceBytesPerUs.
// The load of j blocks on one SM, at most `blocks_per_sm` resident: one block 1, each further
// resident block kSplitCoResident more (they share the SM's issue slots; 1 would be no overlap),
// whole residency waves one after another. The constants were fitted on the H100 (12 shapes,
// a trial log that journal/README.md indexes; the model's pick was close to the best split on each,
// as this comment quantified at commit dc72026) and checked on 14 others (docs/sgemm-ladder.md,
// "Every shape class": closer to the best split than the fill rule on average and at worst; its
// worst, 3000×200×300, one slice where two were best); the SM count is the device's. The model
// only ranks the splits of one shape, so its constants matter as ratios: the k tile's time
// against the reduction's.
// kSplitTileUs is a 64 × 64 × 16 k tile's; another tile of the same depth takes it in proportion
// to its area (gemm11's 32² DMMA tile a quarter: the FP64 tensor cores of 8.0 and 9.0 do as many
// multiply-adds per cycle as the FP32 lanes), so the reduction's fixed cost weighs four times as
// much against a small double tile's k loop as against the float one's.
constexpr double kSplitTileUs = 0.7, kSplitCoResident = 0.5, kSplitReduceUs = 3.5, kSplitReduceBytesPerUs = 2.5e6;
inline double split_tile_us(int bm, int bn) { return kSplitTileUs * double(bm) * double(bn) / (64.0 * 64.0); }
// The split model is step_model_us with only the k loop's term: no launch or block cost, no bytes.
inline double splitk_model_us(GemmShape s, int bm, int bn, int bk, int splits, int blocks_per_sm, long long sms,
                              std::size_t elem_bytes);
// The split count (1 to kMaxSplits, the fewest of those that use as many slices) the model
// times fastest.
inline int splitk_splits_modeled(GemmShape s, int bm, int bn, int bk, int blocks_per_sm, long long sms,
                                 std::size_t elem_bytes) {
  int best = 1;
  double best_us = splitk_model_us(s, bm, bn, bk, 1, blocks_per_sm, sms, elem_bytes);
  for (int n = 2; n <= kMaxSplits; ++n) {
    if (used_splits(s.K, n, bk) == used_splits(s.K, n - 1, bk)) continue;
    const double us = splitk_model_us(s, bm, bn, bk, n, blocks_per_sm, sms, elem_bytes);
    if (us < best_us) best = n, best_us = us;
  }
  return best;
}

// ---- gemm_auto's time model: which tiled steps are worth measuring for one shape ------------
// One formula for every tiled step, its constants fitted per step on the H100's measured times
// (docs/sgemm-ladder.md, "gemm_auto's rules"): the blocks of a wave overlap, so the busiest
// multiprocessor's load is counted as in splitk_model_us (whole groups of `overlap` blocks, each
// further block of a group `co` of a block's time), and
//   t = launch_us + load × (block_us + k tiles of a slice × ktile_us) + us_per_mb × MB moved
//       (+ the split's reduction, splitk_model_us's, where k is split)
// where MB moved is C once plus A once per tile column and B once per tile row. `overlap` is a
// fitted constant, not the occupancy. The model ranks steps only roughly (its error is several
// per cent, and neighbouring steps are often closer than that), so gemm_auto does not trust it
// with the choice where it can measure: it times the steps the model puts within kShortlist of
// its best (gemm_auto.cuh, tune) and falls back on the model's first only where nothing was
// measured.
struct StepModel {
  int bm, bn, bk, overlap;
  double launch_us, block_us, ktile_us, co, us_per_mb;
};
constexpr double kShortlist = 1.3;
inline double step_model_us(const StepModel& m, GemmShape s, int splits, long long sms, std::size_t elem_bytes) {
  const int used = used_splits(s.K, splits, m.bk);
  const long long k_tiles = k_per_split(s.K, splits, m.bk) / m.bk;
  const long long busiest = div_up(tiles_of(s, m.bm, m.bn) * used, sms);
  const auto group = [&](long long n) { return n ? 1 + m.co * double(n - 1) : 0.0; };
  const double load = double(busiest / m.overlap) * group(m.overlap) + group(busiest % m.overlap);
  const double mb = (double(s.M) * s.N + double(s.M) * s.K * div_up(s.N, m.bn) + double(s.K) * s.N * div_up(s.M, m.bm)) *
                    double(elem_bytes) / 1e6;
  double t = m.launch_us + load * (m.block_us + double(k_tiles) * m.ktile_us) + m.us_per_mb * mb;
  if (used > 1) t += kSplitReduceUs + double(used + 1) * s.M * s.N * double(elem_bytes) / kSplitReduceBytesPerUs;
  return t;
}
inline double splitk_model_us(GemmShape s, int bm, int bn, int bk, int splits, int blocks_per_sm, long long sms,
                              std::size_t elem_bytes) {
  return step_model_us({bm, bn, bk, blocks_per_sm, 0.0, 0.0, split_tile_us(bm, bn), kSplitCoResident, 0.0}, s, splits,
                       sms, elem_bytes);
}
// Which of the modelled times are worth measuring: every one within kShortlist of the fastest,
// the fastest first, the others in their order (indices into `us`).
inline std::vector<int> shortlist(const std::vector<double>& us) {
  std::vector<int> out;
  if (us.empty()) return out;
  const int best = static_cast<int>(std::min_element(us.begin(), us.end()) - us.begin());
  out.push_back(best);
  for (int i = 0; i < static_cast<int>(us.size()); ++i)
    if (i != best && us[i] <= kShortlist * us[best]) out.push_back(i);
  return out;
}

// gemm_auto's steps for a tiled product (gemm_auto.cuh runs them), each one of the list's
// configurations, the split ones with a count of slices.
enum class Step { g9_64, g10_64, g9_128x8, g9_128x16, g10_128, g12, g13, g11_32, g11_64, g11_64pf, g11_128pf, shallow, g10_32, g13_stream, g11_stream, g14, g14_stream };
struct StepChoice {
  Step step;
  int splits = 1;
};
// The model's constants per step (StepModel: tile, fitted overlap, launch µs, block µs, k tile µs,
// co-resident share, µs per MB moved), fitted on the H100's times of these configurations over the
// shapes docs/sgemm-ladder.md ("gemm_auto's rules") names. They only shortlist; tune chooses.
// None for the steps it has no constants for yet: those are always measured where they apply
// (auto_shortlist).
inline std::optional<StepModel> model_of(Step s, bool vec = true) {
  switch (s) {
    case Step::g9_64:
      if (!vec) return StepModel{64, 64, 16, 8, 0.07, 5.428, 0.536, 0.44, 0.166};  // its element path
      return StepModel{64, 64, 16, 6, 4.08, 0.358, 0.529, 0.66, 0.048};
    case Step::g10_64: return StepModel{64, 64, 16, 4, 4.00, 0.841, 0.622, 0.64, 0.0};
    case Step::g9_128x8: return StepModel{128, 128, 8, 8, 4.50, 0.417, 0.802, 0.76, 0.136};
    case Step::g9_128x16: return StepModel{128, 128, 16, 8, 4.54, 0.579, 1.487, 0.78, 0.124};
    case Step::g10_128: return StepModel{128, 128, 16, 2, 3.60, 2.261, 1.674, 0.77, 0.093};
    case Step::g12: return StepModel{256, 128, 16, 8, 4.25, 1.561, 2.719, 0.87, 0.143};
    case Step::g13: return StepModel{128, 256, 32, 2, 1.26, 4.767, 5.268, 0.72, 0.130};
    case Step::g11_32: return StepModel{32, 32, 16, 3, 4.20, 0.387, 0.213, 0.42, 0.010};
    case Step::g11_64: return StepModel{64, 64, 16, 8, 3.85, 1.398, 0.528, 0.63, 0.003};
    case Step::g11_64pf: return StepModel{64, 64, 16, 3, 4.24, 1.451, 0.385, 0.79, 0.001};
    case Step::g11_128pf: return StepModel{128, 128, 16, 4, 2.23, 5.576, 1.126, 0.83, 0.064};
    case Step::shallow:
    case Step::g10_32:
    case Step::g13_stream:
    case Step::g11_stream:
    case Step::g14:
    case Step::g14_stream: break;
  }
  return std::nullopt;
}
// gemm_shallow_k's one-chunk depth (its kMaxK, checked where it is launched): the step is a
// candidate only there (deeper, its chunked form is correct but not built for speed).
constexpr int kShallowMaxK(bool dbl) { return dbl ? 48 : 64; }
// What the device, the build and the buffers allow: `vec`, 16-byte accesses to B and C (gemm9's
// and gemm12's fast paths); `tma`, the TMA step of the type on an sm_90a build and a 9.0 device,
// with descriptors for its buffers (float: gemm13, A, B and C; double: gemm14, A and B); `huge`,
// gemm12's 97 KB of shared memory; `dmma_large`, gemm11's 128² tile's.
struct AutoFeatures {
  bool vec = false, tma = false, huge = false, dmma_large = false;
  long long sms = 132;
};
// Blocks per SM the split steps' counts assume (their Configs' kMinBlocks, checked where they are
// launched): gemm10's 64² tile 4, gemm11's 32² tile 2.
constexpr int kSplit64Blocks = 4, kSplitDmma32Blocks = 2;
// The slices a split step may take: its time model's count (splitk_splits_modeled) and, for
// gemm10's 64² tile, the list's fill rule too (gemm10_splitk), 1 always.
inline std::vector<int> auto_split_counts(GemmShape sh, bool dbl, long long sms) {
  std::vector<int> n{1};
  const auto add = [&](int k) {
    if (k > 1 && std::find(n.begin(), n.end(), k) == n.end()) n.push_back(k);
  };
  if (!dbl) {
    add(splitk_splits_modeled(sh, 64, 64, 16, kSplit64Blocks, sms, 4));
    add(splitk_splits(sh, 64, 64, 16, kSplit64Blocks));
  } else {
    add(splitk_splits_modeled(sh, 32, 32, 16, kSplitDmma32Blocks, sms, 8));
  }
  return n;
}
// gemm13's tile in gemm_auto (gemm13::R232At, checked where it is launched) and its split count:
// splitk_splits at one block per SM.
constexpr int kG13Bm = 128, kG13Bn = 256, kG13Bk = 32;
inline int g13_splits(GemmShape sh, long long sms) { return splitk_splits(sh, kG13Bm, kG13Bn, kG13Bk, 1, sms); }
// gemm13's stream-K form where whole tiles leave the last wave (one block per SM) less than
// kStreamFullWave full: there it can give every SM the same k tiles. Its data-parallel waves run
// the unsplit kernel's k loop, so any number of waves before the last costs it nothing; where the
// last wave is (almost) full the fixup is all it adds (docs/sgemm-ladder.md, "gemm13 stream-K").
constexpr double kStreamFullWave = 0.9;
inline bool stream_pays(GemmShape sh, int bm, int bn, long long sms) {
  const long long last = tiles_of(sh, bm, bn) % sms;
  return last != 0 && double(last) < kStreamFullWave * double(sms);
}
inline bool g13_stream_pays(GemmShape sh, long long sms) { return stream_pays(sh, kG13Bm, kG13Bn, sms); }
// Its workspace (gemm13::stream_workspace for gemm13's tile).
inline std::size_t g13_stream_workspace(GemmShape sh, long long sms, std::size_t elem_bytes) {
  return stream_k_workspace(stream_k_plan(sh, kG13Bm, kG13Bn, kG13Bk, sms), kG13Bm, kG13Bn, elem_bytes);
}
// gemm11_pf's 128² DMMA tile (one block per SM, as gemm13's) as stream-K, by the same rule.
constexpr int kG11Bm = 128, kG11Bn = 128;
inline bool g11_stream_pays(GemmShape sh, long long sms) { return stream_pays(sh, kG11Bm, kG11Bn, sms); }
// gemm13's and gemm14's stream-K forms are measured before their unsplit forms, so that tune's
// margin is on their side, where K is at least kStreamFirstK: there the fixup, one partial tile
// per cut tile whatever K is, is small beside the k loops the part-empty last wave leaves idle.
// Shallower, the fixup can cost more than the wave saves (docs/sgemm-ladder.md, "tune's order").
constexpr int kStreamFirstK = 1024;
inline bool stream_first(GemmShape sh) { return sh.K >= kStreamFirstK; }
// Every step gemm_auto may run for a tiled product (float: `dbl` false; double on the FP64
// tensor cores: true).
inline std::vector<StepChoice> auto_candidates(GemmShape sh, bool dbl, AutoFeatures f) {
  std::vector<StepChoice> c;
  if (!dbl) {
    for (int n : auto_split_counts(sh, false, f.sms)) c.push_back({Step::g10_64, n});
    c.push_back({Step::g10_128});
    c.push_back({Step::g9_64});  // on its element path too: at small shapes it beats gemm10's 64²
    if (f.vec) {                 // the larger gemm9 tiles and gemm12 only on their 16-byte paths
      c.push_back({Step::g9_128x8});
      c.push_back({Step::g9_128x16});
      if (f.huge) c.push_back({Step::g12});
    }
    if (f.tma) {
      c.push_back({Step::g13});
      // and split, where its tiles leave SMs idle: the fill rule at one block per SM (gemm13's
      // split form, gemm13::splits, with the device's SMs)
      const int n = g13_splits(sh, f.sms);
      if (used_splits(sh.K, n, kG13Bk) > 1) c.push_back({Step::g13, n});
      if (g13_stream_pays(sh, f.sms)) c.push_back({Step::g13_stream});
    }
    if (sh.K <= kShallowMaxK(false)) c.push_back({Step::shallow});
    // gemm10's 32² tile where 64² tiles make less than two waves (four times the blocks, a
    // quarter of the k loop each: small products are latency, not issue, bound) or where M or N
    // fills less than half a 64-wide tile
    if (tiles_of(sh, 64, 64) < 2 * f.sms || std::min(sh.M, sh.N) <= 32) c.push_back({Step::g10_32});
  } else {
    for (int n : auto_split_counts(sh, true, f.sms)) c.push_back({Step::g11_32, n});
    c.push_back({Step::g11_64});
    c.push_back({Step::g11_64pf});
    if (f.dmma_large) {
      c.push_back({Step::g11_128pf});
      if (g11_stream_pays(sh, f.sms)) c.push_back({Step::g11_stream});
      if (f.tma) {  // the same tile fed by TMA, and its stream-K form by the same rule
        c.push_back({Step::g14});
        if (g11_stream_pays(sh, f.sms)) c.push_back({Step::g14_stream});
      }
    }
    if (sh.K <= kShallowMaxK(true)) c.push_back({Step::shallow});
  }
  return c;
}
// The candidates the model puts within kShortlist of its best, its best first, and the steps it
// has no constants for (gemm_shallow_k, gemm10's 32² tile, the stream-K forms, gemm14)
// wherever they are candidates: those are always measured, after the modelled ones, except
// gemm14 and, where stream_first, gemm13's stream-K form. gemm14 is gemm11_pf's 128² tile with
// its copies out of the k loop (the same tile and work, fewer instructions), so where the model
// shortlists that tile gemm14 takes its rank, just before it, with its stream-K form between (or
// first: stream_first): where the 128² tile is the model's first, gemm14 is, and tune's margin
// keeps it unless another step measures clearly faster. gemm13's stream-K form, where
// stream_first, takes the rank of gemm13 unsplit, just before it (docs/sgemm-ladder.md, "tune's
// rest", "tune's order").
inline bool modelled_step(Step s) { return model_of(s).has_value(); }
inline std::vector<StepChoice> auto_shortlist(GemmShape sh, bool dbl, AutoFeatures f) {
  std::vector<StepChoice> modelled, unmodelled, out;
  for (const StepChoice& c : auto_candidates(sh, dbl, f)) (modelled_step(c.step) ? modelled : unmodelled).push_back(c);
  std::vector<double> us;
  for (const StepChoice& c : modelled) us.push_back(step_model_us(*model_of(c.step, f.vec), sh, c.splits, f.sms, dbl ? 8 : 4));
  // The unmodelled forms that take modelled step c's rank, measured just before it (each once):
  // gemm14's two forms before the 128² tile they run, gemm13's stream-K form before gemm13
  // unsplit where stream_first; a stream-K form ahead of an unsplit one where stream_first.
  const auto takes_rank_of = [&](StepChoice u, StepChoice c) {
    if (c.step == Step::g11_128pf) return u.step == Step::g14 || u.step == Step::g14_stream;
    return c.step == Step::g13 && c.splits == 1 && u.step == Step::g13_stream && stream_first(sh);
  };
  const auto is_stream = [](StepChoice u) { return u.step == Step::g14_stream || u.step == Step::g13_stream; };
  std::vector<bool> placed(unmodelled.size(), false);
  for (int i : shortlist(us)) {
    const StepChoice& c = modelled[static_cast<std::size_t>(i)];
    for (const bool stream : {stream_first(sh), !stream_first(sh)})
      for (std::size_t k = 0; k < unmodelled.size(); ++k)
        if (!placed[k] && is_stream(unmodelled[k]) == stream && takes_rank_of(unmodelled[k], c))
          out.push_back(unmodelled[k]), placed[k] = true;
    out.push_back(c);
  }
  for (std::size_t k = 0; k < unmodelled.size(); ++k)
    if (!placed[k]) out.push_back(unmodelled[k]);
  return out;
}

}  // namespace kl::gemm_plan
