// gemm_auto's plan (handwritten/gemm/gemm_auto.cuh runs it), as pure functions of the shape, the
// device's features and the model's constants: the shape's class, the time model, the candidates
// and the shortlist that tune measures. Host-compilable: the host suite checks it without a GPU.
// No ladder kernel includes it.
#pragma once

#include "handwritten/gemm/gemm_auto_model.hpp"
#include "handwritten/gemm/gemm_auto_steps.hpp"
#include "handwritten/gemm/gemm_pad_plan.hpp"
#include "handwritten/gemm/gemm_split_plan.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace kl::gemm_plan {

// ---- the shape's class (gemm_auto.cuh applies it; the host suite checks its examples) ---------
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

// ---- the split model: how many slices a small step takes ------------------------------------
// The small steps (gemm10's 64² float tile at four blocks per SM, gemm11's 32² DMMA tile at two)
// pick their split by a time model rather than splitk_splits_for's fill of the resident blocks,
// which split some products where unsplit ran faster (docs/sgemm-ladder.md, "Every shape class").
// The model, in microseconds:
//   k tiles of the deepest slice × kSplitTileUs × the busiest SM's load
//   + where there is a split: kSplitReduceUs (the reduction's launch and ramp) and the
//     reduction's bytes, (slices + 1) × M × N elements, at kSplitReduceBytesPerUs.
// The load of j blocks on one SM, at most `blocks_per_sm` resident: one block 1, each further
// resident block kSplitCoResident more (they share the SM's issue slots; 1 would be no overlap),
// whole residency waves one after another. The constants were fitted on the H100 and are used on
// every GPU (the SM count is the device's): the model only ranks the splits of one shape, so they
// matter as ratios, the k tile's time against the reduction's (docs/sgemm-ladder.md, "Every shape
// class", has the fit and its checks).
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
// One formula for every tiled step, its constants fitted per step and per GPU on measured times
// (gemm_auto_model.hpp, scripts/fit_gemm_model.py; docs/sgemm-ladder.md, "gemm_auto's rules"):
// the blocks of a wave overlap, so the busiest
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

// ---- the steps (gemm_auto_steps.hpp's table) --------------------------------------------------
// What the device, the build and the buffers allow: `vec`, 16-byte accesses to B and C (gemm9's
// and gemm12's fast paths); `tma`, the TMA step of the type on an sm_90a build and a 9.0 device,
// with descriptors for its buffers (float: gemm13, for A and B as they lie or for padded copies,
// gemm13::tma_runs; double: gemm14, A and B as they lie); `huge`,
// gemm12's 97 KB of shared memory; `dmma_large`, gemm11's 128² tile's. `model`: this GPU's time
// model (gemm_auto_models.hpp), none where the GPU has no data file.
struct AutoFeatures {
  bool vec = false, tma = false, huge = false, dmma_large = false;
  long long sms = 132;
  const GpuModel* model = nullptr;
};
enum : unsigned { kNeedsNothing = 0, kNeedsVec = 1, kNeedsHuge = 2, kNeedsTma = 4, kNeedsDmmaLarge = 8 };
inline unsigned features_of(const AutoFeatures& f) {
  return (f.vec ? kNeedsVec : 0u) | (f.huge ? kNeedsHuge : 0u) | (f.tma ? kNeedsTma : 0u) | (f.dmma_large ? kNeedsDmmaLarge : 0u);
}

// The slice counts a step may take: 1 only; 1, the split the time model picks
// (splitk_splits_modeled at `blocks` blocks per SM) and the list's fill rule's (splitk_splits at
// kFillSMs, gemm10_splitk's), both measured where the model shortlists them (the model alone
// rated the reduction too dear for the small DMMA tiles, docs/sgemm-ladder.md, "Split-K without
// the reduction's launch gap"); 1 and the fill rule at the device's SMs where it splits.
struct Splits {
  enum Kind { one, modeled_and_fill, fill } kind;
  int blocks = 1;
};
// Where tune measures a step: by its own modelled time (after the modelled ones where this GPU has
// no constants for it), or just before the step `of` wherever the model shortlists that step
// (`before`; `before_if_stream_first`: only where stream_first, else after the modelled ones).
struct Rank {
  enum Kind { own, before, before_if_stream_first } kind;
  std::string_view of = {};
};

