// The JSON report: the schema (schema.hpp) of the whole report, indented.
#include "compare/report/report.hpp"
#include "compare/report/schema.hpp"

#include <nlohmann/json.hpp>

namespace kl {

std::string to_json(const Report& r) { return nlohmann::json(r).dump(2) + "\n"; }

std::string row_to_json(const Row& r) { return nlohmann::json(r).dump(); }

Row row_from_json(const std::string& text) { return nlohmann::json::parse(text).get<Row>(); }

}  // namespace kl
