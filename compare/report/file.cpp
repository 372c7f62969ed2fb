// Files written whole or not at all: a uniquely named temporary file beside the target, then
// a rename.
#include "compare/report/report.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kl {

namespace {

// The permissions a file created the ordinary way gets: 0666 less the process's umask. umask can
// only be read by setting it, so it is read once and put back at once.
mode_t created_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = umask(022);
    umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

// A temporary file beside `p` with a unique name (mkstemp), removed again unless renamed. mkstemp
// makes it 0600; it gets the mode an ordinary file would, so the report a run leaves behind is as
// readable as any other file its user writes.
struct TempFile {
  std::string path;
  bool keep = false;
  explicit TempFile(const std::filesystem::path& p) {
    std::string tmpl = p.string() + ".XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file beside " + p.string());
    const bool moded = fchmod(fd, created_file_mode()) == 0;
    close(fd);
    path = tmpl;
    if (!moded) {
      std::remove(path.c_str());
      throw std::runtime_error("cannot set the permissions of a temporary file beside " + p.string());
    }
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

// The nearest ancestor of `p` that exists ("." for a relative path with none).
std::filesystem::path existing_ancestor(std::filesystem::path p) {
  std::error_code ec;
  while (p.has_parent_path() && p != p.parent_path()) {
    p = p.parent_path();
    if (std::filesystem::exists(p, ec)) return p;
  }
  return p.is_absolute() ? p : std::filesystem::path(".");
}

}  // namespace

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw std::runtime_error("an output path is empty");
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw std::runtime_error("cannot write " + path + ": it is a directory");
  // The file itself, and the folder beside it where the temporary file goes.
  if (fs::exists(p, ec) && access(path.c_str(), W_OK) != 0)
    throw std::runtime_error("cannot write " + path + ": permission denied");
  const fs::path a = existing_ancestor(p);
  if (!fs::is_directory(a, ec)) throw std::runtime_error("cannot write " + path + ": " + a.string() + " is not a directory");
  if (access(a.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot write " + path + ": " + a.string() + " is not writable");
}

namespace {

// create_directories' own message names the call and both paths; one line of ours instead.
void make_parent(const std::filesystem::path& p) {
  if (!p.has_parent_path()) return;
  std::error_code ec;
  std::filesystem::create_directories(p.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot write " + p.string() + ": " + ec.message());
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  make_parent(p);
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
