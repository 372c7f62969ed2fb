// allreduce12_two_shot_ll128_pdl — beyond the documents: the two-shot (reduce-scatter, then
// all-gather) in LL128 lines, launched early as step 11.
//
// Lesson: with G GPUs the one-shot pushes G-1 copies of the whole message out of every GPU, so on
// four GPUs step 11's time at a few hundred KiB is already the link's. The two-shot sends each
// byte out twice, but only 2(G-1)/G of the message: rank r pushes chunk j of its input to rank j
// (reduce-scatter), sums chunk r from every rank in rank order, and pushes that sum to every peer
// (all-gather). Each push is step 10's 128-byte line with the call's epoch in its last 8 bytes, so
// neither crossing needs a fence, a flag word or a barrier: the all-gather's lines are waited for
// line by line like the reduce-scatter's. One kernel, three warp-uniform passes:
//   1. push: every line of every peer's chunk into that peer's reduce-scatter lines (no waits);
//   2. reduce: every line of this rank's chunk, waited for from every peer, summed in rank order,
//      stored, and pushed into every peer's all-gather lines;
//   3. gather: every line of every peer's chunk, waited for in this rank's all-gather lines.
// Pass 2 waits only for pass 1, which never waits, and pass 3 only for pass 2: with every block
// resident no wait can close a cycle. Every rank stores the sum rank r made for chunk r, so every
// GPU ends with the same bits.
//
// Lines: step 10's region (every line there is 128 bytes with its flag in its last 8, so a stale
// line of either step carries an older epoch where a reader looks), epoch and halves; in each
// slot the reduce-scatter lines fill the first half and the all-gather lines the second, so a
// chunk is at most half a slot's lines: a message of G × kLine128MaxBytes / 2 per GPU.
//
// Workspace: none. Profiler: nvlink write bytes 2(G-1)/G · n·sizeof(T)·128/120 per GPU and no
// nvlink reads; one kernel per GPU.
#pragma once

#include "handwritten/allreduce/allreduce10_one_shot_ll128.cuh"
#include "handwritten/allreduce/allreduce_plan.hpp"

