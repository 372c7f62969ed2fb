#include "compare/sandbox/submissions.hpp"

#include "compare/core/family.hpp"
#include "compare/sandbox/sandbox_process.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "kl_submissions_paths.h"  // generated: KL_SUBMISSIONS_MANIFEST, KL_SANDBOX_EXE (CMakeLists.txt)

namespace kl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// `text` with the path of the folder holding the submission removed ("/f/alice/sum.cu" ->
// "alice/sum.cu"), as rows and listings name a submission's files.
std::string relative_to_submissions(std::string text, const std::string& folder) {
  const std::string prefix = fs::path(folder).parent_path().string() + "/";
  for (std::size_t at; !prefix.empty() && (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

// The first line of a compiler log that says "error", with the submission's folder made relative
// (nvcc: "/f/alice/sum.cu(12): error: ..."; the host compiler: "/f/alice/sum.cu:12:5: error: ...").
std::string first_error(const std::string& log, const std::string& folder) {
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (line.find("error") == std::string::npos) continue;
    first = line;
    break;
  }
  if (first.empty()) {
    std::istringstream again(log);
    while (std::getline(again, line))
      if (!trim(line).empty()) {
        first = line;
        break;
      }
  }
  return trim(relative_to_submissions(first, folder));
}

// Why the build of a submission failed, from the status files its compiler wrapper wrote
// (cmake/submission_compile.sh): "" when every file compiled and the module linked.
std::string build_failure(const json& s, const std::string& folder) {
  const fs::path dir = s.value("status_dir", "");
  for (const auto& f : s.value("files", json::array())) {
    const std::string file = f.get<std::string>();
    const std::string stem = fs::path(file).filename().string();
    const std::string status = trim(slurp(dir / (stem + ".status")));
    if (status == "error")
      return "does not compile: " + first_error(slurp(dir / (stem + ".log")), folder) + " (full log: " +
             (dir / (stem + ".log")).string() + ")";
  }
  if (trim(slurp(dir / "link.status")) == "error")
    return "does not link: " + first_error(slurp(dir / "link.log"), folder) + " (full log: " + (dir / "link.log").string() + ")";
  return {};
}

std::string family_list() {
  std::string s;
  for (const Family* f : all_families()) s += (s.empty() ? "" : ", ") + std::string(f->name());
  return s;
}

// Why registration `e` does not fit a family ("" when it does).
std::string refusal(const json& e) {
  const std::string family = e.value("family", ""), args = e.value("args", ""), dtype = e.value("dtype", "");
  const std::string name = e.value("name", "");
  const Family* f = find_family(family);
  if (!f) return "unknown family '" + family + "' (the families are: " + family_list() + ")";
  if (args != f->args_kind())
    return "registers a launcher taking " + args + " into '" + family + "', whose launchers take " + std::string(f->args_kind());
  bool runs = false;
  std::string types;
  for (DType t : f->dtypes()) {
    runs |= dtype_name(t) == dtype;
    types += (types.empty() ? "" : ", ") + std::string(dtype_name(t));
  }
  if (!runs) return "element type '" + dtype + "' is not one the family '" + family + "' runs (" + types + ")";
  if (name.empty()) return "a variant with no name";
  if (name.find_first_of(" ,/*?[]") != std::string::npos) return "the variant name '" + name + "' holds a character names may not (space , / * ? [ ])";
  return {};
}

std::string where(const json& e, const std::string& folder) {
  return relative_to_submissions(e.value("file", ""), folder) + ":" + std::to_string(e.value("line", 0));
}

// Lists the module through a sandbox (kl-sandbox --list: no GPU needed) and keeps what fits; the
// first refusal leaves the whole submission out.
void list_module(Submission& s) {
  const std::string exe = sandbox_executable();
  if (exe.empty()) {
    s.broken = "no kl-sandbox executable beside compare to run it in";
    return;
  }
  // The listing is kept beside the module (status_dir/listing.json) with the module's time: a
  // folder of thirty submissions is listed once per build, not once per run.
  std::string out, why;
  const fs::path cache = fs::path(s.status_dir) / "listing.json";
  std::error_code ec;
  const auto stamp = std::to_string(fs::last_write_time(s.module, ec).time_since_epoch().count());
  if (!s.status_dir.empty() && !ec && fs::exists(cache)) {
    try {
      const json c = json::parse(slurp(cache));
      if (c.value("module_time", std::string()) == stamp) out = c.value("listing", std::string());
    } catch (const std::exception&) {
    }
  }
  if (out.empty()) {
    if (!run_listing(exe, s.module, 60.0, out, why)) {
      s.broken = "its module could not be listed: " + why;
      return;
    }
    if (!s.status_dir.empty() && !ec) {
      std::ofstream f(cache);
      f << json{{"module_time", stamp}, {"listing", out}}.dump();
    }
  }
  json j;
  try {
    j = json::parse(out);
  } catch (const std::exception&) {
    s.broken = "its module's listing is not readable (does a static initializer print to stdout?)";
    return;
  }
  if (!j.value("ok", false)) {
    s.broken = "its module could not be loaded: " + j.value("error", std::string("?"));
    return;
  }
  std::map<std::string, std::string> seen;  // family/type/name -> where
  std::vector<SubmissionVariant> vs;
  std::size_t index = 0;
  for (const json& e : j.at("entries")) {
    const std::string at = where(e, s.folder);
    std::string no = refusal(e);
    const std::string key = e.value("family", "") + " " + e.value("dtype", "") + " '" + e.value("name", "") + "'";
    if (no.empty()) {
      auto [it, fresh] = seen.emplace(key, at);
      if (!fresh) no = "registers " + key + " twice (" + it->second + " and " + at + ")";
    }
    if (!no.empty()) {
      s.broken = at + ": " + no;
      s.variants.clear();
      return;
    }
    SubmissionVariant v;
    v.submission = s.name;
    v.full_name = s.name + "/" + e.value("name", "");
    v.entry = index;
    v.family = e.value("family", "");
    v.args = e.value("args", "");
    v.dtype = e.value("dtype", "");
    v.origin = e.value("origin", "");
    if (v.origin.empty()) v.origin = "submission " + s.name;
    v.lesson = e.value("lesson", "");
    v.error_model = e.value("error_model", "");
    v.file = at;
    v.line = e.value("line", 0);
    v.args_bytes = e.value("args_bytes", std::size_t{0});
    v.size_bytes = e.value("size_bytes", std::size_t{0});
    v.feature = e.value("needs_feature", "");
    v.needs.compute_capability = e.value("needs_cc", 0);
    v.needs.shared_bytes = e.value("needs_shared_bytes", std::size_t{0});
    v.needs.clusters = e.value("needs_clusters", false);
    vs.push_back(std::move(v));
    ++index;
  }
  if (vs.empty()) {
    s.broken = "registers no variant (KL_REGISTER_VARIANT)";
    return;
  }
  s.variants = std::move(vs);
  for (auto& v : s.variants) v.needs.feature = v.feature;
}

bool has_cu_file(const fs::path& folder) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".cu") return true;
  return false;
}

