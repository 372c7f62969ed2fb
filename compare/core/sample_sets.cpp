#include "compare/core/sample_sets.hpp"

#include "common/cuda_check.hpp"
#include "compare/core/random.hpp"

#include <algorithm>
#include <numeric>

namespace kl {

std::uint64_t sample_root(const std::uint64_t* fixed_seed, std::uint64_t salt) {
  if (fixed_seed) return SplitMix64(*fixed_seed ^ 0x7a3c5e1f9b2d4a68ull ^ (salt * SplitMix64::kIncrement)).next();
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

SampleSets::SampleSets(Problem& problem, Options opt) : problem_(problem), opt_(std::move(opt)) {
  if (problem_.has_sets()) slots_ = problem_.prepare_sets(kSlots);
  // The probes among the first samples: positions only this process knows.
  if (opt_.probes && opt_.probe_window > 2) {
    std::vector<std::size_t> pos(opt_.probe_window - 2);
    std::iota(pos.begin(), pos.end(), std::size_t{2});
    std::mt19937_64 g(SplitMix64(opt_.root ^ 0x3c6ef372fe94f82bull).next());
    std::shuffle(pos.begin(), pos.end(), g);
    pos.resize(std::min(opt_.probes, pos.size()));
    probe_at_ = pos;
  }
  out_bytes_ = problem_.output_region().bytes;
  if (opt_.ring && out_bytes_) {
    std::size_t free = 0, total = 0;
    KL_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const std::size_t budget = std::min(free / 4, std::size_t{4} << 30);
    ring_slots_ = std::min(opt_.ring, budget / out_bytes_);
    if (ring_slots_) ring_ = DeviceArray<unsigned char>(ring_slots_ * out_bytes_);
    ring_sample_.assign(ring_slots_, -1);
  }
}

SampleSets::~SampleSets() = default;

std::uint64_t SampleSets::seed(long long j) const {
  return SplitMix64(opt_.root + static_cast<std::uint64_t>(j) * 0x632be59bd9b4e019ull).next();
}

std::size_t SampleSets::prepare(cudaStream_t s, long long j, bool last) {
  const bool is_probe =
      last || (j >= 0 && std::find(probe_at_.begin(), probe_at_.end(), static_cast<std::size_t>(j)) != probe_at_.end());
  if (j >= 0) {
    if (probe_.size() <= static_cast<std::size_t>(j)) probe_.resize(static_cast<std::size_t>(j) + 1, false);
    probe_[static_cast<std::size_t>(j)] = is_probe;
  }
  std::size_t slot = 0;
  if (problem_.has_sets()) {
    slot = slots_ ? 1 + turn_++ % slots_ : 0;
    if (is_probe) {
      if (slot != 0 || slot0_drawn_) problem_.copy_loaded(slot, s);
      if (slot == 0) slot0_drawn_ = false;
    } else {
      problem_.fill_set(slot, seed(j), s);
      if (slot == 0) slot0_drawn_ = true;
    }
  }
  problem_.use_set(slot);
  if (opt_.poison) opt_.poison(s, pattern_++ & 1);
  return slot;
}

void SampleSets::keep(cudaStream_t s, long long j) {
  if (!ring_slots_ || j < 0) return;
  const std::size_t k = static_cast<std::size_t>(j) % ring_slots_;
  KL_CUDA_CHECK(cudaMemcpyAsync(ring_.get() + k * out_bytes_, problem_.output_region().ptr, out_bytes_,
                                cudaMemcpyDeviceToDevice, s));
  ring_sample_[k] = j;
}

std::string SampleSets::finish(cudaStream_t s) {
  if (opt_.sync) opt_.sync();
  std::string damage = problem_.has_sets() ? problem_.release_sets() : std::string();
  if (slot0_drawn_) problem_.copy_loaded(0, s);
  slot0_drawn_ = false;
  problem_.use_set(0);
  if (opt_.sync) opt_.sync();
  return damage;
}

std::vector<long long> SampleSets::held() const {
  std::vector<long long> h;
  for (long long j : ring_sample_)
    if (j >= 0) h.push_back(j);
  std::sort(h.begin(), h.end());
  return h;
}

void SampleSets::restore_output(long long j) const {
  for (std::size_t k = 0; k < ring_slots_; ++k)
    if (ring_sample_[k] == j) {
      KL_CUDA_CHECK(cudaMemcpy(problem_.output_region().ptr, ring_.get() + k * out_bytes_, out_bytes_,
                               cudaMemcpyDeviceToDevice));
      return;
    }
  throw std::logic_error("sample " + std::to_string(j) + " is not in the ring");
}

std::vector<double> SampleSets::fresh_samples(const std::vector<double>& all) const {
  std::vector<double> f;
  for (std::size_t j = 0; j < all.size(); ++j)
    if (!probe(static_cast<long long>(j))) f.push_back(all[j]);
  return f;
}

std::vector<double> SampleSets::probe_samples(const std::vector<double>& all) const {
  std::vector<double> p;
  for (std::size_t j = 0; j < all.size(); ++j)
    if (probe(static_cast<long long>(j))) p.push_back(all[j]);
  return p;
}

}  // namespace kl
