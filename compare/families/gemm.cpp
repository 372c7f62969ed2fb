// Registers the gemm family (its traits: compare/families/family_product.hpp).
#include "compare/families/family_product.hpp"

namespace kl {
KL_REGISTER_FAMILY(GemmFamily, 40)
}  // namespace kl
