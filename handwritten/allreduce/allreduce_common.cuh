// What the all-reduce ladder's kernels share: a rank's view of every GPU's buffers, the launch
// geometry of kernels that meet their peers block by block, the cross-GPU barrier (flags written
// with system-scope release stores, read with acquire loads), and the sums in rank order.
//
// Beyond the documents: the documents reduce inside one GPU (a tree of partial sums, then fewer
// and better passes). Across GPUs the same lesson repeats with a new cost on top of each pass:
// where the data must travel (host, copy engine, or the SMs over NVLink) and how the GPUs learn
// that a peer's data is there.
//
// Every variant sums the G values of an element in rank order, x0 + x1 + ... + x(G-1), on every
// rank, so every GPU ends with bit-identical results (data-parallel training relies on it; the
// family checks it) and the error bound is gamma(G-1)·Σ|x|.
#pragma once

#include "common/device_helpers.cuh"
#include "common/gpu_group.hpp"

#include <cuda/atomic>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kl::allreduce {

inline constexpr int kThreads = 512;
// Two blocks per SM stay resident (__launch_bounds__(kThreads, kBlocksPerSm) caps the registers
// so they fit): a kernel whose blocks wait for their peers' must have every block resident, or a
// block could wait for a peer block that waits for a block that never gets an SM.
inline constexpr int kBlocksPerSm = 2;

// Elements (or 16-byte vectors) each thread has in flight per rank in the barrier kernels: four
// for 4-byte types; two for double, whose four would spill under the 64 registers a thread may use
// when two 512-thread blocks share an SM.
template <class T>
inline constexpr int kUnrollOf = sizeof(T) == 8 ? 2 : 4;

// The flag sets of GpuGroup::flags.
inline constexpr int kStartSet = 0;  // "my stream has reached the operation: my input is ready"
inline constexpr int kEndSet = 1;    // "I no longer touch your buffers"
inline constexpr int kPushSet = 2;   // + parity: "my data for this generation is in your staging"

// The flag word rank `from` writes for block `block` in set `set` (in the flags of the rank that
// waits for it).
__host__ __device__ constexpr std::size_t flag_word(int set, int block, int from) {
  return (static_cast<std::size_t>(set) * kBarrierBlocks + static_cast<std::size_t>(block)) * kMaxGpus +
         static_cast<std::size_t>(from);
}

// What one rank's kernel needs, by value: every rank's buffers (peers' reached through peer
// access), this rank, the flags of every rank, and the operation's generation.
template <class T>
struct RankView {
  const T* in[kMaxGpus];
  T* out[kMaxGpus];
  std::uint64_t* flags[kMaxGpus];
  std::size_t n;
  int gpus, rank;
  std::uint64_t gen;
};

template <class T>
RankView<T> rank_view(const AllreduceArgs<T>& a, int rank, std::uint64_t gen) {
  RankView<T> v{};
  const GpuGroup& g = *a.group;
  for (int r = 0; r < g.gpus; ++r) v.in[r] = a.in[r], v.out[r] = a.out[r], v.flags[r] = g.flags[r];
  v.n = a.n;
  v.gpus = g.gpus;
  v.rank = rank;
  v.gen = gen;
  return v;
}

// One operation of a kernel that meets its peers (steps 3-7): between the fork from and the join
// back to the runner's stream (begin_op, end_op), the operation's generation is drawn once and
// `launch(view, stream)` enqueues rank r's kernel with rank r's device current, `view` its
// RankView; each launch is checked.
template <class T, class Launch>
void launch_on_every_rank(const AllreduceArgs<T>& a, cudaStream_t s, Launch&& launch) {
  const GpuGroup& g = *a.group;
  const OpStreams o = begin_op(g, s);
  const std::uint64_t gen = next_generation(g);
  DeviceScope dev;
  for (int r = 0; r < g.gpus; ++r) {
    dev.to(g.device[r]);
    launch(rank_view(a, r, gen), o.s[r]);
    KL_CHECK_LAUNCH();
  }
  end_op(g, o, s);
}

// The multiprocessors of the group's smallest GPU: what every rank's resident grid must fit.
inline int smallest_sms(const GpuGroup& g) {
  int sms = g.sms[0];
  for (int r = 1; r < g.gpus; ++r) sms = sms < g.sms[r] ? sms : g.sms[r];
  return sms;
}

// Blocks for `items` units of work, the same on every rank (block b meets block b of every
// peer), all resident together: at most kBlocksPerSm per SM of the smallest GPU.
inline unsigned barrier_grid(const GpuGroup& g, std::size_t items) {
  const int sms = smallest_sms(g);
  std::size_t blocks = ceil_div(items, std::size_t{kThreads});
  blocks = blocks < 1 ? 1 : blocks;
  const std::size_t cap = static_cast<std::size_t>(sms) * kBlocksPerSm;
  blocks = blocks < cap ? blocks : cap;
  return static_cast<unsigned>(blocks < kBarrierBlocks ? blocks : kBarrierBlocks);
}

