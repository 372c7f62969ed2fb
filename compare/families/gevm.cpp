// Registers the gevm family (its traits: compare/families/family_matvec.hpp).
#include "compare/families/family_matvec.hpp"

namespace kl {
KL_REGISTER_FAMILY(GevmFamily, 70)
}  // namespace kl
