// The plan arithmetic of the matrix-vector steps that a rule chooses, as pure functions of the
// shape and the multiprocessor count: host-compilable, so the host suite checks them against the
// plans that were measured (tests/host/test_matvec_plan.cpp). The kernels' headers call these
// with the device's count (sm_count()).
#pragma once

#include <algorithm>

namespace kl::matvec {

// Threads per block of the steps beyond the document.
constexpr int kThreads = 256;

// The smallest power of two >= n, capped at `cap` (a power of two).
inline int pow2_at_least(long long n, int cap) {
  int g = 1;
  while (g < cap && g < n) g *= 2;
  return g;
}

}  // namespace kl::matvec

namespace kl::gevm_plan {

using matvec::kThreads;
constexpr int kMaxSlabs = 8;          // gevm6's slabs are a cluster: the portable cluster size
constexpr int kNarrowRowBytes = 128;  // _c128: one 128-byte line of a row per tile

// gevm6 _c128 and _c256 (why: gevm6_cluster_slabs.cuh): C column items per tile (items of
// item_bytes each, a row holding `items`), S slabs of `slab` rows. The tile covers `row_bytes` of
// a row (at most 32 items) or the whole row if shorter; slabs double, up to 8, while each slab
// keeps a row for every row thread (256 / C) and the grid has room: for _c128 while tiles × slabs
// are short of one block per SM (the last doubling may pass it), for _c256 while the doubled grid
// stays within one block per SM (its 32 loads in flight need up to 216 registers a thread).
struct Narrow {
  int C, S, slab;
};
inline Narrow line_tiles(long long M, int items, int item_bytes, int row_bytes, long long sms, bool within_one_per_sm) {
  const int C = matvec::pow2_at_least(items, std::min(32, row_bytes / item_bytes));
  const long long tiles = (items + C - 1) / C;
  auto rows_ok = [&](int slabs) { return (M + slabs - 1) / slabs >= kThreads / C; };
  auto room = [&](int slabs) { return within_one_per_sm ? tiles * 2 * slabs <= sms : tiles * slabs < sms; };
  int S = 1;
  while (S < kMaxSlabs && room(S) && rows_ok(2 * S)) S *= 2;
  return {C, S, static_cast<int>((M + S - 1) / S)};
}
inline Narrow narrow(long long M, int items, int item_bytes, long long sms) {
  return line_tiles(M, items, item_bytes, kNarrowRowBytes, sms, false);
}

constexpr int kDeepRowBytes = 256;  // _c256: two lines of a row per tile
constexpr int kDeepLoads = 32;      // _c256's loads in flight per thread
inline Narrow deep(long long M, int items, int item_bytes, long long sms) {
  return line_tiles(M, items, item_bytes, kDeepRowBytes, sms, true);
}
// Whether the deep plan pays: each thread's first round (32 loads) is all wait, so a slab must
// hold at least kDeepMinRounds whole rounds of 32 rows per row thread (256 / C of them). Measured
// at three points (docs/gemv.md, "gevm: y = x·A"): 4 rounds (float 4096²) and 8 (double 4096²)
// beat _c128, 1.2 (float 2500 × 2000) lost to it clearly; the threshold sits between them.
constexpr int kDeepMinRounds = 2;
inline bool deep_pays(const Narrow& d) {
  return static_cast<long long>(d.slab) >= static_cast<long long>(kDeepMinRounds) * kDeepLoads * (kThreads / d.C);
}

}  // namespace kl::gevm_plan
