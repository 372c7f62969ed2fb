// allreduce10_one_shot_ll128 — beyond the documents: the LL one-shot with 128-byte lines (NCCL's
// LL128 protocol), so the flag costs 8 bytes in 128 instead of 8 in 16.
//
// Lesson: step 8 sends twice its message over NVLink, because every 8 bytes of data travel with 8
// bytes of epoch: a 16-byte store is the largest unit a reader is sure to see whole. Once the time
// of a mid-sized message is the link's, that doubling is the cost. NVLink on these GPUs delivers
// a warp's store of one aligned 128-byte line as one unit, and a warp's load of one line reads it
// as one unit: so 8 lanes store a line together, 15 of its 8-byte words data and the last the
// call's epoch (twice), and a reader whose flag lane sees the epoch has the other 7 lanes' data
// too. The link carries 128/120 of the message instead of twice it.
//
// That unit is a property of the hardware NCCL relies on for its LL128 protocol (which it enables
// only on NVLink-connected GPUs it knows), not a guarantee of the PTX memory model, which makes no
// access wider than 16 bytes single-copy atomic: so the step needs native peer atomics between
// every pair (NVLink), and says so on a PCIe group. Every other choice is step 8's: lines
// registered once with the group (their own region: an LL reader would take an LL128 line's data
// for epochs), the epoch counted on each GPU and shared with step 8, two halves of the lines
// alternating by its parity (the argument there holds for any mix of the two steps' calls), no
// fence, no flag word, no barrier, one launch.
//
// The lines must be stored and loaded by whole warps, each 8 lanes one line, in one instruction:
// every loop here is warp-uniform and __any_sync re-reads the whole warp's lines until each flag
// lane sees the epoch.
//
// kPdl (step 11, allreduce11_one_shot_ll128_pdl.cuh): the kernel is launched programmatically
// dependent on the kernel before it in its stream, and lets the next one be scheduled at once.
//
// Workspace: none. Profiler: nvlink write bytes (G-1)·n·sizeof(T)·128/120 per GPU and no nvlink
// reads; one kernel per GPU.
#pragma once

#include "common/pdl.cuh"
#include "handwritten/allreduce/allreduce8_one_shot_ll.cuh"

#include <cstdint>
#include <cstring>

namespace kl::allreduce10 {

using namespace kl::allreduce;
using allreduce8::Lines;

inline constexpr int kLineBytes = 128;
inline constexpr int kLanesPerLine = 8;            // 16 bytes each
inline constexpr int kDataWords = 15;              // 8-byte words of data per line
inline constexpr int kLinesPerWarp = 32 / kLanesPerLine;
// Threads per block: a block takes kThreads / 8 lines a round. Every block must be resident (it
// waits for its peers'): 1024 / kThreads blocks per SM at most.
inline constexpr int kDefaultThreads = 128;
template <int kThreads>
inline constexpr int kBlocksPerSm = 1024 / kThreads;

// Lines of a slot, and the message one slot holds.
inline constexpr std::size_t kSlotLines = kLineSlotBytes / kLineBytes;
inline constexpr std::size_t kMaxBytes = kSlotLines * kDataWords * 8;
static_assert(kMaxBytes == kLine128MaxBytes, "common/gpu_group.hpp says what a slot holds");

__host__ __device__ constexpr std::size_t lines_for(std::size_t bytes) {
  return (bytes + kDataWords * 8 - 1) / (kDataWords * 8);
}

// Line `line` of the slot where rank `from`'s message sits on rank `to`, half `half`.
__device__ __forceinline__ unsigned char* line128_at(const Lines& l, int gpus, int to, int from, int half,
                                                  std::size_t line) {
  const std::size_t slot = static_cast<std::size_t>(half) * (gpus - 1) + slot_of(from, to);
  return l.base[to] + slot * kLineSlotBytes + line * kLineBytes;
}

// 8-byte word `w` of a message of n elements (0 past the end): two 4-byte elements or one 8-byte.
template <class T>
__device__ __forceinline__ std::uint64_t word_of(const T* in, std::size_t n, std::size_t w) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a word holds 4- or 8-byte elements");
  if constexpr (sizeof(T) == 8) {
    std::uint64_t x = 0;
    if (w < n) memcpy(&x, in + w, 8);
    return x;
  } else {
    std::uint32_t lo = 0, hi = 0;
    if (2 * w < n) memcpy(&lo, in + 2 * w, 4);
    if (2 * w + 1 < n) memcpy(&hi, in + 2 * w + 1, 4);
    return lo | static_cast<std::uint64_t>(hi) << 32;
  }
}

