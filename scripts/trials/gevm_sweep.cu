// gevm6 plan sweep: y = x·A (the M = 1 gemm class of gemm_auto) at the shapes where gevm6 _b1
// trails cuBLAS, every (C column items per tile, S slabs = cluster size, U loads in flight,
// evict-first or not) against cublas{S,D}gemv(OP_N) on the same buffers. Standalone:
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/gevm_sweep.cu -lcublas -o /tmp/gevm_sweep
//   /tmp/gevm_sweep          the plan sweep (results/h100/session30/gevm_sweep.log, gevm_sweep2.log)
//   /tmp/gevm_sweep deep     gevm6 with deeper load queues (see deep() below)
// Timing as compare does it: L2 emptied before each sample (a 100 MiB read), CUDA events around
// the one launch, 3 warm-up runs, median of 60 samples (trial::FlushTimer). Each configuration's
// y is checked for equality with cuBLAS's (integer-valued inputs make both exact), before and
// after its timed launches (trial::GevmTable; the logs of sessions 30 and 32 were made with the
// check before them only).
#include "handwritten/gemv/gevm6_cluster_slabs.cuh"
#include "scripts/trials/trial_common.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kl;
using namespace trial;

// ---- a trial form (float, 16-byte path): loads with an L2 256-byte prefetch hint or evict-first,
// optionally software-pipelined (round r + 1's loads issued before round r's FMAs), S = 1 as a
// plain launch (no cluster), S > 1 summed through distributed shared memory as gevm6 does.
// Its unpipelined form ("--" in results/h100/session30/gevm_sweep2.log) ran about twice as long
// as gevm6 at the same plan: its SASS interleaves the loads with the FMAs (LDG, FFMA ×4, LDG,
// ...), one or two loads in flight instead of U. The cause is the one matvec::kMinBlocksPerSm
// documents: this kernel's __launch_bounds__ has no minimum of blocks per SM, and without one
// ptxas sinks a round's loads towards their FMAs; compiled with __launch_bounds__(256, 2) the
// same loop keeps its loads batched (checked in SASS, not timed). The logged rows are of the
// form as written here.
template <int MODE>
__device__ __forceinline__ float4 load4(const float4* p) {
  if constexpr (MODE == 0) return __ldcs(p);
  else if constexpr (MODE == 1) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    return v;
  } else return __ldg(p);
}

template <int C, int U, int MODE, bool PF>
__global__ void __launch_bounds__(256) gevm_trial(const float* __restrict__ A, const float* __restrict__ x,
                                                  float* __restrict__ y, int M, int N, int slab) {
  namespace cg = cooperative_groups;
  constexpr int R = 256 / C, W = 4;
  __shared__ __align__(16) float warp_sums[8][C * W];
  __shared__ float sums[C * W];
  const int S = gridDim.y, q = blockIdx.y;
  const int r_begin = q * slab, r_end = min(M, r_begin + slab);
  const int tx = threadIdx.x % C, ty = threadIdx.x / C;
  const int items = N / W, item = blockIdx.x * C + tx;
  float acc[W] = {0, 0, 0, 0};
  auto fma4 = [&](float xr, float4 v) {
    acc[0] = fmaf(v.x, xr, acc[0]); acc[1] = fmaf(v.y, xr, acc[1]);
    acc[2] = fmaf(v.z, xr, acc[2]); acc[3] = fmaf(v.w, xr, acc[3]);
  };
  if (item < items) {
    const float4* a = reinterpret_cast<const float4*>(A) + item;
    int r = r_begin + ty;
    float4 va[U];
    float xr[U];
    auto load_round = [&](int r0) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = r0 + u * R < r_end;
        va[u] = in ? load4<MODE>(a + static_cast<std::size_t>(r0 + u * R) * items) : float4{0, 0, 0, 0};
        xr[u] = in ? __ldg(x + r0 + u * R) : 0.f;
      }
    };
    if constexpr (PF) {
      if (r < r_end) load_round(r);
#pragma unroll 1
      for (; r < r_end; r += U * R) {
        float4 cur[U];
        float xc[U];
#pragma unroll
        for (int u = 0; u < U; ++u) cur[u] = va[u], xc[u] = xr[u];
        if (r + U * R < r_end) load_round(r + U * R);
#pragma unroll
        for (int u = 0; u < U; ++u) fma4(xc[u], cur[u]);
      }
    } else {
#pragma unroll 1
      for (; r < r_end; r += U * R) {
        load_round(r);
#pragma unroll
        for (int u = 0; u < U; ++u) fma4(xr[u], va[u]);
      }
    }
  }
