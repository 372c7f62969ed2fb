// The scan family's launch arguments and its two lists.
#pragma once

#include "common/variant.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kl {

// Which prefix sum: inclusive, out[i] = in[0] + ... + in[i]; exclusive, out[0] = 0 and
// out[i] = in[0] + ... + in[i - 1]. Eight bytes wide on purpose: every field of ScanArgs is then
// a whole 8-byte word, with no padding bytes of unspecified content beside the form (a
// submission's sandbox reads the struct's 8-byte words to find the device pointers it rewrites:
// compare/sandbox/).
enum class ScanForm : std::uint64_t { inclusive = 0, exclusive = 1 };

inline const char* scan_form_name(ScanForm f) { return f == ScanForm::inclusive ? "inclusive" : "exclusive"; }

// What a variant's hooks receive: the length and the form (an exclusive element i sums one term
// fewer than the inclusive one, so a depth may depend on it).
struct ScanShape {
  std::size_t n;
  ScanForm form;
  friend bool operator==(const ScanShape& a, const ScanShape& b) { return a.n == b.n && a.form == b.form; }
};

// scan: out[0, n) = the inclusive or exclusive prefix sums of in[0, n). n >= 1; in and out do
// not overlap (in-place is not part of the contract). int wraps modulo 2^32 like CUDA's int adds.
template <class T>
struct ScanArgs {
  using Size = ScanShape;
  const T* in;
  T* out;
  std::size_t n;
  ScanForm form;
  void* workspace;
};

template <class T> using ScanVariant = Variant<ScanArgs<T>>;

template <class T> std::vector<ScanVariant<T>> scan_handwritten();  // int, float, double
template <class T> std::vector<ScanVariant<T>> scan_library();

}  // namespace kl
