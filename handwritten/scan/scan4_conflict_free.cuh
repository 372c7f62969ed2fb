// scan4_conflict_free — beyond the documents (GPU Gems 3, chapter 39, section 39.2.3, "Avoiding Bank
// Conflicts").
//
// Lesson: scan3's tree, stored with one padding element after every 128 bytes of elements
// (CONFLICT_FREE_OFFSET(i) = i >> LOG_NUM_BANKS). At stride 2^s the up-sweep's and down-sweep's
// threads address words 2^(s+1) apart, all in a few banks; the padding shifts each run of 32 words
// by one bank, so the same accesses spread over the banks and most of the conflicts go (Nsight
// Compute's shared-memory bank conflicts, scripts/profile.py's "smem confl", show how many). The
// arithmetic, the order of the additions and so the results are scan3's exactly.
//
// Changed from GPU Gems: the chapter's macro, ((n) >> NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS)),
// parses as n >> (NUM_BANKS + n) >> ...; the intended i >> LOG_NUM_BANKS is used. 8-byte elements
// are padded every 16 elements (a warp's 8-byte accesses are served 16 lanes at a time).
#pragma once

#include "handwritten/scan/scan3_blelloch.cuh"

namespace kl::scan4 {

template <class T>
ScanVariant<T> variant() {
  return scan3::blelloch_variant<true, T>({"scan4_conflict_free", "beyond the documents: GPU Gems 3 ch. 39.2.3",
                                           "scan3 with one padding element per 128 bytes in shared memory: most bank conflicts gone"});
}

}  // namespace kl::scan4
