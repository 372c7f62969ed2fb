// Shared by the GPU suite: run a family's variants in validate-only mode through the real
// runner core (same inputs, references, poison and bounds as `compare`), and mutants: every
// variant run with its arguments rewritten (an element dropped, k one short) must fail, with the
// rewrites several families share.
#pragma once

#include "common/cuda_check.hpp"
#include "compare/core/device_memory.hpp"
#include "compare/core/execute.hpp"
#include "compare/core/family_core.hpp"
#include "compare/core/timing.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace kl::test {

// An empty folder of its own under the system's temporary one for a case that runs compare as a
// child: named for the case and this process, so that suites run side by side (device.sh's
// sanitizer tools, SANITIZE_SIDE_BY_SIDE) never clear each other's.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// One device context for the whole suite.
struct Gpu {
  DeviceInfo dev = query_device(0);
  GpuTimer timer{dev.l2_bytes, L2Flush::read};
  RunOptions opt = [] {
    RunOptions o;
    o.time_variants = false;  // validate only; fresh random inputs for every problem
    return o;
  }();
  RunContext ctx() { return RunContext{opt, dev, 1.0, timer}; }
  static Gpu& get() {
    static Gpu g;
    return g;
  }
};

// KL_GPU_SUITE_QUICK=1 leaves out the largest shapes (8192³, 2^24+3); =2 keeps only shapes up
// to a few hundred per side, still odd and partial-tile, and multi-block for every kernel that
// has a multi-block path (used under compute-sanitizer, which slows kernels many times over).
inline int quick() {
  const char* q = std::getenv("KL_GPU_SUITE_QUICK");
  return q && *q ? std::atoi(q) : 0;
}

inline bool is_float(const Row& r) { return r.dtype == "float" || r.dtype == "double"; }

// Whether the row's problem had a second, exact-input check: its family says (Family::has_exact_inputs).
inline bool has_exact_phase(const Row& r) {
  const Family* f = find_family(r.family);
  const auto t = parse_dtype(r.dtype);
  return f && t && f->has_exact_inputs(*t);
}

// Every row of the problem must pass its reference check, its exact check (floating types) and
// its library cross-check (handwritten rows). `may_skip(row)`: the variants expected to declare
// this problem unsupported (a column kernel asked for a row operation, cuBLAS for an int dot);
// such a row must say why, and any other skip fails.
// True when row r was skipped because its variant cannot run on this GPU or from this build's
// image (Requirements, compare/core/requirements.hpp): the very reason the runner gives for it here.
// On an older GPU those variants are skipped, not failed (an A10 has no clusters for gevm6).
inline bool skipped_for_this_gpu(const Row& r) {
  if (r.status != RowStatus::skipped) return false;
  const Family* f = find_family(r.family);
  const auto t = parse_dtype(r.dtype);
  if (!f || !t) return false;
  for (const VariantListing& v : f->variants(*t, nullptr))
    if (v.name == r.variant) return has_requirements(v.needs) && !r.note.empty() && check_on_this_device(v.needs) == r.note;
  return false;
}

inline void expect_all_pass(const std::vector<Row>& rows, const std::function<bool(const Row&)>& may_skip = {}) {
  REQUIRE_FALSE(rows.empty());
  for (const Row& r : rows) {
    INFO(r.family << " " << r.dtype << " " << r.shape << " " << r.variant << ": " << status_name(r.status) << " " << r.note);
    if (skipped_for_this_gpu(r)) continue;
    if (r.status == RowStatus::skipped && may_skip && may_skip(r)) {
      CHECK_FALSE(r.note.empty());
      continue;
    }
    CHECK(r.status == RowStatus::ok);
    CHECK(r.check.ran);
    if (has_exact_phase(r)) CHECK(r.exact_check.ran);
    if (r.source == Source::handwritten) CHECK(r.library_check.ran);
  }
}

inline std::vector<Row> run_family(const char* family, DType t, const Dims& d, const AxisValues& axes = {}) {
  const Family* f = find_family(family);
  REQUIRE(f != nullptr);
  RunContext ctx = Gpu::get().ctx();
  auto rows = f->run(make_key(*f, t, d, axes), ctx);
  REQUIRE(ctx.fatal.empty());
  return rows;
}

// Runs every variant of family F on problem `key` with its launch arguments rewritten by `hook`
// (the mutant); every row must fail, and for floating-point sums on the exact-input check, which
// no error bound can hide (families without one fail their only check: the transpose's equality,
// the table's bound).
template <class F, class T>
void expect_mutants_fail(const ProblemKey& key, typename TypedFamily<F>::template ArgsHook<T> hook, const char* what) {
  const auto& fam = static_cast<const TypedFamily<F>&>(family<F>());
  RunContext ctx = Gpu::get().ctx();
  const auto rows = fam.template run_typed<T>(key, ctx, hook);
  REQUIRE(ctx.fatal.empty());
  REQUIRE_FALSE(rows.empty());
  for (const Row& r : rows) {
    INFO(what << ": " << r.family << " " << r.dtype << " " << r.shape << " " << r.variant << ": " << status_name(r.status)
              << " " << r.note);
    if (r.status == RowStatus::skipped) continue;
    CHECK(r.status == RowStatus::fail);
    if (has_exact_phase(r)) {
      CHECK(r.exact_check.ran);
      CHECK_FALSE(r.exact_check.pass);
    } else {
      CHECK(r.check.ran);
      CHECK_FALSE(r.check.pass);
    }
  }
}

// The mutant "output never written", for families with one output pointer (Args::out): every
// variant writes elsewhere, so the problem's poisoned output is what gets checked.
template <class F, class T>
void expect_unwritten_output_fails(const ProblemKey& key) {
  DeviceArray<T> elsewhere(1);
  expect_mutants_fail<F, T>(key, [&](const typename F::template Args<T>& a, cudaStream_t) {
    auto b = a;
    b.out = elsewhere.get();
    return b;
  }, "output never written");
}

// A mutant's copy of an array of `n` elements with element i set to 0 (an input dropped from a
// sum), made on the launch's stream. Made outside the hook (it allocates), called inside it.
template <class T>
class WithElementZeroed {
 public:
  explicit WithElementZeroed(std::size_t n) : copy_(n) {}
  const T* operator()(const T* src, std::size_t i, cudaStream_t s) const {
    KL_CUDA_CHECK(cudaMemcpyAsync(copy_.get(), src, copy_.size() * sizeof(T), cudaMemcpyDeviceToDevice, s));
    KL_CUDA_CHECK(cudaMemsetAsync(copy_.get() + i, 0, sizeof(T), s));
    return copy_.get();
  }

 private:
  DeviceArray<T> copy_;
};

// A mutant's matrix with its last column dropped: the first cols - 1 columns of a rows × cols
// row-major matrix, repacked densely (so that every variant reads a rows × (cols - 1) matrix),
// copied on the launch's stream. Made outside the hook (it allocates), called inside it.
template <class T>
class WithoutLastColumn {
 public:
  WithoutLastColumn(int rows, int cols)
      : rows_(rows), cols_(cols), dense_(static_cast<std::size_t>(rows) * (cols - 1)) {}
  const T* operator()(const T* a, cudaStream_t s) const {
    KL_CUDA_CHECK(cudaMemcpy2DAsync(dense_.get(), (cols_ - 1) * sizeof(T), a, cols_ * sizeof(T), (cols_ - 1) * sizeof(T),
                                    rows_, cudaMemcpyDeviceToDevice, s));
    return dense_.get();
  }

 private:
  int rows_, cols_;
  DeviceArray<T> dense_;
};

}  // namespace kl::test