#pragma unroll
  for (int e = 0; e < W; ++e)
#pragma unroll
    for (int off = 16; off >= C; off /= 2) acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], off);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane < C) *reinterpret_cast<float4*>(&warp_sums[warp][lane * W]) = make_float4(acc[0], acc[1], acc[2], acc[3]);
  __syncthreads();
  for (int c = threadIdx.x; c < C * W; c += 256) {
    float s = warp_sums[0][c];
#pragma unroll
    for (int w = 1; w < 8; ++w) s += warp_sums[w][c];
    if (S == 1) {
      const int col = blockIdx.x * (C * W) + c;
      if (col < N) y[col] = s;
    } else sums[c] = s;
  }
  if (S == 1) return;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  for (int c = q + S * static_cast<int>(threadIdx.x); c < C * W; c += S * 256) {
    float s = *cluster.map_shared_rank(&sums[c], 0);
    for (int p = 1; p < S; ++p) s += *cluster.map_shared_rank(&sums[c], p);
    const int col = blockIdx.x * (C * W) + c;
    if (col < N) y[col] = s;
  }
  cluster.sync();
}

template <int C, int U, int MODE, bool PF>
void run_trial(const MatVecArgs<float>& a, int S, cudaStream_t st) {
  const int items = a.N / 4;
  const int slab = static_cast<int>(ceil_div(static_cast<long long>(a.M), static_cast<long long>(S)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(ceil_div(items, C)), static_cast<unsigned>(S));
  cfg.blockDim = dim3(256);
  cfg.stream = st;
  cudaLaunchAttribute cl = {};
  cl.id = cudaLaunchAttributeClusterDimension;
  cl.val.clusterDim.x = 1;
  cl.val.clusterDim.y = static_cast<unsigned>(S);
  cl.val.clusterDim.z = 1;
  cfg.attrs = &cl;
  cfg.numAttrs = S > 1 ? 1 : 0;
  KL_CUDA_CHECK(cudaLaunchKernelEx(&cfg, gevm_trial<C, U, MODE, PF>, a.A, a.x, a.y, a.M, a.N, slab));
}

template <class T, int C, int U, bool kStream>
void run_cfg(const MatVecArgs<T>& a, int S, cudaStream_t s) {
  const int items = matvec::row_items<T>(a.N, true);
  gevm6::Plan p{true, items, C, S, static_cast<int>(ceil_div(static_cast<long long>(a.M), static_cast<long long>(S)))};
  gevm6::launch_c<T, C, U, kStream>(a, p, s);
}

template <class T>
void sweep(int M, int N, FlushTimer& tm, cublasHandle_t h) {
  GevmTable<T> tab(M, N, 1234, tm, h, 28);
  const MatVecArgs<T> a{tab.pb.A, tab.pb.x, tab.pb.y, M, N, nullptr};
  const int items = matvec::row_items<T>(N, true);
  auto row = [&](const char* name, long long blocks, auto&& launch) { tab.row(name, blocks, launch); };
  // Slabs S that keep a row for each of the block's 256 / C row threads (gevm6's rows_ok).
  auto rows_ok = [&](int C, int S) {
    return ceil_div(static_cast<long long>(M), static_cast<long long>(S)) >= matvec::kThreads / C;
  };
  auto blocks_of = [&](int C, int S) { return ceil_div(static_cast<long long>(items), static_cast<long long>(C)) * S; };
  auto one_cfg = [&](auto Cc, auto Uc, auto Sc) {
    constexpr int C = decltype(Cc)::value, U = decltype(Uc)::value;
    constexpr bool kStream = decltype(Sc)::value;
    for (int S : {1, 2, 4, 8, 16}) {
      if (!rows_ok(C, S)) continue;
      if (S > 8)
        KL_CUDA_CHECK(cudaFuncSetAttribute(gevm6::gevm_cluster_slabs<T, C, U, true, kStream>,
                                           cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      char name[64];
      std::snprintf(name, sizeof name, "C%d(%dB) U%d S%d %s", C, C * 16, U, S, kStream ? "cs" : "--");
      row(name, blocks_of(C, S), [&] { run_cfg<T, C, U, kStream>(a, S, nullptr); });
    }
  };
  auto for_u = [&](auto Cc) {
    one_cfg(Cc, std::integral_constant<int, 4>{}, std::true_type{});
    one_cfg(Cc, std::integral_constant<int, 8>{}, std::true_type{});
    one_cfg(Cc, std::integral_constant<int, 16>{}, std::true_type{});
    one_cfg(Cc, std::integral_constant<int, 8>{}, std::false_type{});
  };
  for_u(std::integral_constant<int, 4>{});
  for_u(std::integral_constant<int, 8>{});
  for_u(std::integral_constant<int, 16>{});
  for_u(std::integral_constant<int, 32>{});
  if constexpr (sizeof(T) == 4) {
    std::printf("-- trial form: MODE 0 evict-first, 1 L2::256B prefetch, 2 ldg; pf = pipelined rounds; S1 without a cluster\n");
    auto trial = [&](auto Cc, auto Uc, auto Mc, auto Pc) {
      constexpr int C = decltype(Cc)::value, U = decltype(Uc)::value, MODE = decltype(Mc)::value;
      constexpr bool PF = decltype(Pc)::value;
      for (int S : {1, 2, 4}) {
        if (!rows_ok(C, S)) continue;
        char name[64];
        std::snprintf(name, sizeof name, "T C%d U%d S%d m%d %s", C, U, S, MODE, PF ? "pf" : "--");
        row(name, blocks_of(C, S), [&] { run_trial<C, U, MODE, PF>(a, S, nullptr); });
      }
    };
    auto each = [&](auto Cc, auto Uc) {
      trial(Cc, Uc, std::integral_constant<int, 0>{}, std::false_type{});
      trial(Cc, Uc, std::integral_constant<int, 1>{}, std::false_type{});
      trial(Cc, Uc, std::integral_constant<int, 2>{}, std::false_type{});
      trial(Cc, Uc, std::integral_constant<int, 0>{}, std::true_type{});
      trial(Cc, Uc, std::integral_constant<int, 1>{}, std::true_type{});
    };
    each(std::integral_constant<int, 8>{}, std::integral_constant<int, 8>{});
    each(std::integral_constant<int, 8>{}, std::integral_constant<int, 16>{});
    each(std::integral_constant<int, 16>{}, std::integral_constant<int, 8>{});
    each(std::integral_constant<int, 16>{}, std::integral_constant<int, 16>{});
    each(std::integral_constant<int, 32>{}, std::integral_constant<int, 8>{});
    each(std::integral_constant<int, 4>{}, std::integral_constant<int, 16>{});
  }
}

// ---- deep: gevm6's own kernel with deeper load queues per thread (cuBLAS's gemv kernel holds
// 128 registers and stalls on a full load queue, gevm6 _c128 60 and waits on loads:
// results/h100/session30/ncu_gevm_4096_c128.md): the _pf schedule (gevm4::tile_column_sums'
// kPipelined: the next round's loads in flight during this round's FMAs), U up to 32, and the
// second __launch_bounds__ argument 1 (up to 255 registers) beside 2 (128). Row names:
// C<items per tile> U<loads per round> S<slabs> <pf|--> b<min blocks per SM>.
// VEC: the 16-byte path (an item is 16 bytes) or the element path (4- or 8-byte loads, as many
// load instructions for the same bytes, 32 lanes on one row's 128 bytes).
template <class T, int C, int U, bool PF, int MINB, bool VEC = true>
void run_deep(const MatVecArgs<T>& a, int S, cudaStream_t s) {
  const int items = matvec::row_items<T>(a.N, VEC);
  gevm6::Plan p{VEC, items, C, S, static_cast<int>(ceil_div(static_cast<long long>(a.M), static_cast<long long>(S)))};
  gevm6::launch_c<T, C, U, true, PF, MINB>(a, p, s);
}

template <class T>
void deep(int M, int N, FlushTimer& tm, cublasHandle_t h) {
  GevmTable<T> tab(M, N, 1234, tm, h, 28);
  const MatVecArgs<T> a{tab.pb.A, tab.pb.x, tab.pb.y, M, N, nullptr};
  const int items = matvec::row_items<T>(N, true);
  const auto narrow = gevm_plan::narrow(M, items, 16, sm_count());
  std::printf("-- gevm6 _c128's plan here: C%d S%d (U8 -- b2)\n", narrow.C, narrow.S);
  // Slabs: the powers of two, and 3 and 6 for _c128's own schedule (clusters need not be powers
  // of two: 3 slabs of 128 tiles are 384 blocks, about 3 per SM).
  auto cfg = [&](auto Cc, auto Uc, auto Pc, auto Bc, auto Vc) {
    constexpr int C = decltype(Cc)::value, U = decltype(Uc)::value, MINB = decltype(Bc)::value;
    constexpr bool PF = decltype(Pc)::value, VEC = decltype(Vc)::value;
    const int row_items = matvec::row_items<T>(N, VEC);
    for (int S : {1, 2, 3, 4, 6}) {
      if ((S == 3 || S == 6) && (PF || U != 8)) continue;
      if (ceil_div(static_cast<long long>(M), static_cast<long long>(S)) < matvec::kThreads / C) continue;
      char name[64];
      std::snprintf(name, sizeof name, "%sC%d U%d S%d %s b%d", VEC ? "" : "elem ", C, U, S, PF ? "pf" : "--", MINB);
      tab.row(name, ceil_div(static_cast<long long>(row_items), static_cast<long long>(C)) * S,
              [&] { run_deep<T, C, U, PF, MINB, VEC>(a, S, nullptr); });
    }
  };
  using std::integral_constant;
  using std::false_type;
  using std::true_type;
  using V = true_type;
  auto each_c = [&](auto Cc) {
    cfg(Cc, integral_constant<int, 8>{}, false_type{}, integral_constant<int, 2>{}, V{});  // _c128's schedule
    cfg(Cc, integral_constant<int, 4>{}, true_type{}, integral_constant<int, 2>{}, V{});
    cfg(Cc, integral_constant<int, 8>{}, true_type{}, integral_constant<int, 2>{}, V{});
    cfg(Cc, integral_constant<int, 8>{}, true_type{}, integral_constant<int, 1>{}, V{});
    cfg(Cc, integral_constant<int, 12>{}, true_type{}, integral_constant<int, 1>{}, V{});
    cfg(Cc, integral_constant<int, 16>{}, true_type{}, integral_constant<int, 1>{}, V{});
    cfg(Cc, integral_constant<int, 16>{}, false_type{}, integral_constant<int, 1>{}, V{});
    cfg(Cc, integral_constant<int, 24>{}, false_type{}, integral_constant<int, 1>{}, V{});
    cfg(Cc, integral_constant<int, 32>{}, false_type{}, integral_constant<int, 1>{}, V{});
  };
  each_c(integral_constant<int, 8>{});
  each_c(integral_constant<int, 16>{});
  // The element path: a warp's 32 lanes on 128 bytes of one row (float), 4-byte loads.
  if constexpr (sizeof(T) == 4) {
    using E = false_type;
    constexpr integral_constant<int, 32> C32{};
    cfg(C32, integral_constant<int, 8>{}, false_type{}, integral_constant<int, 2>{}, E{});
    cfg(C32, integral_constant<int, 16>{}, false_type{}, integral_constant<int, 2>{}, E{});
    cfg(C32, integral_constant<int, 32>{}, false_type{}, integral_constant<int, 1>{}, E{});
    cfg(C32, integral_constant<int, 16>{}, true_type{}, integral_constant<int, 1>{}, E{});
    cfg(C32, integral_constant<int, 32>{}, true_type{}, integral_constant<int, 1>{}, E{});
  }
}

int main(int argc, char** argv) {
  const bool deep_only = argc > 1 && std::string(argv[1]) == "deep";
  cudaDeviceProp prop;
  KL_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# gevm6 plan sweep on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  FlushTimer tm;
  cublasHandle_t h;
  CB(cublasCreate(&h));
  if (deep_only) {
    deep<float>(4096, 4096, tm, h);
    deep<double>(4096, 4096, tm, h);
    deep<float>(2500, 2000, tm, h);
  } else {
    sweep<float>(4096, 4096, tm, h);
    sweep<double>(4096, 4096, tm, h);
    sweep<float>(2500, 2000, tm, h);
  }
  CB(cublasDestroy(h));
  return 0;
}