// The build folder a manifest belongs to (BUILD/submissions/SET/manifest.json), as its messages name it.
std::string build_folder_of(const std::string& manifest) {
  return fs::path(manifest).parent_path().parent_path().parent_path().string();
}

// The sub-folders of the manifest's folders ("roots") that no entry names: added after the build
// was configured. Left out, saying what builds them (the next build re-runs cmake, whose glob of
// each folder's listing has changed). Hidden folders are not submissions.
// Folders are compared by what they resolve to, so a folder reached through a link is the one it
// links to.
std::string resolved(const fs::path& p) {
  std::error_code ec;
  const fs::path r = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : r).string();
}

void add_new_folders(const json& m, const std::string& path, std::vector<Submission>& out) {
  std::set<std::string> known;
  for (const Submission& s : out) known.insert(resolved(s.folder));
  for (const auto& r : m.value("roots", json::array())) {
    const fs::path root = r.get<std::string>();
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!it->is_directory(ec) || name.empty() || name[0] == '.') continue;
      if (!known.count(resolved(it->path()))) found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    for (const fs::path& f : found) {
      Submission sub;
      sub.name = f.filename().string();
      sub.folder = f.string();
      sub.broken = "a new folder, not in this build yet: cmake --build " + build_folder_of(path) + " builds it";
      out.push_back(std::move(sub));
    }
  }
}

