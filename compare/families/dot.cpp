// Registers the dot family (its traits: compare/families/family_dot.hpp).
#include "compare/families/family_dot.hpp"

namespace kl {
KL_REGISTER_FAMILY(DotFamily, 20)
}  // namespace kl
