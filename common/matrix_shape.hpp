// Dense row-major matrix shapes, as the matrix families' launch arguments and hooks take them.
// Dimensions are int (as cuBLAS takes them); offsets are computed in 64 bits by every kernel. The
// runner refuses any dimension above 2^30 (compare/core/sizes.hpp), so a tile start plus a tile
// step never overflows an int.
#pragma once

namespace kl {

struct MatrixShape {  // M rows × N columns
  int M, N;
};
struct GemmShape {  // C (M×N) = A (M×K) · B (K×N)
  int M, N, K;
};

}  // namespace kl
