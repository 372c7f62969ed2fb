// Registers the scan family (its traits: compare/families/family_scan.hpp). After the table: the
// default run's order is the families' order (reduce 10 ... table 90).
#include "compare/families/family_scan.hpp"

namespace kl {
KL_REGISTER_FAMILY(ScanFamily, 95)
}  // namespace kl