#define KL_AUTO_STEP_ID(step, ...) step,
enum class Step { KL_GEMM_AUTO_STEPS(KL_AUTO_STEP_ID) };
#undef KL_AUTO_STEP_ID
struct StepRow;
using Applies = bool (*)(const StepRow&, GemmShape, const AutoFeatures&);
struct StepRow {
  Step step;
  bool dbl;
  std::string_view name;
  int bm, bn, bk;
  unsigned needs;
  Applies applies;
  Splits splits;
  Rank rank;
  // A stream-K form (measured first or last among the forms that take one step's rank).
  bool stream() const { return name.size() > 8 && name.substr(name.size() - 8) == "_streamk"; }
  // A step that copies operands with ragged rows padded before it runs (gemm13's, float TMA):
  // the time model adds the copies (pad_model_us).
  bool pads() const { return !dbl && (needs & kNeedsTma) != 0; }
};

// The predicates of the table's `applies` column.
inline bool always(const StepRow&, GemmShape, const AutoFeatures&) { return true; }
// gemm_shallow_k's one-chunk depth (its kMaxK, checked where it is launched): the step is a
// candidate only there (deeper, its chunked form is correct but not built for speed).
constexpr int kShallowMaxK(bool dbl) { return dbl ? 48 : 64; }
inline bool shallow_fits(const StepRow& r, GemmShape sh, const AutoFeatures&) { return sh.K <= kShallowMaxK(r.dbl); }
// C's rows without 16-byte vectors (N not a multiple of 4, or a buffer off 16 bytes): there
// gemm9's tiles store C element by element, lanes 4 elements apart, and a tile staged through
// shared memory writes whole lines instead (docs/sgemm-ladder.md, "gemm9's stores on ragged rows").
inline bool c_unvectorised(const StepRow&, GemmShape, const AutoFeatures& f) { return !f.vec; }
// Four times the blocks of the 64² tile, a quarter of the k loop each: small products are
// latency, not issue, bound.
inline bool few_64_tiles(const StepRow&, GemmShape sh, const AutoFeatures& f) {
  return tiles_of(sh, 64, 64) < 2 * f.sms || std::min(sh.M, sh.N) <= 32;
}
// A stream-K form where whole tiles leave the last wave (one block per SM) less than
// kStreamFullWave full: there it can give every SM the same k tiles. Its data-parallel waves run
// the unsplit kernel's k loop, so any number of waves before the last costs it nothing; where the
// last wave is (almost) full the fixup is all it adds (docs/sgemm-ladder.md, "gemm13 stream-K").
constexpr double kStreamFullWave = 0.9;
inline bool stream_pays(const StepRow& r, GemmShape sh, const AutoFeatures& f) {
  const long long last = tiles_of(sh, r.bm, r.bn) % f.sms;
  return last != 0 && double(last) < kStreamFullWave * double(f.sms);
}

#define KL_AUTO_STEP_ROW(step, T, name, tile, needs, applies, splits, rank, ...) \
  StepRow{Step::step, sizeof(T) == 8, name, tile::BM, tile::BN, tile::BK, needs, applies, splits, rank},
inline constexpr StepRow kSteps[] = {KL_GEMM_AUTO_STEPS(KL_AUTO_STEP_ROW)};
#undef KL_AUTO_STEP_ROW
inline constexpr const StepRow& row_of(Step s) { return kSteps[static_cast<int>(s)]; }

// A step and the slices it runs with.
struct StepChoice {
  Step step;
  int splits = 1;
};

// The stream-K forms are measured before the step whose rank they take (so that tune's margin is
// on their side) where K is at least kStreamFirstK: there the fixup, one partial tile per cut tile
// whatever K is, is small beside the k loops the part-empty last wave leaves idle. Shallower, the
// fixup can cost more than the wave saves (docs/sgemm-ladder.md, "tune's order").
constexpr int kStreamFirstK = 1024;
inline bool stream_first(GemmShape sh) { return sh.K >= kStreamFirstK; }