namespace kl::allreduce12 {

using namespace kl::allreduce;
using allreduce10::kDataWords;
using allreduce10::kLanesPerLine;
using allreduce10::kLinesPerWarp;
using allreduce8::Lines;

inline constexpr int kThreads = allreduce10::kDefaultThreads;
inline constexpr std::size_t kHalfSlotLines = allreduce10::kSlotLines / 2;

// Lines of each rank's chunk: the message's lines split G ways, the last chunk shorter (or empty).
__host__ __device__ constexpr std::size_t chunk_lines(std::size_t bytes, int gpus) {
  return (allreduce10::lines_for(bytes) + static_cast<std::size_t>(gpus) - 1) / static_cast<std::size_t>(gpus);
}

// Line `i` of the reduce-scatter (ag = false) or all-gather (ag = true) lines that rank `from`
// writes on rank `to`, in half `half`.
__device__ __forceinline__ unsigned char* line_of(const Lines& l, int gpus, int to, int from, int half, bool ag,
                                                  std::size_t i) {
  return allreduce10::line128_at(l, gpus, to, from, half, ag ? kHalfSlotLines + i : i);
}

template <class T, bool kPdl>
__global__ void __launch_bounds__(kThreads, allreduce10::kBlocksPerSm<kThreads>) two_shot_ll128(RankView<T> v,
                                                                                                 Lines l) {
  using allreduce10::halves;
  using allreduce10::word_of;
  allreduce10::pdl_begin<kPdl>();
  const std::uint32_t epoch = allreduce8::this_epoch(l);
  const std::uint64_t flag = epoch | static_cast<std::uint64_t>(epoch) << 32;
  const int half = static_cast<int>(epoch & 1);
  const std::size_t words = ceil_div(v.n * sizeof(T), std::size_t{8});
  const std::size_t lines = allreduce10::lines_for(v.n * sizeof(T));
  const std::size_t chunk = chunk_lines(v.n * sizeof(T), v.gpus);
  const int lane = threadIdx.x % 32, q = lane % kLanesPerLine;
  const bool flag_lane = q == kLanesPerLine - 1;
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x / 32 * kLinesPerWarp;
  const T* mine = v.in[v.rank];
  T* out = v.out[v.rank];
  const int peers = v.gpus - 1;
  // Lines of chunk c (0 past the message's end).
  auto lines_of_chunk = [&](int c) {
    const std::size_t lo = static_cast<std::size_t>(c) * chunk;
    return lo >= lines ? std::size_t{0} : (lines - lo < chunk ? lines - lo : chunk);
  };
  // Peer k (0 .. G-2) of this rank: the ranks other than this one, in order.
  auto peer = [&](std::size_t k) { return static_cast<int>(k) < v.rank ? static_cast<int>(k) : static_cast<int>(k) + 1; };
  // 1. Push: line i of chunk j into rank j's reduce-scatter lines for this rank, for every peer j.
  for (std::size_t base = warp * kLinesPerWarp; base < peers * chunk; base += stride) {
    const std::size_t t = base + lane / kLanesPerLine;
    const int j = peer(t / chunk);
    const std::size_t i = t % chunk;
    if (t < peers * chunk && i < lines_of_chunk(j)) {
      const std::size_t wa = (static_cast<std::size_t>(j) * chunk + i) * kDataWords + 2 * q;
      const std::uint64_t a = word_of(mine, v.n, wa);
      const std::uint64_t b = flag_lane ? flag : word_of(mine, v.n, wa + 1);
      allreduce10::store16(line_of(l, v.gpus, j, v.rank, half, false, i) + 16 * q, a, b);
    }
  }
  // 2. Reduce this rank's chunk in rank order; store it and push it to every peer.
  const std::size_t own = lines_of_chunk(v.rank);
  for (std::size_t base = warp * kLinesPerWarp; base < own; base += stride) {
    const std::size_t i = base + lane / kLanesPerLine;
    const bool active = i < own;
    const std::size_t wa = (static_cast<std::size_t>(v.rank) * chunk + i) * kDataWords + 2 * q;
    allreduce8::LineSum<T> sa, sb;
    for (int j = 0; j < v.gpus; ++j) {
      std::uint64_t a = 0, b = 0;
      if (j == v.rank) {
        if (active) {
          a = word_of(mine, v.n, wa);
          b = word_of(mine, v.n, wa + 1);
        }
      } else {
        allreduce10::wait_lines(line_of(l, v.gpus, v.rank, j, half, false, i) + 16 * q, active, flag_lane, flag, a, b,
                                v.rank, j);
      }
      if (j == 0) sa.first(halves(a)), sb.first(halves(b));
      else sa.add(halves(a)), sb.add(halves(b));
    }
    if (active) {
      if (wa < words) allreduce10::store_word(out, v.n, wa, sa);
      if (!flag_lane && wa + 1 < words) allreduce10::store_word(out, v.n, wa + 1, sb);
      // The sum as it was stored: its words, packed back (the flag lane's second word is the flag).
      std::uint64_t a = 0, b = 0;
      memcpy(&a, sa.acc, 8);
      memcpy(&b, sb.acc, 8);
      if (flag_lane) b = flag;
      for (int k = 0; k < peers; ++k) allreduce10::store16(line_of(l, v.gpus, peer(k), v.rank, half, true, i) + 16 * q, a, b);
    }
  }
  // 3. Gather: every peer's summed chunk from this rank's all-gather lines.
  for (std::size_t base = warp * kLinesPerWarp; base < peers * chunk; base += stride) {
    const std::size_t t = base + lane / kLanesPerLine;
    const int j = peer(t / chunk);
    const std::size_t i = t % chunk;
    const bool active = t < peers * chunk && i < lines_of_chunk(j);
    std::uint64_t a = 0, b = 0;
    allreduce10::wait_lines(line_of(l, v.gpus, v.rank, j, half, true, i) + 16 * q, active, flag_lane, flag, a, b,
                            v.rank, j);
    if (active) {
      const std::size_t wa = (static_cast<std::size_t>(j) * chunk + i) * kDataWords + 2 * q;
      allreduce8::LineSum<T> sa, sb;
      sa.first(halves(a));
      sb.first(halves(b));
      if (wa < words) allreduce10::store_word(out, v.n, wa, sa);
      if (!flag_lane && wa + 1 < words) allreduce10::store_word(out, v.n, wa + 1, sb);
    }
  }
  allreduce8::finish_epoch(l, epoch);
}

// A chunk fills at most half a slot's lines.
static_assert(kHalfSlotLines == allreduce_plan::kHalfSlotLines && kDataWords * 8 == allreduce_plan::kLine128Bytes,
              "allreduce_plan.hpp says what the lines hold");
inline bool fits(AllreduceSize s, std::size_t elem_bytes) {
  return allreduce_plan::two_shot_ll128_fits(s.n * elem_bytes, s.gpus);
}
inline constexpr const char* kTooLarge =
    "over G x 0.9375 MiB per GPU: a chunk of the group's LL128 lines holds 0.9375 MiB of message (the bandwidth "
    "steps take larger ones)";
static_assert(kHalfSlotLines * kDataWords * 8 == std::size_t{15} << 16, "the message above names the size");

// Blocks: one line per 8 threads over the largest pass ((G-1) chunks), at most
// kBlocksPerSm per SM of the smallest GPU (every block must be resident).
inline unsigned grid_for(const GpuGroup& g, std::size_t bytes) {
  const std::size_t per_block = kThreads / kLanesPerLine;
  std::size_t blocks = ceil_div(static_cast<std::size_t>(g.gpus - 1) * chunk_lines(bytes, g.gpus), per_block);
  const std::size_t cap = static_cast<std::size_t>(smallest_sms(g)) * allreduce10::kBlocksPerSm<kThreads>;
  blocks = blocks < 1 ? 1 : (blocks < cap ? blocks : cap);
  return static_cast<unsigned>(blocks);
}

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  if (!fits({a.n, g.gpus, g.native_peer_atomics}, sizeof(T)))
    throw std::invalid_argument(std::string("allreduce12_two_shot_ll128_pdl: ") + kTooLarge);
  allreduce10::require_nvlink(g, "allreduce12_two_shot_ll128_pdl");
  const unsigned grid = grid_for(g, a.n * sizeof(T));
  Lines l = allreduce8::lines_of(g, 1);
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    l.epoch = g.epoch[v.rank];
    allreduce10::launch_lines<two_shot_ll128<T, true>, true>(grid, kThreads, rank_stream, v, l);
  });
}

template <class T>
void prepare() {
  require_resident(two_shot_ll128<T, true>, "two_shot_ll128", kThreads, allreduce10::kBlocksPerSm<kThreads>);
  pdl::programmatic_here<two_shot_ll128<T, true>>();
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce12_two_shot_ll128_pdl", "beyond",
               "reduce-scatter and all-gather in LL128 lines, one kernel, launched early: 2(G-1)/G of the message "
               "crosses each link twice instead of G-1 copies once"},
      .launch = launch<T>,
      .unsupported = [](AllreduceSize s) -> const char* {
        return !s.nvlink ? allreduce10::kNeedsNvlink : fits(s, sizeof(T)) ? nullptr : kTooLarge;
      },
      .prepare = prepare<T>,
  };
}

}  // namespace kl::allreduce12
