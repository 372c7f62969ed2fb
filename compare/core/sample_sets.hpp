// The input sets of one timed phase (README, "Method"): every timed sample runs on inputs of its
// own, so nothing a variant keeps between launches can stand in for the work.
//
//   fresh sample   a set drawn on the device from the sample's own seed (never a transform of
//                  another sample's inputs), outside the timed window, into extra slot 1 + f mod K
//                  (f: the samples so far, K up to kSlots where memory allows): no two samples in
//                  a row share an address, and a slot is drawn again before every use;
//   probe sample   the loaded inputs (which the variant's validation run saw) copied into the next
//                  slot of the same rotation: an honest variant takes as long on them as on fresh
//                  ones, one that keeps results does not.
//
// The last sample (taken after the stop rule said stop) is always a probe, so the last-run check
// validates a timed output against the loaded inputs' reference. Probes never count in the
// reported time. A submission's phase also has probes among its first samples and keeps every
// sample's output in a ring of snapshots (memory permitting), so samples chosen after the phase
// can be validated: the probes against the loaded reference, fresh ones against the reference of
// their own seed. Seeds come from a secret root (drawn per phase from the system's random source,
// or from --seed) that never leaves this process.
#pragma once

#include "compare/core/device_memory.hpp"
#include "compare/core/problem.hpp"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kl {

class SampleSets {
 public:
  static constexpr std::size_t kSlots = 4;

  struct Options {
    std::uint64_t root = 0;           // the seeds' secret root
    std::size_t probes = 0;           // probes drawn among samples [2, probe_window), besides the last
    std::size_t probe_window = 0;
    std::size_t ring = 0;             // snapshots to keep (0: none); fewer where memory is short
    std::function<void(cudaStream_t, int pattern)> poison;  // the output and workspace
    std::function<void()> sync;                              // waits for the runner's stream
  };

  SampleSets(Problem& problem, Options opt);
  ~SampleSets();
  SampleSets(const SampleSets&) = delete;
  SampleSets& operator=(const SampleSets&) = delete;

  // Before sample j (warm-ups: j < 0; `last`: the final probe): the set drawn (or the loaded inputs
  // put back), the arguments pointed at it, the output and workspace poisoned. Returns the slot.
  std::size_t prepare(cudaStream_t s, long long j, bool last);
  // After sample j: its output copied into the ring (where one is kept).
  void keep(cudaStream_t s, long long j);
  // After the phase (synchronised): what the samples changed in the sets' inputs ("" if nothing);
  // the slots freed, the loaded inputs in use again.
  std::string finish(cudaStream_t s);

  std::size_t slots() const { return slots_; }  // extra slots (0: every set drawn into slot 0)
  bool probe(long long j) const { return j >= 0 && static_cast<std::size_t>(j) < probe_.size() && probe_[j]; }
  std::uint64_t seed(long long j) const;

  // The samples whose outputs the ring still holds, oldest first.
  std::vector<long long> held() const;
  // Copies sample j's kept output into the problem's output buffer (synchronous).
  void restore_output(long long j) const;

  // The reported samples: the fresh ones of `all`, in order.
  std::vector<double> fresh_samples(const std::vector<double>& all) const;
  std::vector<double> probe_samples(const std::vector<double>& all) const;

 private:
  Problem& problem_;
  Options opt_;
  std::size_t slots_ = 0;
  std::size_t turn_ = 0;          // samples so far (warm-ups included): the slot rotation
  bool slot0_drawn_ = false;      // slot 0 holds a drawn set, not the loaded inputs
  std::vector<bool> probe_;       // by sample
  std::vector<std::size_t> probe_at_;  // the positions drawn for probes among the first samples
  DeviceArray<unsigned char> ring_;
  std::size_t ring_slots_ = 0, out_bytes_ = 0;
  std::vector<long long> ring_sample_;  // which sample each ring slot holds (-1: none)
  int pattern_ = 0;
};

// A secret 64-bit root for a phase's seeds: the system's random source, or derived from `seed`
// where the run fixed one (--seed: reproducible).
std::uint64_t sample_root(const std::uint64_t* fixed_seed, std::uint64_t salt);

}  // namespace kl
