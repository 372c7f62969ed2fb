// Reading a report back: .json as it is, .json.gz (or any gzip file) through zlib.
#include "compare/report/report.hpp"
#include "compare/report/schema.hpp"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kl {

namespace {

bool starts_with_gzip_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char m[2] = {0, 0};
  in.read(reinterpret_cast<char*>(m), 2);
  return in.gcount() == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw ReportReadError(path + ": cannot read the file");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(f, &code);
      gzclose(f);
      throw ReportReadError(path + ": cannot decompress the file (" + why + ")");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  // A file cut short reads to its end without an error from gzread; gzclose_r says so.
  if (gzclose(f) != Z_OK) throw ReportReadError(path + ": cannot decompress the file (truncated?)");
  return out;
}

}  // namespace

std::string read_report_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportReadError(path + ": cannot read the file");
  if (starts_with_gzip_magic(path)) return read_gzip(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ReportReadError(path + ": cannot read the file");
  return ss.str();
}

Report load_report(const std::string& path) {
  const std::string text = read_report_text(path);
  try {
    return parse_report(text);
  } catch (const ReportReadError& e) {
    throw ReportReadError(path + ": " + e.what());
  }
}

}  // namespace kl
