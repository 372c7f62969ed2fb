// allreduce3_one_shot — beyond the documents: one kernel per GPU reads every peer's input over
// NVLink and writes its own result.
//
// Lesson: the SMs can load from a peer's memory directly (peer access enabled), so the copy and
// the sum become one pass: out[r][i] = in[0][i] + ... + in[G-1][i], G-1 of the G loads going over
// NVLink. No staging, no copy engine, one launch per GPU, so this is the latency step: at small
// sizes the time is a launch, two cross-GPU barriers (a flag store to each peer and a wait for
// theirs, about a microsecond each over NVLink) and one round trip of remote loads. Each GPU
// reads (G-1)·n elements over its links: for G = 2 as many bytes per direction as any all-reduce
// must move, but remote *loads* need many in flight to fill NVLink (each waits a round trip), and
// element-wise (4- or 8-byte) loads keep far too few bytes in flight: expect a fraction of the
// peer bandwidth at large sizes. Step 5 widens the loads.
//
// Synchronisation (flags, allreduce_common.cuh): block b of every rank meets block b of
// every peer twice. At the start, so no block reads a peer's input before that peer's stream has
// reached the operation; at the end, so no rank finishes (and lets its input be overwritten) while
// a peer block may still read it. The flag values are the operation's generation, which only
// grows, so a flag left by an earlier call never satisfies a later one, and no call overtakes the
// previous one: a rank starts call k+1 only after its end barrier of call k, which every peer
// passes only after its start barrier of call k.
//
// Profiler: one kernel per GPU, nvlink read bytes ≈ (G-1)·n·sizeof(T), most warps stalled on
// long-scoreboard (remote loads) at large sizes.
#pragma once

#include "handwritten/allreduce/allreduce_common.cuh"

namespace kl::allreduce3 {

using namespace kl::allreduce;

// kVectors: step 5 (16-byte loads and stores where every pointer is aligned).
template <class T, bool kVectors>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) one_shot(RankView<T> v, bool vectors) {
  meet_peers(v, kStartSet);
  sum_range<kUnrollOf<T>, kVectors>(v.in, v.gpus, 0, v.n, vectors, StoreTo<T>{v.out[v.rank]});
  meet_peers(v, kEndSet);
}

template <class T, bool kVectors>
void launch(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const bool vectors = kVectors && all_aligned16(a.in, g.gpus) && all_aligned16<T>(a.out, g.gpus);
  const std::size_t items = vectors ? ceil_div(a.n, std::size_t{kVec<T>}) : a.n;
  const unsigned grid = barrier_grid(g, ceil_div(items, std::size_t{kUnrollOf<T>}));
  launch_on_every_rank(a, s, [&](const RankView<T>& v, cudaStream_t rank_stream) {
    one_shot<T, kVectors><<<grid, kThreads, 0, rank_stream>>>(v, vectors);
  });
}

template <class T, bool kVectors>
void prepare() {
  require_resident(one_shot<T, kVectors>, "one_shot");
}

template <class T>
AllreduceVariant<T> variant() {
  return {
      .info = {"allreduce3_one_shot", "beyond",
               "one kernel per GPU loads every peer's input over NVLink (peer access), sums, writes its own result"},
      .launch = launch<T, false>,
      .prepare = prepare<T, false>,
  };
}

}  // namespace kl::allreduce3
