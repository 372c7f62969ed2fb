#include "compare/core/host_memory.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

namespace kl {

std::optional<std::size_t> parse_mem_available(std::string_view meminfo) {
  constexpr std::string_view key = "MemAvailable:";
  std::size_t at = 0;
  while ((at = meminfo.find(key, at)) != std::string_view::npos) {
    if (at == 0 || meminfo[at - 1] == '\n') break;
    at += key.size();
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + key.size();
  while (i < meminfo.size() && (meminfo[i] == ' ' || meminfo[i] == '\t')) ++i;
  std::size_t kib = 0, digits = 0;
  for (; i < meminfo.size() && std::isdigit(static_cast<unsigned char>(meminfo[i])); ++i, ++digits)
    kib = kib * 10 + static_cast<std::size_t>(meminfo[i] - '0');
  while (i < meminfo.size() && meminfo[i] == ' ') ++i;
  // The kernel writes the unit as "kB" (KiB); anything else is not the format this reads.
  if (digits == 0 || meminfo.substr(i, 2) != "kB") return std::nullopt;
  return kib * 1024;
}

std::optional<std::size_t> host_available_bytes() {
  std::ifstream f("/proc/meminfo");
  if (!f) return std::nullopt;
  std::stringstream s;
  s << f.rdbuf();
  return parse_mem_available(s.str());
}

}  // namespace kl
