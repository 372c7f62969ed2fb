// One problem (family × type × size × axis values) as the runner core sees it: its inputs, its
// checked output, its reference and bound, its metric. A family fills in only what is its own
// (which inputs, how to make them, the reference and its scale); everything else is here once:
//
//   Input<T>           host values, their device copy, a pinned copy for end-to-end timing
//   CheckedOutput<T>   the device output, its fp64 reference, the per-element bound
//                      (factor·scale_i + slack_i, the factor from the variant's rounding depth),
//                      poison, the library's output kept for cross-checks, a pinned host buffer
//   ProblemBase<T>     the Problem interface over those, for a family to derive from
//
// Two input sets per problem. InputKind::random: values drawn fresh, checked against the error
// bound (what catches a wrong precision or order). InputKind::exact: integer values small enough
// that every partial sum is exactly representable in any order (CUTLASS's tests do the same),
// checked for equality: a dropped, duplicated or misplaced term, an off-by-one k or a missing
// tail changes the result, however large the bound of the random check has grown.
#pragma once

#include "common/cuda_check.hpp"
#include "compare/core/device_memory.hpp"
#include "compare/core/dtype.hpp"
#include "compare/core/family.hpp"
#include "compare/core/random.hpp"
#include "compare/core/tolerance.hpp"
#include "compare/report/row.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kl {

enum class InputKind { random, exact };

class RemoteLaunch;  // compare/core/remote_launch.hpp

// A variant bound to one problem's buffers.
struct Candidate {
  VariantListing info;
  std::string unsupported;    // non-empty: why the variant cannot run this problem (skipped)
  std::string setup_error;    // non-empty: a hook threw while sizing this problem (error row)
  std::string refused;        // non-empty: it broke the contract before any launch (fail row)
  std::size_t workspace_bytes = 0;
  void (*prepare)() = nullptr;
  // The variant's tune hook bound to this problem's arguments (Variant::tune), or empty.
  std::function<void(void* workspace, cudaStream_t, const Measure&)> tune;
  double rounding_depth = 0;  // the bound's summation depth for this size
  double work = 0;            // what the variant does, in the metric's work unit (0: the family's)
  std::string error_model;    // the variant's declared error model (Variant::error_model), if any
  // Whether the launch is checked to stay on its stream (captured and replayed, execute.cpp):
  // hand-written variants yes; library baselines that synchronise by design (thrust::reduce
  // returns its value to the host) and families whose operation spans several GPUs' streams no.
  bool check_stream = false;
  std::string remark;         // a slow path on this GPU (requirements.hpp: slow_note): added to the row's note, slow_path set
  std::function<void(void* workspace, cudaStream_t)> launch;
  // Operations one launch performs (allreduce's --ops N: N back to back in one graph); the row's
  // times are per operation, each sample divided by it.
  int ops_per_launch = 1;
  // Set for a submission's variant: its code runs in its sandbox process, never in this one
  // (launch is then unused), and it is judged by the submission rules (README, "Method").
  std::shared_ptr<RemoteLaunch> remote;
};

class Problem {
 public:
  virtual ~Problem() = default;
  // Whether the problem has an exact input set (floating-point sums; integer types and families
  // whose random check is already exact need none).
  virtual bool has_exact_inputs() const = 0;
  // Makes inputs of `kind` from `seed`, uploads them, computes their reference; forgets any
  // library output kept for the previous inputs.
  virtual void load_inputs(InputKind kind, std::uint64_t seed) = 0;
  // The inputs of load_inputs(kind, seed) on the device, without the reference: what a variant's
  // tune hook measures on before any validation (execute.cpp, tune_phase). Nothing may be
  // validated until the next load_inputs.
  virtual void load_inputs_only(InputKind kind, std::uint64_t seed) { load_inputs(kind, seed); }
  // Fills the outputs with values a correct run must overwrite. Pattern 0: NaN (for integers a
  // value no element of the answer holds); pattern 1: a finite value no answer holds (0x7f bytes:
  // 3.4e38 in float, 1.4e306 in double; another clash-free integer), so a kernel that skips its
  // work when its output "looks done" (not NaN) is caught on the runs that use it.
  virtual void poison(cudaStream_t s, int pattern) = 0;
  // After a run that has finished: how the run damaged the guard bands before and after the
  // output (a write before its start or past its end), "" when they are intact; the bands are
  // restored for the next run.
  virtual std::string guard_damage() { return {}; }
  // After a run that has finished: how the run changed its inputs or the guard bands around them
  // (inputs are read-only), "" when they are intact. What changed is restored from a pristine
  // copy, so no run's writes can change what the next variant reads.
  virtual std::string input_damage() { return {}; }
  // The device regions of the inputs (of the slot in use) and of the output: what a submission's
  // launch arguments may point into (compare/sandbox/), and where a sample's output is kept from.
  struct Region {
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };
  virtual std::vector<Region> input_regions() const { return {}; }
  virtual Region output_region() const { return {}; }

