// Registers the transpose family (its traits: compare/families/family_transpose.hpp).
#include "compare/families/family_transpose.hpp"

namespace kl {
KL_REGISTER_FAMILY(TransposeFamily, 80)
}  // namespace kl
