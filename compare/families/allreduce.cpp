// Registers the allreduce family (its traits: compare/families/family_allreduce.hpp).
#include "compare/families/family_allreduce.hpp"

namespace kl {
KL_REGISTER_FAMILY(AllreduceFamily, 100)
}  // namespace kl
