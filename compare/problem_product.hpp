// The product families' problem (gemm: C = A·B; aat: C = A·Aᵀ): inputs, fp64 reference
// (host, or GPU above kHostRefMacs), poison, per-element validation, metric. Used by
// compare/family_product.cpp and by the GPU suite.
#pragma once

#include "common/cuda_check.hpp"
#include "compare/device_memory.hpp"
#include "compare/execute.hpp"
#include "compare/random.hpp"
#include "compare/reference.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kl {

// Above this many multiply-adds the reference is computed on the GPU.
inline constexpr double kHostRefMacs = 1 << 25;

// Which product: gemm reads B (K×N); aat reads A twice, the second time as Aᵀ.
enum class ProductKind { gemm, aat };

template <class T>
class ProductProblem final : public Problem {
 public:
  ProductProblem(ProductKind kind, int M, int N, int K, std::uint64_t seed, bool end_to_end,
                 const DeviceInfo& dev)
      : kind_(kind), M_(M), N_(N), K_(K), mn_(static_cast<std::size_t>(M) * N),
        hA_(static_cast<std::size_t>(M) * K), dA_(hA_.size()), dC_(mn_), dev_(dev) {
    fill_random(hA_.data(), hA_.size(), seed);
    KL_CUDA_CHECK(cudaMemcpy(dA_.get(), hA_.data(), hA_.size() * sizeof(T), cudaMemcpyHostToDevice));
    if (kind == ProductKind::gemm) {
      hB_.resize(static_cast<std::size_t>(K) * N);
      fill_random(hB_.data(), hB_.size(), seed ^ 0x5bd1e995u);
      dB_ = DeviceArray<T>(hB_.size());
      KL_CUDA_CHECK(cudaMemcpy(dB_.get(), hB_.data(), hB_.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    compute_reference();
    const double g64 = gamma_bound(K, unit_roundoff<double>());
    // Kernel error + reference error, scaled by the computed |A|·|B| (itself within g64).
    bound_scale_ = (gamma_bound(K, unit_roundoff<T>()) + g64) / (1 - g64);
    cross_scale_ = 2 * gamma_bound(K, unit_roundoff<T>()) / (1 - g64);
    if (end_to_end) {
      pA_ = PinnedArray<T>(hA_.size());
      std::memcpy(pA_.get(), hA_.data(), hA_.size() * sizeof(T));
      if (kind == ProductKind::gemm) {
        pB_ = PinnedArray<T>(hB_.size());
        std::memcpy(pB_.get(), hB_.data(), hB_.size() * sizeof(T));
      }
      pC_ = PinnedArray<T>(mn_);
    }
  }

  const T* A() const { return dA_.get(); }
  const T* B() const { return dB_.get(); }
  T* C() const { return dC_.get(); }

  void poison(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemsetAsync(dC_.get(), 0xff, mn_ * sizeof(T), s));  // all-ones bits: NaN
  }

  Check validate(const Candidate&) override {
    download(got_);
    CheckAccumulator acc;
    for (std::size_t i = 0; i < mn_; ++i) acc.add(i, got_[i], ref_[i], bound_scale_ * abs_[i]);
    return acc.finish();
  }
  void keep_as_library(const Candidate&) override {
    download(lib_);
    has_lib_ = true;
  }
  bool has_library_output() const override { return has_lib_; }
  Check cross_check(const Candidate&) override {
    download(got_);
    CheckAccumulator acc;
    for (std::size_t i = 0; i < mn_; ++i) acc.add(i, got_[i], lib_[i], cross_scale_ * abs_[i]);
    return acc.finish();
  }

  void copy_inputs_to_device(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemcpyAsync(dA_.get(), pA_.get(), hA_.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    if (kind_ == ProductKind::gemm)
      KL_CUDA_CHECK(cudaMemcpyAsync(dB_.get(), pB_.get(), hB_.size() * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void copy_outputs_to_host(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemcpyAsync(pC_.get(), dC_.get(), mn_ * sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  double work() const override { return 2.0 * M_ * static_cast<double>(N_) * K_; }
  double ceiling() const override {
    return std::is_same_v<T, float> ? dev_.fp32_tflops_peak : dev_.fp64_tflops_peak;
  }
  std::string ceiling_name() const override {
    char b[96];
    std::snprintf(b, sizeof b, "%s FMA peak %.1f TFLOP/s (%d lanes/SM x %d SMs x %.0f MHz)",
                  std::is_same_v<T, float> ? "FP32" : "FP64", ceiling(),
                  std::is_same_v<T, float> ? dev_.fp32_lanes_per_sm : dev_.fp64_lanes_per_sm,
                  dev_.sm_count, dev_.sm_clock_mhz);
    return b;
  }

 private:
  // b(k, j): B[k*N + j] for gemm; A[j*K + k] for aat.
  std::size_t sb_k() const { return kind_ == ProductKind::gemm ? static_cast<std::size_t>(N_) : 1; }
  std::size_t sb_j() const { return kind_ == ProductKind::gemm ? 1 : static_cast<std::size_t>(K_); }

  void compute_reference() {
    ref_.resize(mn_);
    abs_.resize(mn_);
    const T* hb = kind_ == ProductKind::gemm ? hB_.data() : hA_.data();
    if (static_cast<double>(M_) * N_ * K_ <= kHostRefMacs) {
      reference_product_host(hA_.data(), K_, 1, hb, sb_k(), sb_j(), M_, N_, K_, ref_.data(), abs_.data());
      return;
    }
    DeviceArray<double> dref(mn_), dabs(mn_);
    const T* db = kind_ == ProductKind::gemm ? dB_.get() : dA_.get();
    reference_product_device(dA_.get(), K_, 1, db, sb_k(), sb_j(), M_, N_, K_, dref.get(), dabs.get(), nullptr);
    KL_CUDA_CHECK(cudaMemcpy(ref_.data(), dref.get(), mn_ * sizeof(double), cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(abs_.data(), dabs.get(), mn_ * sizeof(double), cudaMemcpyDeviceToHost));
  }
  void download(std::vector<T>& dst) const {
    dst.resize(mn_);
    KL_CUDA_CHECK(cudaMemcpy(dst.data(), dC_.get(), mn_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

  ProductKind kind_;
  int M_, N_, K_;
  std::size_t mn_;
  std::vector<T> hA_, hB_, got_, lib_;
  std::vector<double> ref_, abs_;
  DeviceArray<T> dA_, dB_, dC_;
  PinnedArray<T> pA_, pB_, pC_;
  double bound_scale_ = 0, cross_scale_ = 0;
  bool has_lib_ = false;
  const DeviceInfo& dev_;
};

}  // namespace kl