  // ---- input sets: every timed sample runs on inputs of its own (execute.cpp, "timed samples") ----
  // Slot 0 holds the loaded inputs; slots 1..n hold sets drawn on the device, each a full copy of
  // the inputs with guard bands, at its own address. Makes room for up to `wanted` such slots
  // where device memory allows and returns how many it made: 0 where there is no room (then
  // fill_set draws into slot 0 itself, and copy_loaded puts the loaded inputs back), or where the
  // problem cannot draw its inputs at all (has_sets() false).
  virtual bool has_sets() const { return false; }
  virtual std::size_t prepare_sets(std::size_t /*wanted*/) { return 0; }
  // Fills slot `slot` with the random inputs of `seed` on the stream: the values load_inputs(
  // InputKind::random, seed) loads, so a sample's reference follows from its seed.
  virtual void fill_set(std::size_t /*slot*/, std::uint64_t /*seed*/, cudaStream_t) {}
  // Copies the loaded inputs into slot `slot` (0: back where they were loaded), on the stream.
  virtual void copy_loaded(std::size_t /*slot*/, cudaStream_t) {}
  // The slot the launch arguments point into from now on.
  virtual void use_set(std::size_t /*slot*/) {}
  // After a timed phase (synchronised): what the samples changed in the extra slots (their guard
  // bands, or the values of the last set each held, drawn again and compared), "" if nothing; the
  // slots are freed and slot 0 is in use again.
  virtual std::string release_sets() { return {}; }
  // The last validated output's error as sqrt(sum (got - ref)^2 / sum scale^2), and the kept
  // library output's, on the same inputs; the type's unit roundoff (0 for integers, and -1 where
  // the problem does not say). A submission's error many times the library's fails its row.
  virtual double error_rms() const { return -1; }
  virtual double library_error_rms() const { return -1; }
  virtual double unit_roundoff_of_type() const { return -1; }
  // New random inputs from `seed` in freshly allocated buffers at other addresses than the last
  // ones, and their reference (the re-check after timing: a result cached by pointer, or state
  // kept from an earlier run, fails there).
  virtual void load_fresh(std::uint64_t seed) { load_inputs(InputKind::random, seed); }
  // Reads the outputs back (after a synchronisation) and checks them against the reference.
  virtual Check validate(const Candidate& c) = 0;
  // Remembers the current outputs as the library baseline's, for cross-checks.
  virtual void keep_as_library(const Candidate& c) = 0;
  virtual bool has_library_output() const = 0;
  // Checks the current outputs against the kept library outputs (within both bounds).
  virtual Check cross_check(const Candidate& c) = 0;
  // End-to-end mode: the host<->device copies added around the operation.
  virtual void copy_inputs_to_device(cudaStream_t s) = 0;
  virtual void copy_outputs_to_host(cudaStream_t s) = 0;
  virtual Metric metric() const = 0;
};

// ---------------------------------------------------------------------------------------------
// Exact inputs.

// How to draw integer values for an exact check: |value| in [1, max_abs] with probability
// `density`, else 0. Chosen so that terms·max_abs^factors (the largest |partial sum| in any
// order) stays within 2^digits of the type: 2^24 for float, 2^53 for double. When even ±1 in
// every term would pass it (more than 2^24 float terms), values become sparse: the first and last
// kExactEdge elements stay nonzero (tails and block edges are where kernels go wrong), the rest
// nonzero with the density the budget allows. A dropped interior element is then seen with
// probability `density`; every dropped edge element, block or tail is seen.
struct ExactValues {
  int max_abs = 1;
  double density = 1;
};
inline constexpr std::size_t kExactEdge = 256;

template <class T>
constexpr int exact_digits() {
  return std::numeric_limits<T>::digits;  // 24 float, 53 double, 31 int
}

// Precision sentinels. The exact set also holds, where a family plants them, the integer
// ±(2^11 + 1) = ±2049 in float and ±(2^24 + 1) in double: exact in the type, but not in a narrower
// one (2049 needs 12 significant bits: TF32 and fp16 keep 11, bf16 8; 2^24 + 1 needs 25: float
// keeps 24), where it rounds to a neighbour. A kernel that converts the operand down (TF32 or bf16
// operands in a float product, float arithmetic in a double one) then misses by at least its
// partner's value and fails equality, at every size. One sentinel term per output is enough; the
// rest of the budget covers everything else (exact_values halves it when sentinels are planted).
template <class T>
constexpr double sentinel_value() {
  return sizeof(T) == 4 ? 2049.0 : 16777217.0;
}
// Where the sentinels go: every element whose index is a multiple of `every` (the first of each
// row of length `every`; `every` = n: element 0 alone), and the first `first` elements (a whole row).
struct Sentinels {
  std::size_t every = 0;
  std::size_t first = 0;
  bool at(std::size_t i) const { return (every && i % every == 0) || i < first; }
};

