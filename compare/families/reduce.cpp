// Registers the reduce family (its traits: compare/families/family_reduce.hpp).
#include "compare/families/family_reduce.hpp"

namespace kl {
KL_REGISTER_FAMILY(ReduceFamily, 10)
}  // namespace kl
