// Registers the table family (its traits: compare/families/family_table.hpp).
#include "compare/families/family_table.hpp"

namespace kl {
KL_REGISTER_FAMILY(TableFamily, 90)
}  // namespace kl
