// How many slices of k pay for gemm_auto's small float step (gemm10 64×64×16, 4 stages, four
// blocks per SM): every split count from 1 to 16 (each distinct count of used slices once)
// at products whose 128² tiles are short of two waves, against cublasSgemm, beside the counts
// gemm_plan::splitk_splits_for ("fill": the resident blocks) and gemm_plan::splitk_splits_modeled
// ("model": gemm_auto's time model) pick on this GPU. Standalone:
//   nvcc -std=c++17 -O3 -I. -arch=sm_90 scripts/trials/splitk_trial.cu -lcublas -o /tmp/splitk_trial
//   /tmp/splitk_trial [MxNxK ...]     (default: the shapes the model was fitted on,
//                                     results/h100/session33/splitk_trial.log; `check`: 14 others,
//                                     splitk_trial_check.log)
// Timing as compare does it (trial::FlushTimer: L2 emptied before each sample, CUDA events, the
// median of 60). Inputs are integers in [-4, 4], so every summation order is exact: each split
// count's C must equal cuBLAS's bit for bit, before and after its timed launches.
#include "handwritten/gemm/gemm10_swizzled.cuh"
#include "handwritten/gemm/gemm_plan.hpp"
#include "scripts/trials/trial_common.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace kl;
using namespace trial;

namespace {

constexpr int BM = 64, BN = 64, BK = 16;
void launch(const GemmArgs<float>& g, int splits, cudaStream_t s) {
  gemm10::launch_split<float, BM, BN, BK, 32, 32, 4, 8, 4>(g, splits, s);
}

struct Shape {
  int M, N, K;
};

void run(Shape sh, int sms, FlushTimer& tm) {
  const std::size_t nA = std::size_t(sh.M) * sh.K, nB = std::size_t(sh.K) * sh.N, nC = std::size_t(sh.M) * sh.N;
  ProductBuffers buf(nA, nB, nC, 1);
  std::mt19937 rng(sh.M * 131 + sh.N * 7 + sh.K);
  std::vector<float> hA(nA), hB(nB), hRef(nC);
  fill_inputs(hA, true, rng);
  fill_inputs(hB, true, rng);
  CK(cudaMemcpy(buf.A, hA.data(), nA * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(buf.B, hB.data(), nB * 4, cudaMemcpyHostToDevice));
  const double t_lib = tm.median_us([&] { cublas_gemm(buf.A, buf.B, buf.Cref, sh.M, sh.N, sh.K, nullptr); });
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hRef.data(), buf.Cref, nC * 4, cudaMemcpyDeviceToHost));

  const GemmShape gs{sh.M, sh.N, sh.K};
  const long long tiles = gemm_plan::tiles_of(gs, BM, BN);
  const int fill = gemm_plan::used_splits(sh.K, gemm_plan::splitk_splits(gs, BM, BN, BK, 4, sms), BK);
  const int model = gemm_plan::used_splits(sh.K, gemm_plan::splitk_splits_modeled(gs, BM, BN, BK, 4, sms, 4), BK);
  std::printf("\n## float %dx%dx%d: %lld tiles of 64²; cublas_gemm %.2f us; on %d SMs the fill rule uses %d slices, the model %d\n",
              sh.M, sh.N, sh.K, tiles, t_lib, sms, fill, model);
  std::printf("%6s %6s %9s %8s %7s %8s %s\n", "splits", "k/slice", "us", "vs lib", "blocks", "model us", "check");
  void* ws = nullptr;
  CK(cudaMalloc(&ws, gemm_plan::splitk_workspace(gs, 16, BK, 4) + 16));
  int last_used = 0;
  for (int s = 1; s <= gemm_plan::kMaxSplits; ++s) {
    const int used = gemm_plan::used_splits(sh.K, s, BK);
    if (used == last_used) continue;
    last_used = used;
    const GemmArgs<float> g{buf.A, buf.B, buf.C[0], sh.M, sh.N, sh.K, ws};
    const CheckedTime r = checked_median_us(tm, [&] { launch(g, s, nullptr); }, buf.C[0], hRef);
    std::printf("%6d %6d %9.2f %7.1f%% %7lld %8.1f %s%s%s\n", used, gemm_plan::k_per_split(sh.K, s, BK), r.us,
                100.0 * t_lib / r.us, tiles * used, gemm_plan::splitk_model_us(gs, BM, BN, BK, s, 4, sms, 4),
                r.exact ? "exact" : "FAIL", used == fill ? "  <- fill" : "", used == model ? "  <- model" : "");
  }
  CK(cudaFree(ws));
  std::printf("cublas_gemm again: %.2f us\n", tm.median_us([&] { cublas_gemm(buf.A, buf.B, buf.Cref, sh.M, sh.N, sh.K, nullptr); }));
}

}  // namespace

int main(int argc, char** argv) {
  const int sms = begin_trial(300).multiProcessorCount;
  gemm10::prepare<float, BM, BN, BK, 32, 32, 4, 8, 4>();
  std::vector<Shape> shapes;
  for (int i = 1; i < argc && std::strcmp(argv[1], "check") != 0; ++i) {
    Shape s{};
    if (std::sscanf(argv[i], "%dx%dx%d", &s.M, &s.N, &s.K) != 3 || s.M < 1 || s.N < 1 || s.K < 1) {
      std::printf("splitk_trial: '%s' is not MxNxK\n", argv[i]);
      return 2;
    }
    shapes.push_back(s);
  }
  if (argc == 2 && std::strcmp(argv[1], "check") == 0)  // not the fitting set
    shapes = {{384, 640, 300},   {200, 900, 2000}, {1500, 300, 700},  {1000, 700, 120},   {333, 777, 1111},
              {97, 513, 3001},   {640, 640, 640},  {1200, 1200, 200}, {450, 450, 4500},   {800, 300, 3000},
              {1100, 900, 900},  {250, 1500, 400}, {60, 2000, 1000},  {3000, 200, 300}};
  if (shapes.empty())
    shapes = {{513, 257, 129},  {513, 257, 257},  {513, 257, 513}, {513, 257, 1025}, {257, 257, 2049},
              {300, 200, 1000}, {129, 129, 4097}, {700, 600, 200}, {700, 600, 600},  {1000, 1000, 300},
              {1000, 1000, 1000}, {2000, 1000, 500}};
  FlushTimer tm;
  for (const Shape& s : shapes) run(s, sms, tm);
  return 0;
}
