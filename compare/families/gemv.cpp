// Registers the gemv family (its traits: compare/families/family_matvec.hpp).
#include "compare/families/family_matvec.hpp"

namespace kl {
KL_REGISTER_FAMILY(GemvFamily, 60)
}  // namespace kl