// For a sum of `terms` products of `factors` values each (1: plain sum; 2: dot, product, sum of
// squares). With factors = 2 and sparse values, make only one factor sparse. `sentinels`: half the
// budget is kept for one sentinel term per output (its value times the partner's at most
// max_abs, or a sentinel squared: 2^22 < 2^23 in float, 2^48 < 2^52 in double).
template <class T>
ExactValues exact_values(double terms, int factors = 1, bool sentinels = false) {
  const double budget = std::ldexp(1.0, exact_digits<T>() - (sentinels ? 1 : 0));
  const double m = std::floor(std::pow(budget / terms, 1.0 / factors));
  if (m >= 1) return {static_cast<int>(std::min(m, 1000.0)), 1.0};
  return {1, std::max(0.0, 0.9 * (budget - 2.0 * kExactEdge) / terms)};
}

template <class T>
void fill_exact(T* dst, std::size_t n, std::uint64_t seed, ExactValues v, Sentinels sentinels = {}) {
  SplitMix64 g(seed);
  const std::uint64_t span = static_cast<std::uint64_t>(v.max_abs);
  for (std::size_t i = 0; i < n; ++i) {
    const bool edge = i < kExactEdge || n - i <= kExactEdge;
    const bool nonzero = v.density >= 1 || edge || g.uniform01() < v.density;
    const std::uint64_t r = g.next();
    const bool negative = (r >> 40) & 1;
    if constexpr (!std::is_integral_v<T>) {
      if (sentinels.at(i)) {
        dst[i] = static_cast<T>(negative ? -sentinel_value<T>() : sentinel_value<T>());
        continue;
      }
    }
    const long long mag = static_cast<long long>(1 + r % span);
    dst[i] = nonzero ? static_cast<T>(negative ? -mag : mag) : T(0);
  }
}

// ---------------------------------------------------------------------------------------------

// Fills n elements at p with v on the stream (compare/core/device_fill.cu).
template <class T>
void fill_device(T* p, std::size_t n, T v, cudaStream_t s);

// Where one input's random values lie in its buffer: `rows` rows of `cols` values each, `pitch`
// elements apart, the elements from `cols` to `pitch` of each row holding `pad` (a pitched
// layout); a flat input is one row. The values are fill_random's for the packed rows.
struct RandomLayout {
  std::size_t rows = 1, cols = 0, pitch = 0;
  double pad = 0;
};
// fill_random(seed) of the layout's packed values, drawn on the device (compare/core/device_random.cu).
template <class T>
void fill_random_device(T* p, const RandomLayout& layout, std::uint64_t seed, cudaStream_t s);
// How many elements at p differ (bitwise) from what fill_random_device(layout, seed) writes;
// synchronous.
template <class T>
std::size_t random_mismatches(const T* p, const RandomLayout& layout, std::uint64_t seed);

// Guard bands. Every input, output and workspace buffer has kGuardBytes the kernel does not own
// before it and after it. Around an input they hold NaN (a large value for integers), so a read
// out of bounds poisons the result instead of reading zeros, and they are checked unchanged after
// every run (a memo kept there is a write to them); around an output or the workspace a byte
// pattern, checked after every validation run, so a write before the start or past the end fails
// its row with a count.
inline constexpr std::size_t kGuardBytes = 64 * 1024;
inline constexpr unsigned char kGuardByte = 0xa5;

// Counts the bytes where a and b differ (device memory, after a synchronisation): the check that
// a run left an input as it was loaded. compare/core/device_fill.cu.
std::size_t count_differences(const void* a, const void* b, std::size_t bytes);

// n elements of T with a guard band before and after; `lead` bytes before everything (a multiple
// of 256, so alignment is kept) make a fresh allocation's address differ from the last one's even
// where the allocator hands the same block back.
template <class T>
class GuardedArray {
 public:
  GuardedArray() = default;
  explicit GuardedArray(std::size_t n, std::size_t lead = 0)
      : n_(n), lead_(lead), mem_(lead + kGuardBytes + n * sizeof(T) + kGuardBytes) {}
  T* get() const { return n_ ? reinterpret_cast<T*>(mem_.get() + lead_ + kGuardBytes) : nullptr; }
  std::size_t size() const { return n_; }
  unsigned char* front_guard() const { return mem_.get() + lead_; }
  unsigned char* guard() const { return mem_.get() + lead_ + kGuardBytes + n_ * sizeof(T); }
  // The output/workspace pattern in both bands, on the stream.
  void arm_guard(cudaStream_t s) const {
    KL_CUDA_CHECK(cudaMemsetAsync(front_guard(), kGuardByte, kGuardBytes, s));
    KL_CUDA_CHECK(cudaMemsetAsync(guard(), kGuardByte, kGuardBytes, s));
  }
  // What a run changed in a guard band (after a synchronisation): one download per band.
  struct GuardChanges {
    std::size_t bytes = 0;                               // bytes that differ from the pattern
    std::size_t first = static_cast<std::size_t>(-1);  // after: the first changed element past the end
    std::size_t last = static_cast<std::size_t>(-1);   // before: the changed element nearest the start, counted back
  };
  static GuardChanges band_changes(const unsigned char* band, const unsigned char* expect, bool before) {
    std::vector<unsigned char> h(kGuardBytes);
    KL_CUDA_CHECK(cudaMemcpy(h.data(), band, kGuardBytes, cudaMemcpyDeviceToHost));
    GuardChanges c;
    for (std::size_t i = 0; i < h.size(); ++i)
      if (h[i] != (expect ? expect[i % sizeof(T)] : kGuardByte)) {
        ++c.bytes;
        if (!before && c.first == static_cast<std::size_t>(-1)) c.first = i / sizeof(T);
        if (before) c.last = (kGuardBytes - i + sizeof(T) - 1) / sizeof(T);
      }
    return c;
  }
  GuardChanges guard_changes(const unsigned char* expect = nullptr) const { return band_changes(guard(), expect, false); }
  GuardChanges front_guard_changes(const unsigned char* expect = nullptr) const {
    return band_changes(front_guard(), expect, true);
  }