template <class T>
__device__ __forceinline__ void store_word(T* out, std::size_t n, std::size_t w, const allreduce8::LineSum<T>& s) {
  if constexpr (sizeof(T) == 8) {
    if (w < n) out[w] = s.acc[0];
  } else {
    if (2 * w < n) out[2 * w] = s.acc[0];
    if (2 * w + 1 < n) out[2 * w + 1] = s.acc[1];
  }
}

__device__ __forceinline__ uint2 halves(std::uint64_t x) {
  return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x >> 32)};
}

__device__ __forceinline__ void store16(unsigned char* p, std::uint64_t a, std::uint64_t b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

__device__ __forceinline__ void load16(const unsigned char* p, std::uint64_t& a, std::uint64_t& b) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

// The whole warp loads its lines (lane q of a line: bytes 16q..16q+15) until every flag lane
// (q = 7) of an active line sees `flag`. Lanes of inactive lines take part and load nothing.
__device__ __forceinline__ void wait_lines(const unsigned char* p, bool active, bool flag_lane, std::uint64_t flag,
                                           std::uint64_t& a, std::uint64_t& b, int self, int from) {
  const std::uint64_t t0 = global_ns();
  for (unsigned spins = 0;; ++spins) {
    if (active) load16(p, a, b);
    const bool waiting = active && flag_lane && b != flag;
    if (!__any_sync(0xffffffffu, waiting)) return;
    if (spins % 1024 == 1023 && global_ns() - t0 > kWaitLimitNs) {
      if (waiting)
        printf("allreduce10: rank %d waited 60 s for rank %d's line (epoch %u): its kernel never ran\n", self, from,
               static_cast<unsigned>(flag));
      __trap();
    }
  }
}

// First thing in a kernel launched with PDL (step 11; common/pdl.cuh): the next call's kernel may
// be scheduled now, and this one waits until the kernel before it has finished.
template <bool kPdl>
__device__ __forceinline__ void pdl_begin() {
  if constexpr (kPdl) {
    pdl::allow_dependent_launch();
    pdl::wait_for_primary_grid();
  }
}

template <class T, int kThreads, bool kPdl>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm<kThreads>) one_shot_ll128(RankView<T> v, Lines l) {
  pdl_begin<kPdl>();
  const std::uint32_t epoch = allreduce8::this_epoch(l);
  const std::uint64_t flag = epoch | static_cast<std::uint64_t>(epoch) << 32;
  const int half = static_cast<int>(epoch & 1);
  const std::size_t words = ceil_div(v.n * sizeof(T), std::size_t{8});
  const std::size_t lines = lines_for(v.n * sizeof(T));
  const int lane = threadIdx.x % 32, q = lane % kLanesPerLine;
  const bool flag_lane = q == kLanesPerLine - 1;
  // Warp-uniform walk: warp w takes lines w·4 + (lane / 8), then 4 · (warps in the grid) further.
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x / 32 * kLinesPerWarp;
  const T* mine = v.in[v.rank];
  // This lane's words of line `line`: 2q and 2q + 1, or 14 and the flag on the flag lane.
  auto word_a = [&](std::size_t line) { return line * kDataWords + 2 * q; };
  // Push: every line into every peer's slot for this rank, 8 lanes a line, one store each.
  for (std::size_t base = warp * kLinesPerWarp; base < lines; base += stride) {
    const std::size_t line = base + lane / kLanesPerLine;
    if (line < lines) {
      const std::uint64_t a = word_of(mine, v.n, word_a(line));
      const std::uint64_t b = flag_lane ? flag : word_of(mine, v.n, word_a(line) + 1);
      for (int j = 0; j < v.gpus; ++j)
        if (j != v.rank) store16(line128_at(l, v.gpus, j, v.rank, half, line) + 16 * q, a, b);
    }
  }
  // Gather: the same lines from every peer, summed in rank order.
  for (std::size_t base = warp * kLinesPerWarp; base < lines; base += stride) {
    const std::size_t line = base + lane / kLanesPerLine;
    const bool active = line < lines;
    const std::size_t wa = word_a(line);
    allreduce8::LineSum<T> sa, sb;
    for (int j = 0; j < v.gpus; ++j) {
      std::uint64_t a = 0, b = 0;
      if (j == v.rank) {
        if (active) {
          a = word_of(mine, v.n, wa);
          b = word_of(mine, v.n, wa + 1);
        }
      } else {
        wait_lines(line128_at(l, v.gpus, v.rank, j, half, line) + 16 * q, active, flag_lane, flag, a, b, v.rank, j);
      }
      if (j == 0) sa.first(halves(a)), sb.first(halves(b));
      else sa.add(halves(a)), sb.add(halves(b));
    }
    if (active) {
      T* out = v.out[v.rank];
      if (wa < words) store_word(out, v.n, wa, sa);
      if (!flag_lane && wa + 1 < words) store_word(out, v.n, wa + 1, sb);
    }
  }
  allreduce8::finish_epoch(l, epoch);
}

