// scan2_scan_then_propagate — beyond the documents (GPU Gems 3, chapter 39, section 39.2.4, "Arrays
// of Arbitrary Size").
//
// Lesson: scan1's block, but any n. Every block scans its own tile of 1024 elements (scan1's
// kernel) and writes the tile's total; the totals are a smaller array, scanned the same way
// (recursively, until one tile is left); then every element of tile b >= 1 gets the scanned total
// of tiles 0 .. b-1 added (add_tile_offsets). Three kernels and a recursion instead of one block,
// and the cost shows in the memory traffic: the input is read once and the output written twice
// and read once, 4n elements moved for the 2n the job needs, so at best half of the copy
// bandwidth. The passes over the totals are 1/1024 of that and negligible.
//
// Changed from GPU Gems: the chapter's blocks run Blelloch's scan (here scan3 onward) and the
// arrays are padded to whole blocks; here the tiles are scan1's and the last one is partial.
// Indices are 64-bit; the scanned totals are added inclusive-of-the-previous-tile, so the
// exclusive form needs no separate pass.
#pragma once

#include "handwritten/scan/scan1_hillis_steele.cuh"

namespace kl::scan2 {

using scan1::kThreads;
constexpr std::size_t kTile = kThreads;

template <class T>
void launch(const ScanArgs<T>& a, cudaStream_t s) {
  scan_detail::run_multilevel(a, kTile, [](const T* src, T* dst, std::size_t len, ScanForm form, T* totals, cudaStream_t st) {
    scan1::hillis_steele<T><<<grid_blocks(scan_plan::tile_count(len, kTile)), kThreads, 0, st>>>(src, dst, len, form, totals);
  }, s);
}

template <class T>
ScanVariant<T> variant() {
  return {
      .info = {"scan2_scan_then_propagate", "beyond the documents: GPU Gems 3 ch. 39.2.4 (arrays of arbitrary size)",
               "scan1 per tile of 1024, the tiles' totals scanned the same way, then added back: 4n memory traffic"},
      .launch = launch<T>,
      .workspace_bytes = [](ScanShape sh) { return scan_detail::multilevel_workspace_bytes<T>(sh.n, kTile); },
      .rounding_depth = [](ScanShape sh) {
        return scan_plan::multilevel_depth(sh.n, kTile, scan_plan::hillis_steele_depths(kTile),
                                           sh.form == ScanForm::inclusive);
      },
  };
}

}  // namespace kl::scan2
