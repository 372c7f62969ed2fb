// Files written whole or not at all: a uniquely named temporary file beside the target, then
// a rename.
#include "compare/report/report.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace kl {

namespace {

// A temporary file beside `p` with a unique name (mkstemp), removed again unless renamed.
struct TempFile {
  std::string path;
  bool keep = false;
  explicit TempFile(const std::filesystem::path& p) {
    std::string tmpl = p.string() + ".XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file beside " + p.string());
    close(fd);
    path = tmpl;
  }
  ~TempFile() {
    if (!keep) std::remove(path.c_str());
  }
};

void write_all(const std::string& path, const std::string& content) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size() && std::fflush(f) == 0 &&
                  fsync(fileno(f)) == 0;
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  TempFile tmp(p);
  write_all(tmp.path, content);
  std::error_code ec;
  fs::rename(tmp.path, p, ec);
  if (ec) throw std::runtime_error("cannot write " + p.string() + ": " + ec.message());
  tmp.keep = true;
}

std::vector<std::string> write_reports(const std::string& base, const Report& r) {
  // Rendered first, so a failure to render leaves the old files as they were.
  const std::vector<std::pair<std::string, std::string>> files = {
      {base + ".json", to_json(r)}, {base + ".csv", to_csv(r)}, {base + ".md", to_markdown(r)}};
  std::vector<std::string> written;
  for (const auto& [path, content] : files) {
    write_file_atomic(path, content);
    written.push_back(path);
  }
  return written;
}

}  // namespace kl
