// scan3_blelloch — beyond the documents (GPU Gems 3, chapter 39, section 39.2.2, "A Work-Efficient
// Parallel Scan", after Blelloch 1990).
//
// Lesson: scan2 with a work-efficient block scan. The tile (1024 elements, 2 per thread of 512) is
// seen as a balanced binary tree: the up-sweep sums pairs, pairs of pairs, ... up to the root
// (n - 1 additions, the reduction of reduce3), the root is replaced by 0, and the down-sweep walks
// back down, each node handing its value to its left child and its value plus the left child's
// up-sweep sum to its right child (n - 1 more additions). The leaves then hold the exclusive
// prefixes: 2(n - 1) additions in 2·log2(n) steps instead of scan1's n·log2(n). Both sweeps
// address the tree with a stride that doubles (then halves) every level, so at stride 2^s the
// threads of a warp hit shared memory 2^(s+1) words apart: 2-, 4-, ... up to 32-way bank conflicts
// (scan4 removes them). The rest is scan2's (the tiles' totals scanned the same way, then added).
//
// Changed from GPU Gems: Example 39-2's kernel, with each thread loading elements thid and thid +
// 512 (the chapter's bank-conflict-free load order, coalesced) rather than 2·thid and 2·thid + 1;
// zeros past n; the tile's total is the up-sweep's root, kept before it is cleared; the inclusive
// form adds each element to its exclusive prefix.
#pragma once

#include "handwritten/scan/scan2_scan_then_propagate.cuh"

namespace kl::scan3 {

constexpr unsigned kThreads = 512;
constexpr std::size_t kTile = 2 * kThreads;

// Index i of the tree in shared memory: itself (scan3) or moved past one padding element per 128
// bytes of elements (scan4: GPU Gems' CONFLICT_FREE_OFFSET, one element per 32 4-byte words; 16
// for 8-byte elements, whose warps are served 16 lanes at a time).
template <bool kPadded, class T>
__device__ __forceinline__ unsigned slot(unsigned i) {
  constexpr unsigned kLog = sizeof(T) == 8 ? 4 : 5;
  return kPadded ? i + (i >> kLog) : i;
}
template <bool kPadded, class T>
constexpr unsigned kSlots = kPadded ? kTile + (kTile >> (sizeof(T) == 8 ? 4 : 5)) : kTile;

template <bool kPadded, class T>
__global__ void __launch_bounds__(kThreads) blelloch(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                                   ScanForm form, T* __restrict__ totals) {
  __shared__ T temp[kSlots<kPadded, T>];
  const unsigned thid = threadIdx.x;
  const std::size_t begin = scan_plan::tile_begin(blockIdx.x, kTile);
  const std::size_t valid = scan_plan::tile_valid(n, blockIdx.x, kTile);
  const unsigned a = thid, b = thid + kThreads;
  const T xa = a < valid ? in[begin + a] : T(0);
  const T xb = b < valid ? in[begin + b] : T(0);
  temp[slot<kPadded, T>(a)] = xa;
  temp[slot<kPadded, T>(b)] = xb;
  unsigned offset = 1;
  for (unsigned d = kTile >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (thid < d) {
      const unsigned ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      temp[slot<kPadded, T>(bi)] += temp[slot<kPadded, T>(ai)];
    }
    offset *= 2;
  }
  __syncthreads();
  if (thid == 0) {
    if (totals) totals[blockIdx.x] = temp[slot<kPadded, T>(kTile - 1)];
    temp[slot<kPadded, T>(kTile - 1)] = T(0);
  }
  for (unsigned d = 1; d < kTile; d *= 2) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      const unsigned ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      const T t = temp[slot<kPadded, T>(ai)];
      temp[slot<kPadded, T>(ai)] = temp[slot<kPadded, T>(bi)];
      temp[slot<kPadded, T>(bi)] += t;
    }
  }
  __syncthreads();
  const bool incl = form == ScanForm::inclusive;
  if (a < valid) out[begin + a] = incl ? temp[slot<kPadded, T>(a)] + xa : temp[slot<kPadded, T>(a)];
  if (b < valid) out[begin + b] = incl ? temp[slot<kPadded, T>(b)] + xb : temp[slot<kPadded, T>(b)];
}

// scan2's driver with this tile scan.
template <bool kPadded, class T>
void launch(const ScanArgs<T>& a, cudaStream_t s) {
  scan_detail::run_multilevel(a, kTile, [](const T* src, T* dst, std::size_t len, ScanForm form, T* totals, cudaStream_t st) {
    blelloch<kPadded, T><<<grid_blocks(scan_plan::tile_count(len, kTile)), kThreads, 0, st>>>(src, dst, len, form, totals);
  }, s);
}

template <bool kPadded, class T>
ScanVariant<T> blelloch_variant(VariantInfo info) {
  return {
      .info = info,
      .launch = launch<kPadded, T>,
      .workspace_bytes = [](ScanShape sh) { return scan_detail::multilevel_workspace_bytes<T>(sh.n, kTile); },
      .rounding_depth = [](ScanShape sh) {
        return scan_plan::multilevel_depth(sh.n, kTile, scan_plan::blelloch_depths(kTile), sh.form == ScanForm::inclusive);
      },
  };
}

template <class T>
ScanVariant<T> variant() {
  return blelloch_variant<false, T>({"scan3_blelloch", "beyond the documents: GPU Gems 3 ch. 39.2.2 (Blelloch)",
                                     "work-efficient up-sweep and down-sweep per tile of 1024: 2n additions, bank conflicts"});
}

}  // namespace kl::scan3
