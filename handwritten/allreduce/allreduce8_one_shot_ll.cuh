// allreduce8_one_shot_ll — beyond the documents: the push one-shot with its flags inside the data
// (NCCL's LL protocol), so a small all-reduce costs one launch and one NVLink crossing.
//
// Lesson: after step 7 a small all-reduce still pays, per call, a system-scope fence and a
// separate flag store behind the data, a wait for that flag, and a host-drawn generation that a
// captured graph would replay unchanged. Carry the flag with the data instead: every 16-byte
// store into a peer is a "line" {data word, epoch, data word, epoch}. The GPU writes each 8-byte
// half of it as one unit, so a reader that sees the epoch in both halves has the data beside it:
// no fence, no flag word, no barrier. Each thread pushes its lines into every peer's slot, then
// spins on its own slots' lines until each carries this call's epoch, sums in rank order and
// stores. The price is bandwidth: half of every line is flag, so a peer receives 2·n·sizeof(T)
// bytes, and a slot of lines holds at most kLineMaxBytes of message (common/gpu_group.hpp): above
// that the variant is skipped and the bandwidth steps take over (allreduce_auto).
//
// Buffers registered once: the lines live in the group (allocated, mapped to the peers and
// zeroed when it is made), not in the per-call workspace, whose contents are undefined on entry:
// a line can only hold 0 or an epoch some peer wrote.
//
// The epoch is counted on each GPU (GpuGroup::epoch): every block reads it at its start, and the
// last block to finish advances it. Every rank runs every operation, so every rank's count is the
// same for the same call, and a CUDA graph of calls replays with fresh epochs (the host's
// generation of steps 3-7 is baked into a captured launch).
//
// Reuse of the lines, as step 7's staging: calls alternate between two halves by the epoch's
// parity. A peer writes half p again only in call e+2, which starts after its call e+1 finished,
// which needed this rank's lines of call e+1, pushed by this rank's call e+1, which began after
// its call e (the last reader of half p) had finished. A stale line in half p carries epoch e-2
// or older (or 0): never this call's. Limit: the epoch is 32 bits, so a line left unwritten for
// 2^32 calls (a large message's far lines, then only small ones for that long) could carry this
// call's epoch again; a group that lives that long would have to zero its lines, which this one
// does not.
//
// Workspace: none. Profiler: nvlink write bytes 2·(G-1)·n·sizeof(T) per GPU and no nvlink reads;
// one kernel per GPU.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

#include <cstdint>
#include <cstring>

namespace kl::allreduce8 {

using namespace kl::allreduce;

// Small calls want many threads each doing little (the time is latency, not bytes): one line per
// thread, in small blocks so that a mid-sized message spreads over every SM (each SM pushes its
// share over NVLink), at most kLineBlocksPerSm per SM: every block of a kernel that waits for its
// peers must be resident.
inline constexpr int kLineThreads = 128;
inline constexpr int kLineBlocksPerSm = 8;

struct Lines {
  unsigned char* base[kMaxGpus];  // each rank's lines
  std::uint32_t* epoch;           // this rank's counter
};

// Where rank `from`'s line `line` sits on rank `to`, in half `half`.
__device__ __forceinline__ uint4* line_at(const Lines& l, int gpus, int to, int from, int half, std::size_t line) {
  const std::size_t slot = static_cast<std::size_t>(half) * (gpus - 1) + slot_of(from, to);
  return reinterpret_cast<uint4*>(l.base[to] + slot * kLineSlotBytes) + line;
}

__device__ __forceinline__ void store_line(uint4* p, std::uint32_t w0, std::uint32_t w1, std::uint32_t epoch) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w0), "r"(epoch), "r"(w1), "r"(epoch)
               : "memory");
}

__device__ __forceinline__ uint4 load_line(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

// Line `line` of a message of `words` 32-bit words: words 2·line and 2·line + 1 (0 past the end).
__device__ __forceinline__ void words_of(const std::uint32_t* in, std::size_t words, std::size_t line,
                                         std::uint32_t& w0, std::uint32_t& w1) {
  const std::size_t i = 2 * line;
  w0 = in[i];
  w1 = i + 1 < words ? in[i + 1] : 0u;
}

// The epoch of this call: the count of calls this rank has finished, plus one (read once per
// thread; the previous call's last block wrote it before that kernel ended).
__device__ __forceinline__ std::uint32_t this_epoch(const Lines& l) { return __ldcg(l.epoch) + 1; }

// The last block to finish advances the epoch: every block has read it by then. Call from every
// thread of every block, after its last access to the lines.
__device__ __forceinline__ void finish_epoch(const Lines& l, std::uint32_t epoch) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(l.epoch + 1, 1u) == gridDim.x - 1) {
      l.epoch[1] = 0;
      l.epoch[0] = epoch;
    }
  }
}

// Rank r's lines of region `region` (0: LL, 1: LL128; common/gpu_group.hpp) and its epoch counter.
inline Lines lines_of(const GpuGroup& g, int region) {
  Lines l{};
  for (int r = 0; r < g.gpus; ++r)
    l.base[r] = static_cast<unsigned char*>(g.lines[r]) + static_cast<std::size_t>(region) * line_region_bytes(g.gpus);
  return l;
}