// Blocks for a message of `bytes`: one line per 8 threads, at most kBlocksPerSm per SM of the
// smallest GPU (every block must be resident: a block waits for its peers' blocks).
template <int kThreads>
unsigned grid_for(const GpuGroup& g, std::size_t bytes) {
  const std::size_t per_block = kThreads / kLanesPerLine;
  std::size_t blocks = ceil_div(lines_for(bytes), per_block);
  const std::size_t cap = static_cast<std::size_t>(smallest_sms(g)) * kBlocksPerSm<kThreads>;
  blocks = blocks < 1 ? 1 : (blocks < cap ? blocks : cap);
  return static_cast<unsigned>(blocks);
}

inline bool fits(AllreduceSize s, std::size_t elem_bytes) { return s.n * elem_bytes <= kMaxBytes; }
inline constexpr const char* kTooLarge =
    "over 1.875 MiB per GPU: the group's LL128 lines hold 1.875 MiB of message (the bandwidth steps take larger "
    "ones)";
static_assert(kMaxBytes == std::size_t{15} << 17, "the message above names the size");

// Launches kKernel(args...) on `stream`, programmatically dependent on the kernel before it where
// kPdl asks and the GPU and image allow (common/pdl.cuh), in plain stream order elsewhere.
template <auto kKernel, bool kPdl, class... Args>
void launch_lines(unsigned grid, int threads, cudaStream_t stream, Args... args) {
  pdl::launch<kKernel>(kPdl, dim3(grid), dim3(static_cast<unsigned>(threads)), 0, stream, args...);
}

// PCIe may split a 128-byte store: a reader could see the flag before the data beside it. The
// runner skips such groups (unsupported, from AllreduceSize::nvlink); a direct caller gets this.
inline constexpr const char* kNeedsNvlink =
    "needs NVLink between every pair of GPUs (native peer atomics; over PCIe a 128-byte store may arrive in pieces)";
inline void require_nvlink(const GpuGroup& g, const char* variant) {
  if (!g.native_peer_atomics) throw std::invalid_argument(std::string(variant) + ": " + kNeedsNvlink);
}

template <class T, int kThreads = kDefaultThreads, bool kPdl = false>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  if (!fits({a.n, g.gpus, g.native_peer_atomics}, sizeof(T)))
    throw std::invalid_argument(std::string("allreduce10_one_shot_ll128: ") + kTooLarge);
  require_nvlink(g, "allreduce10_one_shot_ll128");
  const unsigned grid = grid_for<kThreads>(g, a.n * sizeof(T));
  Lines l = allreduce8::lines_of(g, 1);
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    l.epoch = g.epoch[v.rank];
    launch_lines<one_shot_ll128<T, kThreads, kPdl>, kPdl>(grid, kThreads, rank_stream, v, l);
  });
}

template <class T, int kThreads = kDefaultThreads, bool kPdl = false>
void prepare() {
  require_resident(one_shot_ll128<T, kThreads, kPdl>, "one_shot_ll128", kThreads, kBlocksPerSm<kThreads>);
  if (kPdl) pdl::programmatic_here<one_shot_ll128<T, kThreads, kPdl>>();
}

template <class T, int kThreads = kDefaultThreads, bool kPdl = false>
AllreduceVariant<T> variant(
    const char* name = "allreduce10_one_shot_ll128",
    const char* what = "step 8 with 128-byte lines stored by 8 lanes at once: 120 bytes of data beside each epoch, so "
                       "the link carries 1.07x the message instead of 2x") {
  return {
      .info = {name, "beyond", what},
      .launch = launch<T, kThreads, kPdl>,
      .unsupported = [](AllreduceSize s) -> const char* {
        return !s.nvlink ? kNeedsNvlink : fits(s, sizeof(T)) ? nullptr : kTooLarge;
      },
      .prepare = prepare<T, kThreads, kPdl>,
  };
}

}  // namespace kl::allreduce10
