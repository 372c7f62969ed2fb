// The JSON report: the schema (schema.hpp) of the whole report, indented.
#include "compare/report/report.hpp"
#include "compare/report/schema.hpp"

#include <nlohmann/json.hpp>

namespace kl {

std::string to_json(const Report& r) { return nlohmann::json(r).dump(2) + "\n"; }

}  // namespace kl
