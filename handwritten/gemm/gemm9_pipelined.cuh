// gemm9_pipelined — beyond the documents: gemm8 with a STAGES-deep ring of shared tiles filled
// by cp.async, so global loads overlap the FMAs.
//
// Lesson: in gemm8 a block's warps all stop at __syncthreads while the next tile comes from
// global memory (hundreds of cycles of L2/DRAM latency), and the copy passes through registers
// (LDG then STS). Here the copies for tile t + STAGES - 1 are issued with cp.async (Ampere+:
// global → shared directly, no registers, completion tracked per commit group) before the FMAs
// of tile t, into the ring slot tile t - 1 just left. The FMAs of STAGES - 1 tiles hide a
// tile's latency; one __syncthreads per tile both publishes tile t and frees slot t - 1.
// Measured (4096³ float, 128×128×16, 3 stages; docs/sgemm-ladder.md, "What the profiler
// shows"): long-scoreboard stalls all but gone, barrier stalls down, issue slots busy far more
// often, faster than gemm8, still short of cublasSgemm. What is left is instruction issue
// (docs/sgemm-ladder.md, "What limits gemm9").
//
// A is still stored transposed, so it is copied element by element (4- or 8-byte cp.async);
// B in 16-byte copies when its rows are 16-byte aligned (element copies otherwise). Copies past
// the matrix edge read nothing and zero-fill their slot (cp.async's src-size operand), so any
// M, N, K >= 1 works, the ragged k tile included.
//
// The tile sizes and the depth are template parameters: gemm_list.cu instantiates a few
// configurations and `compare` measures them side by side (see docs/sgemm-ladder.md).
#pragma once

#include "handwritten/gemm/gemm8_warptiled.cuh"

namespace kl::gemm9 {

using namespace gemm_detail;

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
struct Pipeline {
  using W = gemm8::WarpTile<T, BM, BN, BK, WM, WN, TM, TN>;
  static_assert(STAGES >= 2, "a pipeline needs at least two slots");
  static constexpr int kBOffset = BK * W::LDA;           // a slot: the transposed A tile, then B's
  static constexpr int kStageElems = kBOffset + BK * BN;
  static constexpr std::size_t kSmemBytes = std::size_t(STAGES) * kStageElems * sizeof(T);
  // Two blocks of 256 threads per SM fit the register file at up to 128 registers per thread,
  // enough for 64 float accumulators plus fragments; bigger thread tiles get the whole file.
  static constexpr int kMinBlocks = W::kThreads <= 256 && TM * TN * sizeof(T) <= 256 ? 2 : 1;
  static constexpr int kTileM = BM, kTileN = BN;  // the block tile of C

  // The ring slot of k tile t.
  __device__ static T* slot(T* smem, int t) { return smem + (t % STAGES) * kStageElems; }

  // Starts the copy of k tile t into its slot.
  template <class CopyA, class CopyB>
  __device__ static void copy_tile(T* smem, int t, const CopyA& copy_a, const CopyB& copy_b) {
    T* s = slot(smem, t);
    copy_a.copy(s, t * BK);
    copy_b.copy(s + kBOffset, t * BK);
  }
};

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool VEC>
__global__ void __launch_bounds__(gemm8::WarpTile<T, BM, BN, BK, WM, WN, TM, TN>::kThreads,
                                  (Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kMinBlocks))
    kernel_pipelined(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int M,
                     int N, int K) {
#if KL_ARCH_AT_LEAST(80)  // cp.async; compiled for older targets as an empty kernel (Requirements)
  using P = Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>;
  using W = typename P::W;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const smem = reinterpret_cast<T*>(smem_raw);
  const int row0 = BM * blockIdx.y, col0 = BN * blockIdx.x;
  const int tiles = ceil_div(K, BK);

  AsyncCopyA<T, BM, BK, W::LDA, W::kThreads> copy_a(a, M, K, K, row0);
  AsyncCopyB<T, BK, BN, BN, W::kThreads, VEC> copy_b(b, K, N, col0);
  // Starts the copy of k tile t; every call commits a group (empty past the last tile) so that
  // "all but the newest STAGES - 2 groups are done" always means "tile t is here".
  auto issue = [&](int t) {
    if (t < tiles) P::copy_tile(smem, t, copy_a, copy_b);
    cp_async_commit();
  };

  W w;
#pragma unroll
  for (int t = 0; t < STAGES - 1; ++t) issue(t);
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of tile t have landed ...
    __syncthreads();              // ... and everyone's; everyone is also done with tile t - 1
    issue(t + STAGES - 1);        // refill the slot of tile t - 1 while tile t is multiplied
    const T* slot = P::slot(smem, t);
    w.multiply(slot, slot + P::kBOffset);
  }
  cp_async_wait<0>();  // leave no copy in flight (the trailing groups are empty)
  w.template store<VEC>(c, M, N, row0, col0);
#endif
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, bool VEC>
constexpr auto kernel_for = kernel_pipelined<T, BM, BN, BK, WM, WN, TM, TN, STAGES, VEC>;

template <class T>
using PipelinedKernel = void (*)(const T*, const T*, T*, int, int, int);

// Past 48 KiB a kernel must opt in to dynamic shared memory: a host-side attribute, set once for
// both kernels of the configuration before the first launch (prepare), never in the timed launch.
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
void prepare() {
  allow_smem(Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kSmemBytes,
             {kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>,
              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, false>});
}

// Launches one of a configuration's two kernels (16-byte B copies and stores, or element-wise
// ones) over C's tiles; gemm12 launches its kernels through it too.
template <class P, class T>
void launch_pair(const GemmArgs<T>& g, cudaStream_t s, PipelinedKernel<T> vec, PipelinedKernel<T> elementwise) {
  const auto kernel = vec_io_ok(g, /*need_a=*/false) ? vec : elementwise;  // A goes element by element
  launch_tiled(g, P::kTileM, P::kTileN, [&](dim3 grid, const T* A, T* C, int M) {
    kernel<<<grid, P::W::kThreads, P::kSmemBytes, s>>>(A, g.B, C, M, g.N, g.K);
  });
}

template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
void launch(const GemmArgs<T>& g, cudaStream_t s) {
  launch_pair<Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>>(g, s, kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>,
                                                               kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, false>);
}

// One configuration as a variant; `name` spells the configuration (a string literal).
template <class T, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
GemmVariant<T> variant(std::string_view name) {
  return {.info = {name, "beyond the documents",
                   "gemm8 + cp.async ring of tiles: global loads overlap the FMAs, one barrier per tile"},
          .needs = needs_sm80(kFeatureCpAsync, Pipeline<T, BM, BN, BK, WM, WN, TM, TN, STAGES>::kSmemBytes,
                              kernel_for<T, BM, BN, BK, WM, WN, TM, TN, STAGES, true>),
          .launch = launch<T, BM, BN, BK, WM, WN, TM, TN, STAGES>,
          .prepare = prepare<T, BM, BN, BK, WM, WN, TM, TN, STAGES>};
}

}  // namespace kl::gemm9
