// gevm row-stream trial: y = x·A (gemm_auto's M = 1 class) with each block streaming whole row
// chunks (up to 16 KiB of a row, contiguous) instead of gevm6's 128-byte column tiles, against
// cublas{S,D}gemv(OP_N) and gevm6 _c128 (gemm_auto's choice) on the same buffers. Standalone:
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/gevm_rowstream.cu -lcublas -o /tmp/gevm_rowstream
//
// Why try it: at float 4096² gevm6 _c128 reads the matrix at 2518 GB/s (ncu,
// results/h100/session30/ncu_gevm_4096_c128.md) where the row-major gemv step reads the same
// 64 MiB in 25.4 µs (results/h100/session30/h100.md, gemm float 4096×1×4096), ~5% faster. gemv's
// warps walk contiguous rows; gevm6's blocks walk 128-byte strips down the matrix.
//
// The form: the N columns are cut into chunks of 256·P 16-byte items (P = 4: 4096 floats); a
// block (256 threads, P items each) sums the rows [q·slab, (q + 1)·slab) of one chunk, U rows'
// loads in flight. The S = CS·G slabs of a chunk: CS consecutive slabs are a cluster and add
// their sums through distributed shared memory (as gevm6); the G cluster sums go to a workspace
// (G × N values), and the last cluster to finish a chunk segment (an atomic ticket per segment,
// reset by its taker) adds the G sums in order g = 0 .. G − 1 and writes y. Every sum is in a
// fixed order: the same bits every run.
//
// Timing as compare does it: L2 emptied before each sample (a 100 MiB read), CUDA events around
// the one launch, 3 warm-up runs, median of 60 samples (trial::FlushTimer). Each configuration's
// y is poisoned (NaN) and checked for equality with cuBLAS's (integer-valued inputs: every order
// of the sums is exact; trial::GevmProblem), before and after its timed launches.
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"
#include "scripts/trials/trial_common.hpp"

#include <cooperative_groups.h>

#include <csignal>
#include <cstdio>
#include <random>
#include <vector>

using namespace kl;
using namespace trial;

namespace rs {

constexpr int kThreads = 256;

// Block (chunk blockIdx.x, slab blockIdx.y); cluster (1, CS, 1) = CS consecutive slabs.
template <class T, int P, int U, int CS, int MINB>
__global__ void __launch_bounds__(kThreads, MINB)
    gevm_rowstream(const T* __restrict__ A, const T* __restrict__ x, T* __restrict__ y, int M, int N, int slab,
                   T* __restrict__ ws, unsigned* __restrict__ tickets) {
  namespace cg = cooperative_groups;
  using V = vec16_t<T>;
  constexpr int W = kVec<T>, kChunkItems = kThreads * P, kChunk = kChunkItems * W, kSeg = kChunk / CS;
  __shared__ __align__(16) T sums[kChunk];
  const int items = N / W;
  const int q = blockIdx.y, r_begin = q * slab, r_end = min(M, r_begin + slab);
  const int item0 = blockIdx.x * kChunkItems + threadIdx.x;
  T acc[P][W] = {};
  const V* a = reinterpret_cast<const V*>(A);
  int r = r_begin;
  // Whole rounds of U rows, then the rest one row at a time (no predicates in the hot loop).
#pragma unroll 1
  for (; r + U <= r_end; r += U) {
    V v[U][P];
    T xr[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      xr[u] = __ldg(x + r + u);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const int it = item0 + p * kThreads;
        v[u][p] = it < items ? __ldcs(a + static_cast<std::size_t>(r + u) * items + it) : V{};
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int p = 0; p < P; ++p) matvec::fma_lanes<T, W>(acc[p], xr[u], v[u][p]);
  }
#pragma unroll 1
  for (; r < r_end; ++r) {
    const T xr = __ldg(x + r);
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int it = item0 + p * kThreads;
      if (it < items) matvec::fma_lanes<T, W>(acc[p], xr, __ldcs(a + static_cast<std::size_t>(r) * items + it));
    }
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int e = 0; e < W; ++e) sums[(threadIdx.x + p * kThreads) * W + e] = acc[p][e];

  const int G = gridDim.y / CS, g = q / CS;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  cluster.sync();
  // Segment `rank` of the chunk: the CS slabs' sums in slab order.
  const int col0 = blockIdx.x * kChunk + rank * kSeg;
  for (int c = threadIdx.x; c < kSeg; c += kThreads) {
    T s = *cluster.map_shared_rank(&sums[rank * kSeg + c], 0);
#pragma unroll
    for (int pr = 1; pr < CS; ++pr) s += *cluster.map_shared_rank(&sums[rank * kSeg + c], pr);
    const int col = col0 + c;
    if (col < N) {
      if (G == 1) y[col] = s;
      else ws[static_cast<std::size_t>(g) * N + col] = s;
    }
  }
  cluster.sync();  // no block leaves while a peer may still read its sums
  if (G == 1) return;
  // The last of the G clusters to write this segment adds the G sums in order.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned* t = tickets + blockIdx.x * CS + rank;
    last = atomicAdd(t, 1u) == static_cast<unsigned>(G - 1);
    if (last) *t = 0;  // ready for the next launch (only this block touches it now)
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int c = threadIdx.x; c < kSeg; c += kThreads) {
    const int col = col0 + c;
    if (col >= N) break;
    T s = __ldcg(ws + col);
    for (int h = 1; h < G; ++h) s += __ldcg(ws + static_cast<std::size_t>(h) * N + col);
    y[col] = s;
  }
}

