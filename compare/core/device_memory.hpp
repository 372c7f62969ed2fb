// RAII owners for the runner's buffers (never used by kernels or launchers).
#pragma once

#include "common/cuda_check.hpp"

#include <cstddef>
#include <utility>

namespace kl {

struct DeviceAlloc {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    KL_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

// Page-locked host memory, used only in end-to-end mode so the host->device copies run at
// full link speed and asynchronously on the timing stream.
struct PinnedAlloc {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    KL_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

template <class T, class Alloc>
class OwnedArray {
 public:
  OwnedArray() = default;
  explicit OwnedArray(std::size_t n) : n_(n) {
    if (n) p_ = static_cast<T*>(Alloc::allocate(n * sizeof(T)));
  }
  ~OwnedArray() { Alloc::release(p_); }
  OwnedArray(OwnedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  OwnedArray& operator=(OwnedArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T> using DeviceArray = OwnedArray<T, DeviceAlloc>;
template <class T> using PinnedArray = OwnedArray<T, PinnedAlloc>;

}  // namespace kl