// prepare(): a kernel that waits for its peers must keep `per_sm` blocks of `threads` resident per
// SM (the launch bounds should guarantee it; this says so clearly where they do not).
template <class Kernel>
void require_resident(Kernel kernel, const char* name, int threads = kThreads, int per_sm = kBlocksPerSm) {
  int blocks = 0;
  KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  if (blocks < per_sm)
    throw std::runtime_error(std::string(name) + ": only " + std::to_string(blocks) + " block(s) of " +
                             std::to_string(threads) + " threads fit on an SM; its cross-GPU wait needs " +
                             std::to_string(per_sm) + " resident");
}

// A wait that outlives this is a peer kernel that never started (launches serialised by
// CUDA_LAUNCH_BLOCKING or a tool): better a trap with a message than a hang.
inline constexpr std::uint64_t kWaitLimitNs = 60ull * 1000 * 1000 * 1000;

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Tells block `blockIdx.x` of rank `to` that this block has reached flag set `set` of
// generation `gen`. Everything this block wrote or read before (after __syncthreads) happens
// before the peer's acquire of the flag: a system-scope release store, after a system-scope fence
// that makes the other threads' accesses, ordered by the barrier, part of what it releases.
__device__ __forceinline__ void signal_peer(std::uint64_t* const* flags, int set, int to, int from, std::uint64_t gen) {
  __threadfence_system();
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> flag(flags[to][flag_word(set, blockIdx.x, from)]);
  flag.store(gen, cuda::memory_order_release);
}

// Waits until block `blockIdx.x` of rank `from` has signalled set `set` of generation `gen`. A
// flag holds 0 or an earlier operation's generation until then: generations only grow, so no
// stale value can pass.
__device__ __forceinline__ void wait_peer(std::uint64_t* const* flags, int set, int self, int from, std::uint64_t gen) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> flag(flags[self][flag_word(set, blockIdx.x, from)]);
  if (flag.load(cuda::memory_order_acquire) == gen) return;
  const std::uint64_t t0 = global_ns();
  for (unsigned spins = 1;; ++spins) {
    if (flag.load(cuda::memory_order_acquire) == gen) return;
    if (spins % 1024 == 0 && global_ns() - t0 > kWaitLimitNs) {
      printf("allreduce: rank %d block %d waited 60 s for rank %d (flag set %d, generation %llu): its kernel never ran\n",
             self, blockIdx.x, from, set, static_cast<unsigned long long>(gen));
      __trap();
    }
  }
}

// Block b of this rank meets block b of every peer: returns once each has reached set `set` of
// this generation. Thread p < G (p != rank) signals peer p and waits for it; __syncthreads before
// publishes the whole block's work, __syncthreads after holds every thread until all peers came.
template <class T>
__device__ __forceinline__ void meet_peers(const RankView<T>& v, int set) {
  __syncthreads();
  const int peer = static_cast<int>(threadIdx.x);
  if (peer < v.gpus && peer != v.rank) {
    signal_peer(v.flags, set, peer, v.rank, v.gen);
    wait_peer(v.flags, set, v.rank, peer, v.gen);
  }
  __syncthreads();
}

// acc[u] = src[0][i_u] + src[1][i_u] + ... + src[G-1][i_u] (rank order) for the kUnroll elements
// i_u = i + u·stride below `end`. Each step issues the kUnroll loads of one rank before adding
// them, so kUnroll loads are in flight per thread even where a rank's data is a round trip away.
template <int kUnroll, class T>
__device__ __forceinline__ void sum_ranks(const T* const* src, int gpus, std::size_t i, std::size_t stride,
                                          std::size_t end, T (&acc)[kUnroll]) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (i + u * stride < end) acc[u] = src[0][i + u * stride];
  for (int j = 1; j < gpus; ++j) {
    T x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * stride < end) x[u] = src[j][i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * stride < end) acc[u] += x[u];
  }
}

// The same over 16-byte vectors: vector index w covers elements [w·kVec, (w+1)·kVec); every
// src[j] must be 16-byte aligned.
template <int kUnroll, class T>
__device__ __forceinline__ void sum_ranks_vec(const T* const* src, int gpus, std::size_t w, std::size_t stride,
                                              std::size_t end, T (&acc)[kUnroll][kVec<T>]) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u)
    if (w + u * stride < end) load_vec(acc[u], src[0] + (w + u * stride) * kVec<T>);
  for (int j = 1; j < gpus; ++j) {
    T x[kUnroll][kVec<T>];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (w + u * stride < end) load_vec(x[u], src[j] + (w + u * stride) * kVec<T>);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (w + u * stride < end)
#pragma unroll
        for (int e = 0; e < kVec<T>; ++e) acc[u][e] += x[u][e];
  }
}