template <class T, int P, int U, int CS, int MINB>
cudaError_t run_rowstream(const T* A, const T* x, T* y, int M, int N, int S, T* ws, unsigned* tickets) {
  constexpr int W = kVec<T>, kChunk = kThreads * P * W;
  const int chunks = ceil_div(N, kChunk);
  const int slab = ceil_div(M, S);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(chunks, S);
  cfg.blockDim = dim3(kThreads);
  cudaLaunchAttribute cl = {};
  cl.id = cudaLaunchAttributeClusterDimension;
  cl.val.clusterDim = {1, static_cast<unsigned>(CS), 1};
  cfg.attrs = &cl;
  cfg.numAttrs = 1;
  if constexpr (CS > 8) CK(cudaFuncSetAttribute(gevm_rowstream<T, P, U, CS, MINB>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  return cudaLaunchKernelEx(&cfg, gevm_rowstream<T, P, U, CS, MINB>, A, x, y, M, N, slab, ws, tickets);
}

}  // namespace rs
using namespace rs;

template <class T>
void sweep(int M, int N, FlushTimer& tm, cublasHandle_t h) {
  // Rows are checked, timed, and checked again after the timed launches (the tickets reset
  // themselves).
  GevmTable<T> tab(M, N, 4321, tm, h, 34);
  auto row = [&](const char* name, long long blocks, auto&& launch) { tab.row(name, blocks, launch); };
  T* const A = tab.pb.A;
  const T* const x = tab.pb.x;
  T* const y = tab.pb.y;
  T* ws;
  unsigned* tickets;
  CK(cudaMalloc(&ws, std::size_t(64) * N * sizeof(T)));  // G <= 64
  CK(cudaMalloc(&tickets, 4096 * sizeof(unsigned)));
  CK(cudaMemset(tickets, 0, 4096 * sizeof(unsigned)));
  MatVecArgs<T> a{A, x, y, M, N, nullptr};
  row("gevm6 _c128 (gemm_auto's)", 0, [&] {
    gevm6::launch<T, 8, true>(a, gevm6::plan_narrow<T>({M, N}, matvec::vector_rows_ok(a, false)), nullptr);
  });
  constexpr int W = kVec<T>;
  auto cfg = [&](auto Pc, auto Uc, auto CSc, auto Bc, int S) {
    constexpr int P = decltype(Pc)::value, U = decltype(Uc)::value, CS = decltype(CSc)::value, MINB = decltype(Bc)::value;
    if (S % CS != 0 || S / CS > 64 || ceil_div(M, S) < 1) return;
    const int chunks = ceil_div(N, rs::kThreads * P * W);
    char name[96];
    std::snprintf(name, sizeof name, "rowstream P%d U%d CS%d S%d b%d", P, U, CS, S, MINB);
    if (cudaError_t e = run_rowstream<T, P, U, CS, MINB>(A, x, y, M, N, S, ws, tickets); e != cudaSuccess) {
      std::printf("%-34s launch refused: %s\n", name, cudaGetErrorString(e));
      cudaGetLastError();
      return;
    }
    CK(cudaDeviceSynchronize());
    row(name, static_cast<long long>(chunks) * S, [&] { CK((run_rowstream<T, P, U, CS, MINB>(A, x, y, M, N, S, ws, tickets))); });
  };
  using std::integral_constant;
  const int sms = sm_count();
  for (int mult : {1, 2}) {
    // slabs so that chunks × S is about mult blocks per SM, rounded to the cluster size
    auto S_for = [&](int P, int CS) {
      const int chunks = ceil_div(N, rs::kThreads * P * W);
      int S = std::max(1, sms * mult / chunks) / CS * CS;
      return std::max(S, CS);
    };
    cfg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 8>{}, integral_constant<int, 1>{}, S_for(4, 8));
    cfg(integral_constant<int, 4>{}, integral_constant<int, 2>{}, integral_constant<int, 8>{}, integral_constant<int, 2>{}, S_for(4, 8));
    cfg(integral_constant<int, 2>{}, integral_constant<int, 8>{}, integral_constant<int, 8>{}, integral_constant<int, 1>{}, S_for(2, 8));
    cfg(integral_constant<int, 2>{}, integral_constant<int, 4>{}, integral_constant<int, 8>{}, integral_constant<int, 2>{}, S_for(2, 8));
    cfg(integral_constant<int, 1>{}, integral_constant<int, 8>{}, integral_constant<int, 8>{}, integral_constant<int, 2>{}, S_for(1, 8));
    cfg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 1>{}, S_for(4, 4));
    cfg(integral_constant<int, 4>{}, integral_constant<int, 4>{}, integral_constant<int, 16>{}, integral_constant<int, 1>{}, S_for(4, 16));
  }
  CK(cudaFree(ws));
  CK(cudaFree(tickets));
}

int main() {
  std::signal(SIGALRM, on_alarm);
  alarm(240);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# gevm row-stream trial on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  FlushTimer tm;
  cublasHandle_t h;
  CB(cublasCreate(&h));
  sweep<float>(4096, 4096, tm, h);
  sweep<double>(4096, 4096, tm, h);
  sweep<float>(2500, 2000, tm, h);
  sweep<double>(2500, 2000, tm, h);
  sweep<float>(8192, 8192, tm, h);
  CB(cublasDestroy(h));
  return 0;
}
