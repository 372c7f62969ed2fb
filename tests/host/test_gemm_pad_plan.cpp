// handwritten/gemm/gemm_pad_plan.hpp: where gemm13 puts padded copies of operands TMA cannot read
// where they lie, checked without a GPU.
#include "common/tensor_map_2d.hpp"
#include "handwritten/gemm/gemm_pad_plan.hpp"

#include <doctest/doctest.h>

using kl::gemm_plan::pad_plan;
using kl::gemm_plan::PadPlan;

TEST_CASE("pad plan: only an operand whose rows are ragged is copied") {
  const PadPlan none = pad_plan({4096, 4096, 4096}, 0);
  CHECK_FALSE(none.a);
  CHECK_FALSE(none.b);
  CHECK(none.lda == 4096);
  CHECK(none.ldb == 4096);
  CHECK(none.end == 0);
  CHECK(pad_plan({4096, 4096, 4096}, 1000).end == 1000);  // the step's own bytes, nothing added

  const PadPlan a = pad_plan({300, 256, 97}, 0);  // K ragged: A (300 × 97) into rows of 100
  CHECK(a.a);
  CHECK_FALSE(a.b);
  CHECK(a.lda == 100);
  CHECK(a.ldb == 256);
  CHECK(a.a_offset == 0);
  CHECK(a.end == 300u * 100 * 4);

  const PadPlan b = pad_plan({300, 263, 96}, 0);  // N ragged: B (96 × 263) into rows of 264
  CHECK_FALSE(b.a);
  CHECK(b.b);
  CHECK(b.lda == 96);
  CHECK(b.ldb == 264);
  CHECK(b.end == 96u * 264 * 4);
}

TEST_CASE("pad plan: the copies lie behind the step's own bytes, aligned, and do not overlap") {
  for (int M : {1, 31, 33, 301, 4097})
    for (int N : {1, 2, 3, 5, 263, 4095})
      for (int K : {1, 6, 97, 4093})
        for (std::size_t before : {std::size_t(0), std::size_t(4), std::size_t(1000), std::size_t(1) << 33}) {
          CAPTURE(M);
          CAPTURE(N);
          CAPTURE(K);
          CAPTURE(before);
          const PadPlan p = pad_plan({M, N, K}, before);
          CHECK(p.a == (K % 4 != 0));
          CHECK(p.b == (N % 4 != 0));
          CHECK(p.lda == (p.a ? (K + 3) / 4 * 4 : K));
          CHECK(p.ldb == (p.b ? (N + 3) / 4 * 4 : N));
          std::size_t at = before;
          if (p.a) {
            CHECK(p.a_offset % kl::gemm_plan::kPadAlign == 0);
            CHECK(p.a_offset >= at);
            at = p.a_offset + std::size_t(M) * p.lda * 4;
          }
          if (p.b) {
            CHECK(p.b_offset % kl::gemm_plan::kPadAlign == 0);
            CHECK(p.b_offset >= at);
            at = p.b_offset + std::size_t(K) * p.ldb * 4;
          }
          CHECK(p.end == at);
          // What TMA reads: every copy's rows 16-byte apart, its columns the operand's.
          if (p.a) CHECK(kl::tma_describes(kl::row_major_2d(M, K, 128, 32, 4, std::size_t(p.lda)), 4, 128));
          if (p.b) CHECK(kl::tma_describes(kl::row_major_2d(K, N, 32, 256, 4, std::size_t(p.ldb)), 4));
        }
}

TEST_CASE("pad plan: the time model charges the copies, one launch for both, nothing where none is made") {
  using kl::gemm_plan::kPadBytesPerUs;
  using kl::gemm_plan::kPadLaunchUs;
  using kl::gemm_plan::pad_model_us;
  CHECK(pad_model_us({4096, 4096, 4096}) == 0.0);
  const double a = pad_model_us({4096, 4096, 4093}), ab = pad_model_us({4096, 4095, 4093});
  CHECK(a == doctest::Approx(kPadLaunchUs + 4096.0 * (4093 + 4096) * 4 / kPadBytesPerUs));
  // B's copy adds its bytes, not a second launch.
  CHECK(ab == doctest::Approx(a + 4093.0 * (4095 + 4096) * 4 / kPadBytesPerUs));
}