// The slice counts row r may take for shape sh (Splits), 1 first.
inline std::vector<int> split_counts(const StepRow& r, GemmShape sh, long long sms) {
  std::vector<int> n{1};
  const auto add = [&](int k) {
    if (k > 1 && std::find(n.begin(), n.end(), k) == n.end()) n.push_back(k);
  };
  const std::size_t elem = r.dbl ? 8 : 4;
  switch (r.splits.kind) {
    case Splits::one: break;
    case Splits::modeled_and_fill:
      add(splitk_splits_modeled(sh, r.bm, r.bn, r.bk, r.splits.blocks, sms, elem));
      add(splitk_splits(sh, r.bm, r.bn, r.bk, r.splits.blocks));
      break;
    case Splits::fill: {
      const int k = splitk_splits(sh, r.bm, r.bn, r.bk, r.splits.blocks, sms);
      if (used_splits(sh.K, k, r.bk) > 1) n.push_back(k);
      break;
    }
  }
  return n;
}

// Every step gemm_auto may run for a tiled product of this shape (float: `dbl` false; double on the
// FP64 tensor cores: true), in the table's order: the rows of the type that this device, build and
// these buffers allow and the shape calls for, each with every slice count it may take.
inline std::vector<StepChoice> auto_candidates(GemmShape sh, bool dbl, const AutoFeatures& f) {
  std::vector<StepChoice> c;
  const unsigned have = features_of(f);
  for (const StepRow& r : kSteps)
    if (r.dbl == dbl && (r.needs & ~have) == 0 && r.applies(r, sh, f))
      for (int n : split_counts(r, sh, f.sms)) c.push_back({r.step, n});
  return c;
}

// The (step, slices) pairs whose workspace gemm_auto asks for before tune has chosen: every row of
// the type that the shape calls for, with every slice count it may take, whatever the buffers
// allow (the workspace is sized before the buffers are known).
inline std::vector<StepChoice> auto_workspace_choices(GemmShape sh, bool dbl, long long sms) {
  std::vector<StepChoice> c;
  AutoFeatures f;
  f.sms = sms;
  for (const StepRow& r : kSteps)
    if (r.dbl == dbl && r.applies(r, sh, f))
      for (int n : split_counts(r, sh, sms)) c.push_back({r.step, n});
  return c;
}
// The steps to prepare on a device that allows `have` (kNeeds* bits; 16-byte buffers assumed).
inline std::vector<Step> auto_prepared(bool dbl, unsigned have) {
  std::vector<Step> out;
  for (const StepRow& r : kSteps)
    if (r.dbl == dbl && (r.needs & ~(have | kNeedsVec)) == 0) out.push_back(r.step);
  return out;
}

// Steps whose blocks do another step's work in another shape (the same warps, k tile and ring,
// stacked otherwise) take that step's constants where the GPU's data has none of their own: the
// model still counts their own tiles, waves and traffic from their BM and BN, which is where they
// differ. A row of their own in the data (scripts/fit_gemm_model.py, once a results file holds
// them) takes precedence.
struct ModelLike {
  Step step, like;
};
inline constexpr ModelLike kModelLike[] = {{Step::g10_128x32, Step::g10_64}, {Step::g10_32x128, Step::g10_64},
                                            {Step::g11_32x128pf, Step::g11_64pf}, {Step::g11_128x32pf, Step::g11_64pf}};