// The elements [lo, hi) this thread handles, walked the same way by every kernel of the ladder:
// 16-byte vectors w = first, first + stride, ... (element index w·kVec) over the aligned part,
// then elements one by one over the tail, kUnroll at a time. Which elements a block handles
// depends only on (lo, hi, the grid, `vectors`): the push step relies on block b of every rank
// handling the same ones. For each: v = src[0] + ... + src[G-1] in rank order, handed to
// store.vec(i, v[kVec]) or store.one(i, v). `lo` must be a multiple of kVec<T> when `vectors`, unless
// the range is empty.
template <int kUnroll, bool kVectors, class T, class Store>
__device__ __forceinline__ void sum_range(const T* const* src, int gpus, std::size_t lo, std::size_t hi, bool vectors,
                                          const Store& store) {
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t tail = lo;
  if constexpr (kVectors) {
    if (vectors) {
      const std::size_t wlo = lo / kVec<T>, whi = hi / kVec<T>;
      for (std::size_t w = wlo + first; w < whi; w += stride * kUnroll) {
        T acc[kUnroll][kVec<T>];
        sum_ranks_vec<kUnroll>(src, gpus, w, stride, whi, acc);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
          if (w + u * stride < whi) store.vec((w + u * stride) * kVec<T>, acc[u]);
      }
      // An empty range past n (a chunk of a message shorter than the group's chunks) has lo = hi
      // = n, not a multiple of a vector: its tail must not start below lo, where another rank's
      // chunk is.
      tail = whi * kVec<T> > lo ? whi * kVec<T> : lo;
    }
  }
  for (std::size_t i = tail + first; i < hi; i += stride * kUnroll) {
    T acc[kUnroll];
    sum_ranks<kUnroll>(src, gpus, i, stride, hi, acc);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * stride < hi) store.one(i + u * stride, acc[u]);
  }
}

// Stores a sum into one output (the one-shot, the local sum).
template <class T>
struct StoreTo {
  T* out;
  __device__ void vec(std::size_t i, const T (&v)[kVec<T>]) const { store_vec(out + i, v); }
  __device__ void one(std::size_t i, T v) const { out[i] = v; }
};

// Whether every pointer may be read or written as 16-byte vectors (a shifted pointer, as the GPU
// suite's mutants make, takes the element-wise path instead; every rank decides alike).
template <class T>
bool all_aligned16(const T* const* p, int count) {
  for (int r = 0; r < count; ++r)
    if (!aligned16(p[r])) return false;
  return true;
}

// out = src[0] + ... + src[G-1] over [0, n): the local sum that the host path and the peer copies
// end with, once every source is on (or mapped into) this GPU. No barrier: events order it.
template <class T>
struct LocalSources {
  const T* src[kMaxGpus];
};
template <class T>
__global__ void __launch_bounds__(kThreads) local_sum(LocalSources<T> s, int gpus, T* __restrict__ out, std::size_t n,
                                                       bool vectors) {
  sum_range<4, true>(s.src, gpus, 0, n, vectors, StoreTo<T>{out});
}

// Launches local_sum for one rank on `stream` (the current device must be that rank's).
template <class T>
void launch_local_sum(const LocalSources<T>& s, int gpus, T* out, std::size_t n, int sms, cudaStream_t stream) {
  const bool vectors = all_aligned16(s.src, gpus) && aligned16(out);
  const std::size_t items = ceil_div(vectors ? ceil_div(n, std::size_t{kVec<T>}) : n, std::size_t{4});
  std::size_t blocks = ceil_div(items, std::size_t{kThreads});
  const std::size_t cap = static_cast<std::size_t>(sms) * 8;
  blocks = blocks < 1 ? 1 : (blocks > cap ? cap : blocks);
  local_sum<T><<<grid_blocks(blocks), kThreads, 0, stream>>>(s, gpus, out, n, vectors);
  KL_CHECK_LAUNCH();
}

// The local sums that the host path (step 1) and the peer copies (step 2) end with, once every
// peer's data is where rank r can read it, peer_source(r, j) for peer j: each rank sums its own
// input and those into its output, on its stream of `o`, with `dev` moved to its device.
template <class T, class PeerSource>
void launch_local_sums(const AllreduceArgs<T>& a, const OpStreams& o, DeviceScope& dev, PeerSource&& peer_source) {
  const GpuGroup& g = *a.group;
  for (int r = 0; r < g.gpus; ++r) {
    LocalSources<T> src{};
    for (int j = 0; j < g.gpus; ++j) src.src[j] = j == r ? a.in[r] : peer_source(r, j);
    dev.to(g.device[r]);
    launch_local_sum(src, g.gpus, a.out[r], a.n, g.sms[r], o.s[r]);
  }
}

// Staging slots: the G-1 peers' data on a rank, peer j in slot j (j < rank) or j - 1 (j > rank).
// A slot is padded to 16 bytes so every slot starts 16-byte aligned.
template <class T>
std::size_t slot_elems(std::size_t n) {
  return ceil_div(n * sizeof(T), std::size_t{16}) * 16 / sizeof(T);
}
__host__ __device__ constexpr int slot_of(int peer, int rank) { return peer < rank ? peer : peer - 1; }
// G-1 slots (none where a run has fewer than two GPUs and every variant is skipped).
inline std::size_t peer_slots(AllreduceSize s) { return s.gpus > 1 ? static_cast<std::size_t>(s.gpus - 1) : 0; }

}  // namespace kl::allreduce
