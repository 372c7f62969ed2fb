// Hopper (sm_90) primitives said once for every step that uses them: PTX wrappers for mbarriers,
// TMA copies, thread-block clusters, fences and setmaxnreg, and the host's encoding of a TMA
// descriptor. The device wrappers exist in device passes for 9.0 or newer only (KL_ARCH_AT_LEAST),
// so a kernel calls them inside its own KL_ARCH_AT_LEAST(90) guard; shared addresses are 32-bit
// shared::cta addresses (__cvta_generic_to_shared) unless a name says cluster.
#pragma once

#include "common/cuda_check.hpp"
#include "common/device_helpers.cuh"
#include "common/tensor_map_2d.hpp"

#include <cuda.h>  // CUtensorMap and its enums only; the encoder comes through the runtime
#include <cudaTypedefs.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kl::hopper {

#if KL_ARCH_AT_LEAST(90)
// ---- mbarriers --------------------------------------------------------------------------------
// A phase completes when `count` arrivals and every byte announced by expect_tx have come.
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
// Spins until the phase of parity `parity` has completed (acquire at CTA scope).
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// One arrival (release at CTA scope: this thread's earlier shared accesses come before it).
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// One arrival that also announces `bytes` of TMA transactions for the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// Announces `bytes` without arriving: for a phase whose arrivals come from other threads. It must
// come before the phase's last arrival, or the phase may complete without the bytes.
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// ---- cp.async into a slot an mbarrier guards ----------------------------------------------------
// Copies 4 bytes from global src to shared dst through L1, zero-filling what src_bytes (4 or 0)
// leaves out: with 0 nothing is read, and src need only be a valid address.
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, unsigned src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
// N 4-byte copies, the i-th from src + i·SRC_STEP bytes to dst + i·DST_STEP: the steps are
// immediates of the instructions, so a run costs one instruction a copy.
template <int N, int SRC_STEP, int DST_STEP, int I = 0>
__device__ __forceinline__ void cp_async_4_run(unsigned dst, const void* src) {
  if constexpr (I < N) {
    asm volatile("cp.async.ca.shared.global [%0+%2], [%1+%3], 4;" ::"r"(dst), "l"(src), "n"(I * DST_STEP), "n"(I * SRC_STEP)
                 : "memory");
    cp_async_4_run<N, SRC_STEP, DST_STEP, I + 1>(dst, src);
  }
}
// One arrival on bar once every cp.async this thread has issued so far has landed; the barrier's
// count includes it (noinc), so a phase of n such threads is initialised with n.
__device__ __forceinline__ void cp_async_mbar_arrive(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}
// Waits for every cp.async this thread has issued.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// Makes the mbarrier inits visible to the cluster (and to TMA) before anyone arrives on them.
__device__ __forceinline__ void fence_mbarrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Orders this thread's generic-proxy shared accesses before later async-proxy ones (TMA).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// Gives back a slot of a TMA-filled ring that this warp has read with ordinary loads (ld.shared:
// the generic proxy), on the slot's `empty` barrier, which counts one arrival per warp. Each lane
// first fences its own reads against the async proxy that the slot's next TMA copy writes
// through; then one lane arrives for the warp. The PTX ISA's memory consistency model orders
// accesses to one location through different proxies only by a proxy fence: the arrive's release
// alone lets the refill land before a read issued ahead of it has been performed (ptxas issues the
// arrive right after the last fragment loads, not after the instructions that use them). Seen on
// the H100 and H200 as a few hundred wrong outputs, intermittently, in gemm14's stream-K form
// (docs/sgemm-ladder.md, "gemm14 stream-K").
__device__ __forceinline__ void release_read_slot(unsigned empty_bar) {
  fence_proxy_async_shared();
  __syncwarp();
  if (threadIdx.x % 32 == 0) mbar_arrive(empty_bar);
}

// ---- a ring of TMA-filled slots -----------------------------------------------------------------
// STAGES slots that a producer fills and consumer warps read, each guarded by two mbarriers:
// full[s] completes when the slot's bytes have landed (and the producer's arrivals come), empty[s]
// when every consumer has given the slot back. The barriers lie at `bar0` (full[0..STAGES), then
// empty[0..STAGES), 8 bytes each); a step that needs more barriers lays them after (extra(b)).
//
// The consumers walk the slots in order: (stage, phase) is the next slot to read and the parity of
// its full barrier's phase; advance() steps to the next, flipping the parity each time round. The
// producer addresses its t-th fill of a run directly: slot t % STAGES, whose empty barrier has
// completed its (t / STAGES)-th phase once the consumers left the fill before it there.
template <int STAGES>
struct Ring {
  unsigned bar0;
  int stage = 0, phase = 0;

  __device__ __forceinline__ unsigned full(int s) const { return bar0 + 8 * s; }
  __device__ __forceinline__ unsigned empty(int s) const { return bar0 + 8 * (STAGES + s); }
  __device__ __forceinline__ unsigned extra(int b) const { return bar0 + 8 * (2 * STAGES + b); }