 private:
  std::size_t n_ = 0, lead_ = 0;
  DeviceArray<unsigned char> mem_;
};

// "wrote past the end of its output: 3 of the 16384 guard elements after it changed (the first
// at element n + 0)", "wrote before the start of its output: 1 of the 16384 guard elements
// before it changed (the nearest at element -1)"; "" when both are intact.
template <class T>
std::string guard_report(const GuardedArray<T>& a, const char* what, const unsigned char* expect = nullptr) {
  std::string why;
  const auto after = a.guard_changes(expect);
  const std::string count = std::to_string(kGuardBytes / sizeof(T));
  if (after.bytes)
    why = std::string("wrote past the end of its ") + what + ": " + std::to_string((after.bytes + sizeof(T) - 1) / sizeof(T)) +
          " of the " + count + " guard elements after it changed (the first at element n + " + std::to_string(after.first) + ")";
  const auto before = a.front_guard_changes(expect);
  if (before.bytes)
    why += std::string(why.empty() ? "" : "; ") + "wrote before the start of its " + what + ": " +
           std::to_string((before.bytes + sizeof(T) - 1) / sizeof(T)) + " of the " + count +
           " guard elements before it changed (the nearest at element -" + std::to_string(before.last) + ")";
  return why;
}

template <class T>
class Input {
 public:
  explicit Input(std::size_t n, std::size_t lead = 0) : host(n), dev_(n, lead), pristine_(n) {}
  // Host bytes an input of n elements holds: its values, and their pinned copy end to end
  // (Family::host_bytes).
  static std::size_t host_bytes(std::size_t n, bool end_to_end) { return (end_to_end ? 2 : 1) * n * sizeof(T); }
  std::vector<T> host;
  // The slot in use (Problem::use_set): what the launch arguments point into.
  const T* device() const { return slot(active_); }
  T* device_mutable() const { return slot(active_); }
  std::size_t size() const { return host.size(); }
  void upload() {
    if (!host.empty()) {
      KL_CUDA_CHECK(cudaMemcpy(dev_.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
      KL_CUDA_CHECK(cudaMemcpy(pristine_.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    arm_guards(dev_);
  }
  // Whether a run changed the input or either guard band; what changed is restored.
  std::string damage(std::size_t index) {
    std::string why;
    const std::size_t bytes = host.size() * sizeof(T);
    if (bytes) {
      const std::size_t changed = count_differences(dev_.get(), pristine_.get(), bytes);
      if (changed) {
        why = "wrote to its input " + std::to_string(index) + " (read-only): " + std::to_string(changed) + " of its " +
              std::to_string(bytes) + " bytes changed";
        KL_CUDA_CHECK(cudaMemcpy(dev_.get(), pristine_.get(), bytes, cudaMemcpyDeviceToDevice));
      }
    }
    const std::string guards = guards_changed(dev_, "input " + std::to_string(index));
    if (!guards.empty()) why += (why.empty() ? "" : "; ") + guards;
    return why;
  }
  // A new device buffer at another address (the re-check after timing); the host values stay.
  void reallocate(std::size_t lead) {
    GuardedArray<T> fresh(host.size(), lead);
    dev_ = std::move(fresh);
  }
  void keep_pinned() {
    if (pinned_.size() != host.size()) pinned_ = PinnedArray<T>(host.size());
    if (!host.empty()) std::memcpy(pinned_.get(), host.data(), host.size() * sizeof(T));
  }
  void copy_to_device(cudaStream_t s) {
    if (!host.empty()) KL_CUDA_CHECK(cudaMemcpyAsync(dev_.get(), pinned_.get(), host.size() * sizeof(T), cudaMemcpyHostToDevice, s));
  }

  // ---- the timed samples' input sets (Problem::prepare_sets) ----
  // Device bytes one more slot takes.
  std::size_t slot_bytes() const { return host.size() * sizeof(T) + 2 * kGuardBytes; }
  // `count` more slots, each its own allocation, guard bands armed.
  void add_slots(std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
      sets_.emplace_back(host.size());
      arm_guards(sets_.back());
    }
    seeds_.assign(sets_.size(), std::nullopt);
    filled_.assign(sets_.size(), false);
  }
  // Draws the random values of `seed` into slot k (0: the loaded buffer itself).
  void fill(std::size_t k, const RandomLayout& layout, std::uint64_t seed, cudaStream_t s) {
    fill_random_device(slot(k), layout, seed, s);
    if (k > 0) seeds_[k - 1] = seed, filled_[k - 1] = true;
  }
  // The loaded values into slot k (0: back where they were loaded).
  void copy_loaded(std::size_t k, cudaStream_t s) {
    if (!host.empty())
      KL_CUDA_CHECK(cudaMemcpyAsync(slot(k), pristine_.get(), host.size() * sizeof(T), cudaMemcpyDeviceToDevice, s));
    if (k > 0) seeds_[k - 1] = std::nullopt, filled_[k - 1] = true;
  }
  void use(std::size_t k) { active_ = k; }
  // What the samples changed in the extra slots (guards; the last set's values drawn again and
  // compared); frees them and puts slot 0 in use.
  std::string release(std::size_t index, const RandomLayout& layout) {
    std::string why;
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      // The slot's last set drawn again and compared, or the loaded values it last held.
      const std::size_t changed = seeds_[k] ? random_mismatches(sets_[k].get(), layout, *seeds_[k])
                                  : filled_[k] ? count_differences(sets_[k].get(), pristine_.get(), size() * sizeof(T)) / sizeof(T)
                                               : 0;
      if (changed)
        why += std::string(why.empty() ? "" : "; ") + "wrote to its input " + std::to_string(index) +
               " (read-only) in a timed sample: " + std::to_string(changed) + " of its " + std::to_string(size()) +
               " elements changed";
      const std::string guards = guards_changed(sets_[k], "input " + std::to_string(index) + " (a timed sample's set)");
      if (!guards.empty()) why += (why.empty() ? "" : "; ") + guards;
    }
    sets_.clear();
    seeds_.clear();
    filled_.clear();
    active_ = 0;
    return why;
  }

 private:
  T* slot(std::size_t k) const { return k == 0 ? dev_.get() : sets_.at(k - 1).get(); }
  // The guards around an input: NaN, or for integers a value large enough to change any sum.
  static T guard_value() {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(0x3fffffff);
    else return std::numeric_limits<T>::quiet_NaN();
  }
  static void arm_guards(const GuardedArray<T>& a) {
    fill_device(reinterpret_cast<T*>(a.guard()), kGuardBytes / sizeof(T), guard_value(), nullptr);
    fill_device(reinterpret_cast<T*>(a.front_guard()), kGuardBytes / sizeof(T), guard_value(), nullptr);
    KL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // What a run changed in a's guard bands ("" if nothing); re-armed.
  static std::string guards_changed(const GuardedArray<T>& a, const std::string& what) {
    const T fill = guard_value();
    unsigned char expect[sizeof(T)];
    std::memcpy(expect, &fill, sizeof(T));
    const std::string why = guard_report(a, what.c_str(), expect);
    if (!why.empty()) arm_guards(a);
    return why;
  }

  GuardedArray<T> dev_;
  DeviceArray<T> pristine_;  // the loaded values, for the read-only check
  PinnedArray<T> pinned_;
  std::vector<GuardedArray<T>> sets_;  // slots 1..
  std::vector<std::optional<std::uint64_t>> seeds_;  // the seed each extra slot last held (none: the loaded values)
  std::vector<bool> filled_;                          // whether it was written at all
  std::size_t active_ = 0;
};

// Host memory for a downloaded output: page-locked, so the copy runs at the link's rate rather
// than through the driver's staging buffer (an output can hold 2^31 elements and is downloaded
// for every check); pageable where the driver cannot lock that much.
template <class T>
class DownloadBuffer {
 public:
  T* data() { return pinned_.get() ? pinned_.get() : pageable_.data(); }
  const T* data() const { return pinned_.get() ? pinned_.get() : pageable_.data(); }
  std::size_t size() const { return n_; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  void resize(std::size_t n) {
    if (n == n_) return;
    pinned_ = PinnedArray<T>();
    pageable_.clear();
    pageable_.shrink_to_fit();
    n_ = n;
    if (n == 0) return;
    try {
      pinned_ = PinnedArray<T>(n);
    } catch (const CudaError&) {
      cudaGetLastError();
      pageable_.resize(n);
    }
  }

 private:
  PinnedArray<T> pinned_;
  std::vector<T> pageable_;
  std::size_t n_ = 0;
};

template <class T>
class CheckedOutput {
 public:
  explicit CheckedOutput(std::size_t n, std::size_t lead = 0) : ref(n), scale(n), slack(n), dev_(n, lead) {
    dev_.arm_guard(nullptr);
    KL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::size_t size() const { return ref.size(); }
  T* device() const { return dev_.get(); }

  // Set by the family for the loaded inputs. Random inputs: element i must lie within
  // factor·scale[i] + slack[i] of ref[i], the factor coming from the variant (gamma of its
  // rounding depth), slack being the reference's own error. Exact inputs: within exact_slack[i]
  // (empty: 0, equality; a family whose exact result still rounds once, like a mean, sets it).
  std::vector<double> ref, scale, slack, exact_slack;

  // Call after filling ref: picks the poison (NaN; for integers a value no element should hold).
  void reference_ready() {
    has_lib_ = false;
    if constexpr (std::is_integral_v<T>) {
      const auto clash_free = [&](T p) {
        for (bool clash = true; clash; ++p) {
          clash = false;
          for (double r : ref) clash |= static_cast<double>(p) == r;
          if (!clash) break;
        }
        return p;
      };
      poison_[0] = clash_free(static_cast<T>(0x5eadbeef));
      poison_[1] = clash_free(static_cast<T>(0x7f7f7f7f));
    }
  }
  // Pattern 0: NaN (all-ones bits); 1: 0x7f bytes, finite (see Problem::poison).
  void poison(cudaStream_t s, int pattern = 0) {
    snapshot_ = false;
    if constexpr (std::is_integral_v<T>) fill_device(dev_.get(), size(), poison_[pattern & 1], s);
    else KL_CUDA_CHECK(cudaMemsetAsync(dev_.get(), pattern & 1 ? 0x7f : 0xff, size() * sizeof(T), s));
  }
  // A new device buffer at another address (the re-check after timing), its guard armed.
  void reallocate(std::size_t lead) {
    snapshot_ = false;
    GuardedArray<T> fresh(size(), lead);
    dev_ = std::move(fresh);
    dev_.arm_guard(nullptr);
    KL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // After a finished run: what it wrote before or past the output ("" if nothing); re-armed.
  std::string guard_damage() {
    std::string why = guard_report(dev_, "output");
    if (!why.empty()) {
      dev_.arm_guard(nullptr);
      KL_CUDA_CHECK(cudaDeviceSynchronize());
    }
    return why;
  }

  Check validate(InputKind kind, double factor) {
    return validate_with([&](std::size_t i) { return bound(kind, factor, i); });
  }
  // sqrt(sum (v - ref)^2 / sum scale^2) over the elements with a scale: the error of `v` as a
  // share of what the terms could have summed to.
  double rms_of(const DownloadBuffer<T>& v) const {
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < v.size() && i < ref.size(); ++i) {
      if (!(scale[i] > 0)) continue;
      const double d = static_cast<double>(v[i]) - ref[i];
      err += d * d;
      norm += scale[i] * scale[i];
    }
    return norm > 0 ? std::sqrt(err / norm) : -1;
  }
  double last_rms() const { return rms_of(got_); }
  double library_rms() const { return has_lib_ ? rms_of(lib_) : -1; }
  void keep_as_library(InputKind kind, double factor) {
    download(lib_);
    lib_factor_ = kind == InputKind::exact ? 0 : factor;
    has_lib_ = true;
  }
  // A family whose bound is not factor·scale[i] + slack[i] (table: a function's documented error
  // plus the propagated rounding of its argument) gives its own: bound(i) for element i against
  // the reference, and for the cross-check the sum of both variants' bounds.
  template <class Bound>
  Check validate_with(Bound&& bound) {
    download(got_);
    snapshot_ = true;
    return check_elements(size(), [&](CheckAccumulator& acc, std::size_t i) { acc.add(i, got_[i], ref[i], bound(i)); });
  }
  // Against the output validate last downloaded, while no poison or new buffer came between (the
  // runner cross-checks right after validating: one download, not two, of an output that can
  // hold 2^31 elements); otherwise downloaded again.
  template <class Bound>
  Check cross_check_with(Bound&& bound) {
    if (!snapshot_) download(got_);
    return check_elements(size(), [&](CheckAccumulator& acc, std::size_t i) {
      acc.add(i, got_[i], static_cast<double>(lib_[i]), bound(i));
    });
  }
  bool has_library() const { return has_lib_; }
  // |got - lib| within both variants' bounds (their sum): each lies within its own of the truth.
  Check cross_check(InputKind kind, double factor) {
    return cross_check_with([&](std::size_t i) {
      return kind == InputKind::exact ? 2 * exact_slack_at(i) : (factor + lib_factor_) * scale[i];
    });
  }
  // A reference computed on the GPU: compute(ref, scale) writes both, fp64, into device scratch
  // (reference_scratch_bytes(size()): what the family's scratch_bytes declares), then downloaded.
  static std::size_t reference_scratch_bytes(std::size_t n) { return 2 * n * sizeof(double); }
  // Host bytes an output of n elements holds: ref, scale and slack in fp64, the variant's and the
  // library's downloads, and the pinned copy end to end (Family::host_bytes).
  static std::size_t host_bytes(std::size_t n, bool end_to_end) {
    return n * (3 * sizeof(double) + (end_to_end ? 3 : 2) * sizeof(T));
  }
  template <class Compute>
  void reference_from_device(Compute&& compute) {
    DeviceArray<double> dref(size()), dscale(size());
    compute(dref.get(), dscale.get());
    KL_CUDA_CHECK(cudaMemcpy(ref.data(), dref.get(), size() * sizeof(double), cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(scale.data(), dscale.get(), size() * sizeof(double), cudaMemcpyDeviceToHost));
  }

  void keep_pinned() {
    if (pinned_.size() != size()) pinned_ = PinnedArray<T>(size());
  }
  void copy_to_host(cudaStream_t s) {
    KL_CUDA_CHECK(cudaMemcpyAsync(pinned_.get(), dev_.get(), size() * sizeof(T), cudaMemcpyDeviceToHost, s));
  }

 private:
  double exact_slack_at(std::size_t i) const { return exact_slack.empty() ? 0.0 : exact_slack[i]; }
  double bound(InputKind kind, double factor, std::size_t i) const {
    if (kind == InputKind::exact) return exact_slack_at(i);
    return (scale[i] == 0 ? 0.0 : factor * scale[i]) + slack[i];
  }
  void download(DownloadBuffer<T>& dst) const {
    dst.resize(size());
    KL_CUDA_CHECK(cudaMemcpy(dst.data(), dev_.get(), size() * sizeof(T), cudaMemcpyDeviceToHost));
  }

  GuardedArray<T> dev_;
  PinnedArray<T> pinned_;
  DownloadBuffer<T> got_, lib_;
  double lib_factor_ = 0;
  bool has_lib_ = false;
  bool snapshot_ = false;  // got_ holds the output as it is now (see cross_check_with)
  T poison_[2] = {};
};

// Dimension i of a problem as the int the kernels take (SizeSpec refuses any dimension above
// kMaxDim = 2^30).
inline int dim(const ProblemKey& k, std::size_t i) { return static_cast<int>(k.dims.at(i)); }

// The Problem interface over Input<T>s and one CheckedOutput<T>. A family derives from it and
// supplies make_inputs (host values of a kind), make_reference (the output's ref, scale, slack),
// metric(), and its launch arguments; error_factor when its bound is not gamma(depth).
template <class T>
class ProblemBase : public Problem {
 public:
  ProblemBase(const ProblemKey& key, const RunContext& ctx, const std::vector<std::size_t>& input_sizes,
              std::size_t output_size)
      : key_(key), out_(output_size), end_to_end_(ctx.opt.end_to_end), copy_gbps_(ctx.copy_gbps) {
    inputs_.reserve(input_sizes.size());
    for (std::size_t n : input_sizes) inputs_.emplace_back(n);
  }

  bool has_exact_inputs() const override { return !std::is_integral_v<T> && exact_check_is_separate_; }

  void load_inputs(InputKind kind, std::uint64_t seed) override {
    kind_ = kind;
    make_inputs(kind, seed);
    for (auto& in : inputs_) {
      in.upload();
      if (end_to_end_) in.keep_pinned();
    }
    out_.exact_slack.clear();
    make_reference(kind);
    out_.reference_ready();
    if (end_to_end_) out_.keep_pinned();
  }
  void load_inputs_only(InputKind kind, std::uint64_t seed) override {
    kind_ = kind;
    make_inputs(kind, seed);
    for (auto& in : inputs_) in.upload();
  }
  void poison(cudaStream_t s, int pattern) override { out_.poison(s, pattern); }
  std::string guard_damage() override { return out_.guard_damage(); }
  std::string input_damage() override {
    std::string why;
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const std::string d = inputs_[i].damage(i);
      if (!d.empty()) why += (why.empty() ? "" : "; ") + d;
    }
    return why;
  }
  std::vector<Region> input_regions() const override {
    std::vector<Region> r;
    for (const auto& in : inputs_) r.push_back({in.device_mutable(), in.size() * sizeof(T)});
    return r;
  }
  Region output_region() const override { return {out_.device(), out_.size() * sizeof(T)}; }

  // End-to-end timing copies the loaded inputs from the host inside the timed window: no sets.
  bool has_sets() const override { return !inputs_.empty() && !end_to_end_; }
  // As many slots as fit beside what is allocated, keeping an eighth of the free memory (at least
  // 512 MiB) for the libraries' own scratch.
  std::size_t prepare_sets(std::size_t wanted) override {
    if (!has_sets() || wanted == 0) return 0;
    std::size_t per_slot = 0;
    for (const auto& in : inputs_) per_slot += in.slot_bytes();
    std::size_t free = 0, total = 0;
    KL_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const std::size_t keep = std::max(free / 8, std::size_t{512} << 20);
    const std::size_t fit = free > keep && per_slot ? (free - keep) / per_slot : 0;
    const std::size_t n = std::min(wanted, fit);
    for (auto& in : inputs_) in.add_slots(n);
    return n;
  }
  void fill_set(std::size_t slot, std::uint64_t seed, cudaStream_t s) override {
    for (std::size_t i = 0; i < inputs_.size(); ++i) inputs_[i].fill(slot, random_layout(i), input_seed(seed, i), s);
  }
  void copy_loaded(std::size_t slot, cudaStream_t s) override {
    for (auto& in : inputs_) in.copy_loaded(slot, s);
  }
  void use_set(std::size_t slot) override {
    for (auto& in : inputs_) in.use(slot);
  }
  std::string release_sets() override {
    std::string why;
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const std::string d = inputs_[i].release(i, random_layout(i));
      if (!d.empty()) why += (why.empty() ? "" : "; ") + d;
    }
    return why;
  }
  // The seed input i of a random set is drawn from (make_inputs and fill_set both use it).
  static std::uint64_t input_seed(std::uint64_t seed, std::size_t i) { return i == 0 ? seed : seed ^ (0x5bd1e995ull * i); }
  double error_rms() const override { return kind_ == InputKind::random ? out_.last_rms() : -1; }
  double library_error_rms() const override { return kind_ == InputKind::random ? out_.library_rms() : -1; }
  double unit_roundoff_of_type() const override {
    if constexpr (std::is_integral_v<T>) return 0.0;
    else return unit_roundoff<T>();
  }
  // Every device buffer allocated anew, 256 bytes further into its allocation than the last ones
  // (so no address repeats even where the allocator hands the same blocks back), then random
  // inputs from the new seed and their reference (the host arrays are reused).
  void load_fresh(std::uint64_t seed) override {
    lead_ = lead_ ? 0 : 256;
    for (auto& in : inputs_) in.reallocate(lead_);
    out_.reallocate(lead_);
    load_inputs(InputKind::random, seed);
  }
  Check validate(const Candidate& c) override {
    const double f = factor(c);
    if (kind_ == InputKind::random && !meaningful_factor(f)) return meaningless_bound(c.rounding_depth, f);
    return out_.validate(kind_, f);
  }
  void keep_as_library(const Candidate& c) override { out_.keep_as_library(kind_, factor(c)); }
  bool has_library_output() const override { return out_.has_library(); }
  Check cross_check(const Candidate& c) override { return out_.cross_check(kind_, factor(c)); }
  void copy_inputs_to_device(cudaStream_t s) override {
    for (auto& in : inputs_) in.copy_to_device(s);
  }
  void copy_outputs_to_host(cudaStream_t s) override { out_.copy_to_host(s); }

  const ProblemKey& key() const { return key_; }
  // Device memory the family's reference needs beside the buffers (none by default).
  static std::size_t scratch_bytes(const ProblemKey&) { return 0; }

  Input<T>& in(std::size_t i) { return inputs_.at(i); }
  const Input<T>& in(std::size_t i) const { return inputs_.at(i); }
  CheckedOutput<T>& out() { return out_; }
  const CheckedOutput<T>& out() const { return out_; }
  InputKind kind() const { return kind_; }

  // The metric of a family bound by memory traffic: GB/s over the `bytes` one run must move,
  // against the device-to-device copy bandwidth measured in this run.
  Metric bandwidth_metric(double bytes) const { return Metric::bandwidth(bytes, copy_gbps_); }

 protected:
  virtual void make_inputs(InputKind kind, std::uint64_t seed) = 0;
  virtual void make_reference(InputKind kind) = 0;
  // The multiplier of scale[i] in the bound: gamma(depth) in T's unit roundoff (Higham's bound
  // for a sum, or a product, whose longest chain of roundings is `depth`). 0 for integers.
  virtual double error_factor(const Candidate& c) const {
    return gamma_bound(c.rounding_depth, unit_roundoff<T>());
  }
  // Where input i's random values lie (a pitched layout: rows); flat by default. make_inputs'
  // random values must be fill_random(input_seed(seed, i)) in this layout: the timed samples' sets
  // are drawn on the device from it (fill_set), and a sample's reference from make_inputs.
  virtual RandomLayout random_layout(std::size_t i) const {
    const std::size_t n = inputs_.at(i).size();
    return {1, n, n, 0.0};
  }
  // A family whose random-input check is already an equality (a transpose moves bits) sets this
  // false: no second input set.
  bool exact_check_is_separate_ = true;

 private:
  double factor(const Candidate& c) const { return kind_ == InputKind::exact ? 0.0 : error_factor(c); }

  ProblemKey key_;
  std::vector<Input<T>> inputs_;
  CheckedOutput<T> out_;
  std::size_t lead_ = 0;
  InputKind kind_ = InputKind::random;
  bool end_to_end_;
  double copy_gbps_;
};

}  // namespace kl