std::vector<Submission> load(const std::string& path) {
  std::vector<Submission> out;
  if (path.empty()) return out;
  json m;
  try {
    m = json::parse(slurp(path));
  } catch (const std::exception& e) {
    throw UsageError("--submissions: " + path + " is not a submissions manifest (cmake/user_kernels.cmake writes one)");
  }
  std::set<std::string> names;
  for (const json& s : m.value("submissions", json::array())) {
    Submission sub;
    sub.name = s.value("name", "");
    sub.folder = s.value("folder", "");
    sub.module = s.value("module", "");
    sub.status_dir = s.value("status_dir", "");
    sub.broken = s.value("broken", "");
    // A folder that had nothing to build when the build was configured, and has a .cu file now.
    if (!sub.broken.empty() && s.value("files", json::array()).empty() && has_cu_file(sub.folder))
      sub.broken = "a .cu file added since the build was configured: cmake --build " + build_folder_of(path) + " builds it";
    if (!sub.broken.empty()) {
      out.push_back(std::move(sub));
      continue;
    }
    if (!names.insert(sub.name).second) {
      sub.broken = "a second submission named '" + sub.name + "' (" + sub.folder + "): rename one of the folders";
      out.push_back(std::move(sub));
      continue;
    }
    sub.broken = build_failure(s, sub.folder);
    if (!sub.broken.empty()) sub.log = s.value("status_dir", "");
    else if (!fs::exists(sub.module)) sub.broken = "its module was not built (cmake --build the build folder)";
    else list_module(sub);
    out.push_back(std::move(sub));
  }
  add_new_folders(m, path, out);
  return out;
}

}  // namespace

std::string default_submission_manifest() {
  const char* env = std::getenv("KL_SUBMISSIONS");
  return std::string(env && *env ? env : KL_SUBMISSIONS_MANIFEST);
}

SubmissionSet::SubmissionSet(std::string manifest, int shard, int shards, int device)
    : manifest_(std::move(manifest)), shard_(shard), shards_(shards), device_(device) {}

SubmissionSet::~SubmissionSet() = default;

const std::vector<Submission>& SubmissionSet::all() const {
  if (!all_) all_ = std::make_unique<std::vector<Submission>>(load(manifest_));
  return *all_;
}

bool SubmissionSet::in_shard(std::size_t i) const {
  return static_cast<int>(i % static_cast<std::size_t>(shards_)) == shard_;
}

std::vector<const Submission*> SubmissionSet::mine() const {
  std::vector<const Submission*> out;
  const auto& subs = all();
  for (std::size_t i = 0; i < subs.size(); ++i)
    if (in_shard(i)) out.push_back(&subs[i]);
  return out;
}

bool SubmissionSet::named_by(const std::string& pattern) const {
  for (const Submission* s : mine())
    if (pattern_names_submission(pattern, s->name)) return true;
  return false;
}

std::vector<const RemoteVariant*> SubmissionSet::of(std::string_view family, DType t) const {
  std::vector<const RemoteVariant*> out;
  for (const Submission* s : mine())
    for (const SubmissionVariant& v : s->variants)
      if (v.family == family && v.dtype == dtype_name(t)) out.push_back(&v);
  return out;
}

SandboxProcess& SubmissionSet::process_of(const std::string& name) {
  all();
  for (Submission& s : *all_)
    if (s.name == name) {
      if (!s.process || !s.process->alive())
        s.process = std::make_shared<SandboxProcess>(sandbox_executable(), s.module, device_, 120.0);
      return *s.process;
    }
  throw std::runtime_error("no submission " + name);
}

bool pattern_names_submission(const std::string& pattern, const std::string& name, bool* literally) {
  const auto slash = pattern.find('/');
  if (slash == std::string::npos) return false;
  const std::string head = pattern.substr(0, slash);
  if (literally) *literally = head == name;
  return fnmatch(head.c_str(), name.c_str(), 0) == 0;
}

std::string sandbox_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "kl-sandbox";
    if (fs::exists(beside)) return beside.string();
  }
  const std::string built = KL_SANDBOX_EXE;
  return !built.empty() && fs::exists(built) ? built : std::string();
}

}  // namespace kl
