// Registers the rows family (its traits: compare/families/family_rows.hpp).
#include "compare/families/family_rows.hpp"

namespace kl {
KL_REGISTER_FAMILY(RowsFamily, 30)
}  // namespace kl