  // One thread, before any other touches the barriers: full[s] completes on `full_arrivals`
  // arrivals (and the bytes announced), empty[s] on `empty_arrivals`.
  __device__ __forceinline__ void init(unsigned full_arrivals, unsigned empty_arrivals) const {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), full_arrivals);
      mbar_init(empty(s), empty_arrivals);
    }
  }

  // ---- the producer's side: fill t of its run ----
  __device__ __forceinline__ static int slot_of(int t) { return t % STAGES; }
  // The parity of the empty phase that frees slot s for fill t (t >= STAGES).
  __device__ __forceinline__ static unsigned released_parity(int t) { return ((t / STAGES) & 1) ^ 1; }
  // Waits until the consumers have left the fill before t in slot s (none before the first round).
  __device__ __forceinline__ void wait_released(int s, int t) const {
    if (t >= STAGES) mbar_wait(empty(s), released_parity(t));
  }
  // The slot of fill t, once free.
  __device__ __forceinline__ int acquire(int t) const {
    const int s = slot_of(t);
    wait_released(s, t);
    return s;
  }

  // ---- the consumers' side: the slot at (stage, phase) ----
  __device__ __forceinline__ void wait() const { mbar_wait(full(stage), phase); }
  // This warp has read the slot with ordinary loads (release_read_slot: a proxy fence per lane,
  // one arrival per warp).
  __device__ __forceinline__ void release() const { release_read_slot(empty(stage)); }
  // This thread is done with the slot (an empty barrier that counts threads).
  __device__ __forceinline__ void arrive() const { mbar_arrive(empty(stage)); }
  __device__ __forceinline__ void advance() { advance(stage, phase); }
  // The position after this one (the slot a consumer that reads ahead waits for next).
  __device__ __forceinline__ Ring next() const {
    const int n = stage + 1 == STAGES ? 0 : stage + 1;
    return {bar0, n, n == 0 ? phase ^ 1 : phase};
  }
  // The same step on a position kept outside the ring (stage s, parity phase).
  __device__ __forceinline__ static void advance(int& s, int& phase) {
    if (++s == STAGES) s = 0, phase ^= 1;
  }
};

// ---- named barriers ---------------------------------------------------------------------------
// A barrier among the `threads` threads (whole warps) that name barrier `id` (0 is __syncthreads').
__device__ __forceinline__ void named_barrier(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- TMA ----------------------------------------------------------------------------------------
// Fetches the descriptor into the cache ahead of the first copy that names it (a kernel
// parameter: __grid_constant__, so its address is the parameter's own).
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}
// The box of `map` at (c0 innermost, c1) into shared memory at dst; completes its bytes on bar.
// Out-of-bounds elements land as zeros and count as bytes.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// The same box into the same shared offset `dst` of every CTA in `cta_mask`, each of which
// completes the box's bytes on the mbarrier at offset `bar` of its own shared memory. ptxas
// advises it for sm_90a only: call it under __CUDA_ARCH_FEAT_SM90_ALL.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const CUtensorMap* map, unsigned bar, int c0, int c1,
                                                      std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// ---- thread-block clusters ------------------------------------------------------------------
// This CTA's rank in its cluster, and the cluster's CTA count (1 when launched without one).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_size() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
// The shared::cluster address of this CTA's shared address `addr` in CTA `rank` of the cluster.
__device__ __forceinline__ unsigned map_to_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// Arrive on an mbarrier of any CTA of the cluster (address from map_to_rank); release at cluster
// scope orders this thread's (and, after __syncwarp, its warp's) shared reads before it.
__device__ __forceinline__ void mbar_arrive_cluster(unsigned cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_bar) : "memory");
}
// mbar_wait with acquire at cluster scope: for a phase completed by arrivals from other CTAs,
// whose accesses must come before what this thread does next.
__device__ __forceinline__ void mbar_wait_cluster(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// The cluster-wide barrier, split: every thread of every CTA arrives (release), then waits
// (acquire). Between the two a thread may still work on what no peer depends on.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
#endif  // KL_ARCH_AT_LEAST(90)

// ---- setmaxnreg (sm_90a) --------------------------------------------------------------------
// A warpgroup gives registers back (dec) or takes them (inc), to kRegs per thread (a multiple of
// 8, 24 to 256); every warp of the warpgroup must execute it. It exists in sm_90a code only:
// elsewhere (a compute_90 image) these do nothing and the warps keep the launch's share.
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
#endif
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
#endif
}

// ---- host: TMA descriptors ------------------------------------------------------------------
// cuTensorMapEncodeTiled from the driver, through the runtime (so nothing links libcuda), asked
// once; a launcher's prepare asks for it so that no timed launch does.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    KL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw std::runtime_error("TMA: cuTensorMapEncodeTiled not found in the driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// The swizzle whose span is a box row of row_bytes (32, 64 or 128): TMA XORs the 16-byte chunk
// index of each row with address bits 7.. so that consecutive rows' same chunk meet different banks.
constexpr CUtensorMapSwizzle swizzle_for_row(int row_bytes) {
  return row_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
}

// A row-major rows × cols matrix of floats or doubles (rows `pitch` elements apart; 0: cols),
// read in boxes of box_rows × box_cols; what lies outside the matrix reads as zeros. Encoded on
// the host, passed by value as a __grid_constant__ kernel parameter.
template <class T>
inline CUtensorMap encode_map(const T* p, int rows, int cols, int box_rows, int box_cols, CUtensorMapSwizzle swz,
                              std::size_t pitch = 0) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
  CUtensorMap map;
  const TensorMap2d g = row_major_2d(rows, cols, box_rows, box_cols, sizeof(T), pitch);
  const cuuint32_t elem[2] = {1, 1};
  const CUtensorMapDataType type = sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  const CUresult r = tensor_map_encoder()(&map, type, 2, const_cast<T*>(p), g.dims, g.strides,
                                          g.box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // NONE: out-of-bounds reads as zero
  if (r != CUDA_SUCCESS) throw std::runtime_error("TMA: cuTensorMapEncodeTiled failed (" + std::to_string(int(r)) + ")");
  return map;
}

}  // namespace kl::hopper
