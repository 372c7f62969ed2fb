// Registers the aat family (its traits: compare/families/family_product.hpp).
#include "compare/families/family_product.hpp"

namespace kl {
KL_REGISTER_FAMILY(AatFamily, 50)
}  // namespace kl
