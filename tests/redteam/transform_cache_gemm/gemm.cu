// The same cache for a product: 64 entries of (M, N, K, eight sampled elements of A and of B, the
// product C in a buffer of its own), enough for every input set of a problem. When this launch's sampled A is an entry's times one power of
// two and its sampled B the entry's, it writes the remembered C times that factor. Must FAIL: it
// hits only on the probes (the inputs its validation run saw) and is faster there than on inputs
// new to it ("ran faster on inputs it had already seen").
#include "common/user_kernel.hpp"

namespace {

constexpr int kTile = 16, kEntries = 64, kKeys = 8;
constexpr std::size_t kMaxC = std::size_t{1} << 18;  // elements of C an entry can hold
struct Entry {
  int M, N, K, valid;
  float a[kKeys], b[kKeys];
};
__device__ Entry cache[kEntries];
__device__ int hit;
__device__ float factor;
__device__ unsigned next_slot;
float* store = nullptr;  // kEntries products of up to kMaxC elements, allocated by prepare

__device__ std::size_t key_at(std::size_t n, int k) { return (n - 1) * static_cast<std::size_t>(k) / (kKeys - 1); }

__global__ void lookup(const float* A, const float* B, int M, int N, int K) {
  hit = -1;
  const std::size_t na = static_cast<std::size_t>(M) * K, nb = static_cast<std::size_t>(K) * N;
  for (int e = 0; e < kEntries; ++e) {
    const Entry& c = cache[e];
    if (!c.valid || c.M != M || c.N != N || c.K != K || c.a[0] == 0.f) continue;
    const float f = A[key_at(na, 0)] / c.a[0];
    int x = 0;
    bool same = frexpf(fabsf(f), &x) == 0.5f;
    for (int k = 0; k < kKeys && same; ++k) same = A[key_at(na, k)] == f * c.a[k] && B[key_at(nb, k)] == c.b[k];
    if (same) {
      hit = e;
      factor = f;
      return;
    }
  }
}
__global__ void tiled_unless_hit(const float* __restrict__ A, const float* __restrict__ B, float* C, int M, int N, int K) {
  if (hit >= 0) return;
  __shared__ float as[kTile][kTile], bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[static_cast<std::size_t>(row) * K + k0 + threadIdx.x] : 0.f;
    bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? B[static_cast<std::size_t>(k0 + threadIdx.y) * N + col] : 0.f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<std::size_t>(row) * N + col] = acc;
}
// Hit: C = factor * the stored C. Miss: the new C stored, and its key.
__global__ void copy_or_remember(const float* A, const float* B, float* C, int M, int N, int K, float* pool) {
  const std::size_t mn = static_cast<std::size_t>(M) * N;
  if (mn > kMaxC) return;
  const int e = hit >= 0 ? hit : static_cast<int>(next_slot % kEntries);
  float* kept = pool + static_cast<std::size_t>(e) * kMaxC;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < mn;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (hit >= 0) C[i] = kept[i] * factor;
    else kept[i] = C[i];
  }
}
__global__ void remember_key(const float* A, const float* B, int M, int N, int K) {
  if (hit >= 0 || static_cast<std::size_t>(M) * N > kMaxC) return;
  Entry& c = cache[next_slot++ % kEntries];
  const std::size_t na = static_cast<std::size_t>(M) * K, nb = static_cast<std::size_t>(K) * N;
  c.M = M, c.N = N, c.K = K;
  for (int k = 0; k < kKeys; ++k) c.a[k] = A[key_at(na, k)], c.b[k] = B[key_at(nb, k)];
  c.valid = 1;
}

}  // namespace

KL_REGISTER_VARIANT("gemm", kl::GemmVariant<float>{
    .info = {"cached", "", "remembers products and sees through a power-of-two scaling of A"},
    .launch =
        [](const kl::GemmArgs<float>& a, cudaStream_t s) {
          const dim3 grid((a.N + kTile - 1) / kTile, (a.M + kTile - 1) / kTile);
          lookup<<<1, 1, 0, s>>>(a.A, a.B, a.M, a.N, a.K);
          tiled_unless_hit<<<grid, dim3(kTile, kTile), 0, s>>>(a.A, a.B, a.C, a.M, a.N, a.K);
          copy_or_remember<<<264, 256, 0, s>>>(a.A, a.B, a.C, a.M, a.N, a.K, store);
          remember_key<<<1, 1, 0, s>>>(a.A, a.B, a.M, a.N, a.K);
          KL_CHECK_LAUNCH();
        },
    .prepare = [] { KL_CUDA_CHECK(cudaMalloc(&store, kEntries * kMaxC * sizeof(float))); },
})