// Waits until line `p` carries `epoch` in both halves; returns its data words.
__device__ __forceinline__ uint2 wait_line(const uint4* p, std::uint32_t epoch, int self, int from) {
  uint4 v = load_line(p);
  if (v.y == epoch && v.w == epoch) return {v.x, v.z};
  const std::uint64_t t0 = global_ns();
  for (unsigned spins = 1;; ++spins) {
    v = load_line(p);
    if (v.y == epoch && v.w == epoch) return {v.x, v.z};
    if (spins % 1024 == 0 && global_ns() - t0 > kWaitLimitNs) {
      printf("allreduce8: rank %d waited 60 s for rank %d's line (epoch %u): its kernel never ran\n", self, from, epoch);
      __trap();
    }
  }
}

// The sum of a line's words over the ranks, in rank order: two 4-byte elements, or one 8-byte one
// (its low and high words).
template <class T>
struct LineSum {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a line holds 4- or 8-byte elements");
  T acc[sizeof(T) == 4 ? 2 : 1];
  __device__ void first(uint2 w) { unpack(w, acc); }
  __device__ void add(uint2 w) {
    T x[sizeof(T) == 4 ? 2 : 1];
    unpack(w, x);
    for (int e = 0; e < (sizeof(T) == 4 ? 2 : 1); ++e) acc[e] += x[e];
  }
  __device__ static void unpack(uint2 w, T* x) {
    std::uint32_t words[2] = {w.x, w.y};
    memcpy(x, words, sizeof(T) == 4 ? 2 * sizeof(T) : sizeof(T));
  }
};

template <class T>
__global__ void __launch_bounds__(kLineThreads, kLineBlocksPerSm) one_shot_ll(RankView<T> v, Lines l) {
  const std::uint32_t epoch = this_epoch(l);
  const int half = static_cast<int>(epoch & 1);
  const std::size_t words = v.n * sizeof(T) / 4;
  const std::size_t lines = ceil_div(words, std::size_t{2});
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const auto* mine = reinterpret_cast<const std::uint32_t*>(v.in[v.rank]);
  // Push: every line of this thread into every peer's slot for this rank.
  for (std::size_t line = first; line < lines; line += stride) {
    std::uint32_t w0, w1;
    words_of(mine, words, line, w0, w1);
    for (int j = 0; j < v.gpus; ++j)
      if (j != v.rank) store_line(line_at(l, v.gpus, j, v.rank, half, line), w0, w1, epoch);
  }
  // Gather: the same lines from every peer, summed in rank order.
  constexpr int kPer = sizeof(T) == 4 ? 2 : 1;
  for (std::size_t line = first; line < lines; line += stride) {
    LineSum<T> s;
    for (int j = 0; j < v.gpus; ++j) {
      uint2 w;
      if (j == v.rank) {
        std::uint32_t w0, w1;
        words_of(mine, words, line, w0, w1);
        w = {w0, w1};
      } else {
        w = wait_line(line_at(l, v.gpus, v.rank, j, half, line), epoch, v.rank, j);
      }
      if (j == 0) s.first(w);
      else s.add(w);
    }
    T* out = v.out[v.rank];
    const std::size_t e = line * kPer;
#pragma unroll
    for (int k = 0; k < kPer; ++k)
      if (e + k < v.n) out[e + k] = s.acc[k];
  }
  finish_epoch(l, epoch);
}

// Blocks for a message of `bytes`: one line per thread, at most kLineBlocksPerSm per SM of the
// smallest GPU (every block must be resident: a block waits for its peers' blocks).
inline unsigned ll_grid(const GpuGroup& g, std::size_t bytes) {
  const int sms = smallest_sms(g);
  const std::size_t lines = ceil_div(ceil_div(bytes, std::size_t{4}), std::size_t{2});
  std::size_t blocks = ceil_div(lines, std::size_t{kLineThreads});
  const std::size_t cap = static_cast<std::size_t>(sms) * kLineBlocksPerSm;
  blocks = blocks < 1 ? 1 : (blocks < cap ? blocks : cap);
  return static_cast<unsigned>(blocks);
}

// Messages larger than a slot of lines (common/gpu_group.hpp) are the bandwidth steps' job.
static_assert(kLineMaxBytes == std::size_t{1} << 20, "the messages below name the size");
inline bool fits(AllreduceSize s, std::size_t elem_bytes) { return s.n * elem_bytes <= kLineMaxBytes; }
inline constexpr const char* kTooLarge =
    "over 1 MiB per GPU: the group's lines hold 1 MiB of message (the bandwidth steps take larger ones)";

template <class T>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  // The runner skips such sizes (unsupported below); a direct caller gets an error, not a write
  // past the lines.
  if (!fits({a.n, g.gpus}, sizeof(T))) throw std::invalid_argument(std::string("allreduce8_one_shot_ll: ") + kTooLarge);
  const unsigned grid = ll_grid(g, a.n * sizeof(T));
  Lines l = lines_of(g, 0);
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    l.epoch = g.epoch[v.rank];
    one_shot_ll<T><<<grid, kLineThreads, 0, rank_stream>>>(v, l);
  });
}

template <class T>
void prepare() {
  require_resident(one_shot_ll<T>, "one_shot_ll", kLineThreads, kLineBlocksPerSm);
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce8_one_shot_ll", "beyond",
               "push 16-byte lines carrying data and the call's epoch into every peer: no fence, no flag, no "
               "barrier, one launch"},
      .launch = launch<T>,
      .unsupported = [](AllreduceSize s) -> const char* { return fits(s, sizeof(T)) ? nullptr : kTooLarge; },
      .prepare = prepare<T>,
  };
}

}  // namespace kl::allreduce8