// Step s's own row of this GPU's data: the element path's where the step has one and B or C take
// no 16-byte accesses, else its 16-byte path's; none where the data has neither.
inline const ModelRow* own_model_row(Step s, const AutoFeatures& f) {
  if (!f.model) return nullptr;
  const std::string_view name = row_of(s).name;
  const ModelRow* m = f.vec ? nullptr : f.model->find(name, Path::element);
  return m ? m : f.model->find(name, Path::vec);
}
// The step whose row s borrows on this GPU (kModelLike), none where s has a row of its own.
inline std::optional<Step> borrowed_from(Step s, const AutoFeatures& f) {
  if (!f.model || own_model_row(s, f)) return std::nullopt;
  for (const ModelLike& l : kModelLike)
    if (l.step == s && own_model_row(l.like, f)) return l.like;
  return std::nullopt;
}
// Step s's time model on this GPU: its own row, else the row of the step it is modelled like
// (kModelLike) with its own BM and BN, none where the GPU has no constants for either.
inline std::optional<StepModel> model_of(Step s, const AutoFeatures& f) {
  const std::optional<Step> like = borrowed_from(s, f);
  const ModelRow* m = own_model_row(like ? *like : s, f);
  if (!m) return std::nullopt;
  const StepRow& r = row_of(s);
  return StepModel{r.bm, r.bn, r.bk, m->overlap, m->launch_us, m->block_us, m->ktile_us, m->co, m->us_per_mb};
}

// The candidates the model puts within kShortlist of its best, its best first, and those it has no
// constants for, wherever they are candidates: always measured, after the modelled ones, or, where
// their rank says so, just before the step whose rank they take (gemm14 before gemm11_pf's 128²
// tile, the same tile with its copies out of the k loop: where that tile is the model's first,
// gemm14 is, and tune's margin keeps it unless another step measures clearly faster; gemm13's
// stream-K form before gemm13 unsplit where stream_first). Of the forms that take one step's rank
// the stream-K ones come first where stream_first, last elsewhere (docs/sgemm-ladder.md, "tune's
// rest", "tune's order").
inline std::vector<StepChoice> auto_shortlist(GemmShape sh, bool dbl, const AutoFeatures& f) {
  std::vector<StepChoice> modelled, unmodelled, out;
  for (const StepChoice& c : auto_candidates(sh, dbl, f)) (model_of(c.step, f) ? modelled : unmodelled).push_back(c);
  std::vector<double> us;
  for (const StepChoice& c : modelled)
    us.push_back(step_model_us(*model_of(c.step, f), sh, c.splits, f.sms, dbl ? 8 : 4) +
                 (row_of(c.step).pads() ? pad_model_us(sh) : 0.0));
  const auto takes_rank_of = [&](StepChoice u, StepChoice c) {
    const Rank& k = row_of(u.step).rank;
    return k.kind != Rank::own && c.splits == 1 && k.of == row_of(c.step).name &&
           (k.kind == Rank::before || stream_first(sh));
  };
  // A shortlisted step on a borrowed row brings the step it borrows from: borrowed constants say
  // where its tiling leaves fewer blocks on the busiest SM, not by how much it wins, so the step
  // whose row it is stays measured until the GPU's data has a row of its own.
  std::vector<int> picks = shortlist(us);
  for (std::size_t p = 0; p < picks.size(); ++p) {
    const std::optional<Step> like = borrowed_from(modelled[static_cast<std::size_t>(picks[p])].step, f);
    int j = -1;
    for (int i = 0; like && i < static_cast<int>(modelled.size()); ++i)
      if (modelled[static_cast<std::size_t>(i)].step == *like && (j < 0 || us[i] < us[j])) j = i;
    if (j >= 0 && std::find(picks.begin(), picks.end(), j) == picks.end())
      picks.insert(picks.begin() + static_cast<std::ptrdiff_t>(p) + 1, j);
  }
  std::vector<bool> placed(unmodelled.size(), false);
  for (int i : picks) {
    const StepChoice& c = modelled[static_cast<std::size_t>(i)];
    for (const bool stream : {stream_first(sh), !stream_first(sh)})
      for (std::size_t k = 0; k < unmodelled.size(); ++k)
        if (!placed[k] && row_of(unmodelled[k].step).stream() == stream && takes_rank_of(unmodelled[k], c))
          out.push_back(unmodelled[k]), placed[k] = true;
    out.push_back(c);
  }
  for (std::size_t k = 0; k < unmodelled.size(); ++k)
    if (!placed[k]) out.push_back(unmodelled[k]);
  return out;
}

}  // namespace kl::gemm_plan
