// The reduce family's problem: inputs, fp64 reference, poison, validation, metric.
// Used by compare/family_reduce.cpp and by the GPU suite (which adds broken variants to prove
// that the validation can fail).
#pragma once

#include "common/cuda_check.hpp"
#include "compare/device_memory.hpp"
#include "compare/execute.hpp"
#include "compare/random.hpp"
#include "compare/reference.hpp"

#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kl {

template <class T>
class ReduceProblem final : public Problem {
 public:
  ReduceProblem(std::size_t n, std::uint64_t seed, bool end_to_end, double copy_gbps)
      : n_(n), host_(n), in_(n), out_(1), copy_gbps_(copy_gbps) {
    fill_random(host_.data(), n, seed);
    ref_ = reference_sum(host_.data(), n);
    KL_CUDA_CHECK(cudaMemcpy(in_.get(), host_.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    if (end_to_end) {
      pinned_ = PinnedArray<T>(n);
      std::memcpy(pinned_.get(), host_.data(), n * sizeof(T));
      pinned_out_ = PinnedArray<T>(1);
    }
    if constexpr (std::is_integral_v<T>) poison_value_ = ~wrap_int32(ref_.exact_int);
    else poison_value_ = std::numeric_limits<T>::quiet_NaN();
  }

  const T* in() const { return in_.get(); }
  T* out() const { return out_.get(); }

  void poison(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemcpyAsync(out_.get(), &poison_value_, sizeof(T), cudaMemcpyHostToDevice, s));
  }

  Check validate(const Candidate& c) override {
    const T got = download();
    CheckAccumulator acc;
    if constexpr (std::is_integral_v<T>) acc.add(0, got, wrap_int32(ref_.exact_int), 0);
    else acc.add(0, got, ref_.sum, bound(c));
    return acc.finish();
  }

  void keep_as_library(const Candidate& c) override {
    lib_value_ = download();
    lib_bound_ = bound(c);
    has_lib_ = true;
  }
  bool has_library_output() const override { return has_lib_; }

  Check cross_check(const Candidate& c) override {
    CheckAccumulator acc;
    acc.add(0, download(), lib_value_, std::is_integral_v<T> ? 0.0 : bound(c) + lib_bound_);
    return acc.finish();
  }

  void copy_inputs_to_device(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemcpyAsync(in_.get(), pinned_.get(), n_ * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  void copy_outputs_to_host(cudaStream_t s) override {
    KL_CUDA_CHECK(cudaMemcpyAsync(pinned_out_.get(), out_.get(), sizeof(T), cudaMemcpyDeviceToHost, s));
  }
  double work() const override { return static_cast<double>((n_ + 1) * sizeof(T)); }
  double ceiling() const override { return copy_gbps_; }
  std::string ceiling_name() const override {
    char b[64];
    std::snprintf(b, sizeof b, "d2d copy %.0f GB/s (measured)", copy_gbps_);
    return b;
  }

 private:
  T download() const {
    T v{};
    KL_CUDA_CHECK(cudaMemcpy(&v, out_.get(), sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  double bound(const Candidate& c) const { return sum_bound(ref_, c.rounding_depth, unit_roundoff<T>()); }

  std::size_t n_;
  std::vector<T> host_;
  SumReference ref_;
  DeviceArray<T> in_, out_;
  PinnedArray<T> pinned_, pinned_out_;
  T poison_value_{};
  T lib_value_{};
  double lib_bound_ = 0;
  bool has_lib_ = false;
  double copy_gbps_;
};

}  // namespace kl
