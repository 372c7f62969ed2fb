// Seeded random inputs. Fast (splitmix64, one call per element) because the default problem
// has 2^28 elements; values are never all zeros or ones:
//   int:          uniform in [-1000, -1] ∪ [1, 1000] (never 0, so a dropped element always
//                 changes an integer sum)
//   float/double: uniform in [-1, 1)
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

namespace kl {

class SplitMix64 {
 public:
  static constexpr std::uint64_t kIncrement = 0x9e3779b97f4a7c15ull;
  explicit SplitMix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += kIncrement);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

// Element i draws the (i + 1)-th number of SplitMix64(seed): the generator's state is a counter,
// so chunks start at seed + i·increment and large inputs fill on every core, with the same values
// a single thread would draw.
template <class T>
void fill_random(T* dst, std::size_t n, std::uint64_t seed) {
  auto fill = [&](std::size_t lo, std::size_t hi) {
    SplitMix64 g(seed + static_cast<std::uint64_t>(lo) * SplitMix64::kIncrement);
    for (std::size_t i = lo; i < hi; ++i) {
      if constexpr (std::is_integral_v<T>) {
        const std::uint64_t r = g.next();
        const auto mag = static_cast<std::int64_t>(1 + r % 1000);
        dst[i] = static_cast<T>((r >> 40) & 1 ? mag : -mag);
      } else {
        dst[i] = static_cast<T>(2.0 * g.uniform01() - 1.0);
      }
    }
  };
  constexpr std::size_t kMinChunk = std::size_t{1} << 20;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::max<std::size_t>(1, std::min(cores, n / kMinChunk));
  std::vector<std::thread> threads;
  for (std::size_t c = 1; c < chunks; ++c) threads.emplace_back(fill, n * c / chunks, n * (c + 1) / chunks);
  fill(0, n / chunks);
  for (auto& t : threads) t.join();
}

// A fresh seed for every problem and check unless the user fixed one (--seed).
inline std::uint64_t fresh_seed() { return (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}(); }

}  // namespace kl
