// The variant renames `compare diff` applies by itself. The map is compiled in from the JSON file
// the build was configured with (CMakeLists.txt: KL_CONFIG_RENAMES, compare/diff/config-renames.json
// by default), so the diff pairs renamed rows from any working directory and the file stays the
// one source (`compare diff --renames FILE` applies another).
#include "compare/diff/diff.hpp"
#include "compare/report/report.hpp"

#include "kl_config_renames.h"  // generated at configure time: kConfigRenamesJson, kConfigRenamesSource

#include <nlohmann/json.hpp>

namespace kl {

namespace {

Renames parse_renames(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    throw DiffInputError(where + ": the renames are not JSON");
  }
  if (!j.is_object()) throw DiffInputError(where + ": the renames must be a JSON object (old name: new name)");
  Renames r;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string()) throw DiffInputError(where + ": the rename of '" + it.key() + "' is not a string");
    r[it.key()] = it.value().get<std::string>();
  }
  return r;
}

}  // namespace

Renames builtin_renames() { return parse_renames(kConfigRenamesJson, kConfigRenamesSource); }

std::string builtin_renames_source() { return kConfigRenamesSource; }

Renames load_renames(const std::string& path) {
  std::string text;
  try {
    text = read_report_text(path);
  } catch (const std::exception& e) {
    throw DiffInputError(e.what());
  }
  return parse_renames(text, path);
}

}  // namespace kl
