#include "compare/cli/cli.hpp"

#include "compare/sandbox/submissions.hpp"
#include "compare/core/family_core.hpp"
#include "kl_git_commit.h"  // KL_GIT_COMMIT, for --version (cmake/git_commit.cmake)

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace kl {
namespace {

// One pass's share of the stop rule under --repeat R: the run's budget spread over the passes, so
// R passes cost about what one did, and never fewer than the floor's samples per pass. Set at
// parsing, so the --isolate children (which parse the same arguments) sample the same way.
StopRule per_pass(StopRule s, int passes) {
  const auto share = [&](std::size_t n) {
    return std::max(s.floor_samples, (n + static_cast<std::size_t>(passes) - 1) / static_cast<std::size_t>(passes));
  };
  s.min_samples = share(s.min_samples);
  s.max_samples = std::max(share(s.max_samples), s.min_samples);
  s.min_seconds /= passes;
  s.max_seconds /= passes;
  return s;
}

// Every family's command-line settings, each name once (the first family's wins).
std::vector<FamilySetting> family_settings() {
  std::vector<FamilySetting> out;
  for (const Family* f : all_families())
    for (FamilySetting& s : f->settings())
      if (std::none_of(out.begin(), out.end(), [&](const FamilySetting& o) { return o.name == s.name; }))
        out.push_back(std::move(s));
  return out;
}

std::vector<std::string> split(const std::string& item, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream ss(item);
  std::string part;
  while (std::getline(ss, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    for (auto& p : split(item)) out.push_back(p);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string family_names() {
  std::vector<std::string> v;
  for (const Family* f : all_families()) v.emplace_back(f->name());
  return joined(v);
}

std::string type_names(const std::vector<DType>& ts) {
  std::vector<std::string> v;
  for (DType t : ts) v.emplace_back(dtype_name(t));
  return joined(v);
}

// Every element type some family runs, in DType order.
std::vector<DType> all_types() {
  std::set<DType> s;
  for (const Family* f : all_families())
    for (DType t : f->dtypes()) s.insert(t);
  return {s.begin(), s.end()};
}

std::pair<int, int> parse_sweep(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw UsageError("--sweep takes LO:HI exponents of two, e.g. 10:28 (got '" + text + "')");
  auto exp = [&](const std::string& s) {
    const long long v = parse_positive_count(s.empty() ? "x" : s, "--sweep exponent");
    if (v > 40) throw UsageError("--sweep exponent " + s + " is larger than 40");
    return static_cast<int>(v);
  };
  const int lo = exp(text.substr(0, colon)), hi = exp(text.substr(colon + 1));
  if (lo > hi) throw UsageError("--sweep " + text + ": LO is larger than HI");
  return {lo, hi};
}

// --axis NAME=V1,V2 entries: name -> values.
std::map<std::string, std::vector<std::string>> parse_axes(const std::vector<std::string>& items) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError("--axis takes NAME=VALUE[,VALUE...], e.g. op=row_sum,row_max (got '" + item + "')");
    auto& vals = out[item.substr(0, eq)];
    for (auto& v : split(item.substr(eq + 1))) vals.push_back(v);
  }
  return out;
}

// The values of each of the family's axes for this run, checked; their cartesian product.
std::vector<AxisValues> axis_points(const Family& f, const std::map<std::string, std::vector<std::string>>& given) {
  std::vector<AxisValues> points = {{}};
  for (const StringAxis& a : f.axes()) {
    std::vector<std::string> vals = a.defaults.empty() ? std::vector<std::string>{a.values.at(0)} : a.defaults;
    if (auto it = given.find(a.name); it != given.end()) vals = it->second;
    for (const auto& v : vals) {
      const bool listed = std::find(a.values.begin(), a.values.end(), v) != a.values.end();
      const std::string why = a.refuse ? a.refuse(v) : (listed ? "" : "is not one of " + joined(a.values));
      if (!why.empty()) throw UsageError(std::string(f.name()) + ": " + a.name + " '" + v + "' " + why);
    }
    std::vector<AxisValues> next;
    for (const auto& p : points)
      for (const auto& v : vals) {
        AxisValues q = p;
        q.emplace_back(a.name, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string help_header() {
  return "compare: validate every kernel variant against an fp64 reference and the library, time it, "
         "and report how close it gets to the library and to the hardware.\n"
         "With no options: the default comparison (every family at its default types and sizes).";
}

std::string sweep_defaults() {
  std::vector<std::string> v;
  for (const Family* f : all_families()) {
    const SizeSpec& s = f->sizes();
    v.push_back(std::string(f->name()) + " 2^" + std::to_string(s.sweep_lo) + "..2^" + std::to_string(s.sweep_hi));
  }
  return joined(v);
}

}  // namespace

void check_settings(const Plan& plan, int device_count) {
  for (const FamilySetting& s : family_settings()) {
    const auto it = plan.run.settings.find(s.name);
    if (it == plan.run.settings.end() || !s.refuse) continue;
    const std::string why = s.refuse(it->second, device_count);
    if (!why.empty()) throw UsageError("--" + s.name + " " + std::to_string(it->second) + ": " + why);
  }
}

std::string join_command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find_first_of(" '\"*?$[]") != std::string::npos) a = "'" + a + "'";
    s += (i ? " " : "") + a;
  }
  return s;
}

namespace {

// A family's variants once each, with the types each runs, in listing order.
struct ListedVariant {
  VariantListing v;
  std::vector<std::string> types;
};
std::vector<ListedVariant> listed_variants(const Family* f, const SubmissionSet& subs, const ListFilter& filter) {
  std::vector<ListedVariant> out;
  for (DType t : f->dtypes()) {
    const std::string tn(dtype_name(t));
    if (!filter.types.empty() && std::find(filter.types.begin(), filter.types.end(), tn) == filter.types.end()) continue;
    for (const auto& v : f->variants(t, &subs)) {
      if (!filter.patterns.empty() && !matches_any(v.name, filter.patterns)) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const ListedVariant& l) { return l.v.name == v.name; });
      if (it == out.end()) out.push_back({v, {tn}});
      else it->types.push_back(tn);
    }
  }
  return out;
}

// Whether this build has the ladder's kernels (a -DKL_LADDER=OFF build has none: every family's
// hand-written variants are then the submissions', named alice/NAME).
bool ladder_built() {
  for (const Family* f : all_families())
    for (DType t : f->dtypes())
      for (const auto& v : f->variants(t, nullptr))
        if (v.source == Source::handwritten) return true;
  return false;
}

std::vector<const Family*> listed_families(const ListFilter& filter) {
  std::vector<const Family*> out;
  for (const Family* f : all_families())
    if (filter.families.empty() || std::find(filter.families.begin(), filter.families.end(), std::string(f->name())) != filter.families.end())
      out.push_back(f);
  return out;
}

}  // namespace

std::string list_text(const SubmissionSet& subs, const ListFilter& filter) {
  std::ostringstream os;
  const bool everything = filter.families.empty() && filter.types.empty() && filter.patterns.empty();
  if (everything) os << "families (compare --family NAME; compare --list -f NAME -t TYPE -v GLOB narrows this, --json for a program):\n";
  if (filter.families.empty())
    for (const UnbuiltFamily& u : unbuilt_families()) os << "\n" << u.name << ": " << u.why << "\n";
  if (!ladder_built())
    os << "\nno ladder in this build (configured with -DKL_LADDER=OFF, a grader build): each family lists its library "
          "baselines and the submissions' variants\n";
  if (const auto statuses = submission_statuses(subs, filter.patterns); !statuses.empty())
    os << "\nsubmissions (" << statuses.size() << "; compare --list-submissions lists them alone):\n" << status_lines(statuses);
  for (const Family* f : listed_families(filter)) {
    const auto variants = listed_variants(f, subs, filter);
    if (!everything && variants.empty()) continue;
    const SizeSpec& s = f->sizes();
    os << "\n" << f->name() << ": " << f->summary() << "\n";
    os << "  types: " << type_names(f->dtypes()) << " (default: " << type_names(f->default_dtypes())
       << ")   metric: " << f->unit() << "\n";
    os << "  sizes: " << s.syntax() << "\n  default sizes:";
    for (const Dims& d : s.defaults) os << ' ' << s.label(d);
    os << "; --default-sweep 2^" << s.sweep_lo << "..2^" << s.sweep_hi << "\n";
    for (const StringAxis& a : f->axes()) {
      os << "  axis " << a.name << " (--axis " << a.name << "=V,...): " << a.help << "\n    values: " << joined(a.values)
         << "; default: " << joined(a.defaults) << "\n";
    }
    if (const auto extra = f->extra_defaults(); !extra.empty()) {
      os << "  also in the default comparison:";
      for (const auto& [d, a] : extra) {
        os << ' ' << s.label(d);
        for (const auto& [n, v] : a) os << ' ' << n << '=' << v;
        os << ';';
      }
      os << "\n";
    }
    os << "  variants (types):\n";
    for (const ListedVariant& l : variants) {
      const auto& v = l.v;
      os << "    " << v.name << (v.source == Source::library ? " [library]" : "") << "  " << joined(l.types) << "  ("
         << v.origin << ")  " << v.lesson;
      if (const std::string needs = needs_text(v.needs); !needs.empty()) os << "  [" << needs << "]";
      os << "\n";
    }
  }
  return os.str();
}

std::string list_json(const SubmissionSet& subs, const ListFilter& filter) {
  nlohmann::json fams = nlohmann::json::array();
  for (const Family* f : listed_families(filter)) {
    const auto variants = listed_variants(f, subs, filter);
    nlohmann::json vs = nlohmann::json::array();
    for (const ListedVariant& l : variants)
      vs.push_back({{"name", l.v.name}, {"types", l.types}, {"origin", l.v.origin}, {"lesson", l.v.lesson},
                    {"source", l.v.source == Source::library ? "library" : "handwritten"},
                    {"needs", needs_text(l.v.needs)}});
    std::vector<std::string> types, defaults, sizes;
    for (DType t : f->dtypes()) types.emplace_back(dtype_name(t));
    for (DType t : f->default_dtypes()) defaults.emplace_back(dtype_name(t));
    for (const Dims& d : f->sizes().defaults) sizes.push_back(f->sizes().label(d));
    fams.push_back({{"name", f->name()}, {"summary", f->summary()}, {"metric", f->unit()}, {"types", types},
                    {"default_types", defaults}, {"default_sizes", sizes}, {"variants", vs}});
  }
  nlohmann::json left_out = nlohmann::json::array(), listed = nlohmann::json::array();
  for (const SubmissionStatus& st : submission_statuses(subs, filter.patterns)) {
    listed.push_back({{"submission", st.name}, {"left_out", st.left_out}, {"status", st.text}});
    if (st.left_out) left_out.push_back({{"submission", st.name}, {"why", st.text.substr(std::string("left out: ").size())}});
  }
  return nlohmann::json{{"families", fams}, {"submissions", listed}, {"submissions_left_out", left_out}}.dump(1) + "\n";
}

std::string list_submissions_text(const SubmissionSet& subs) {
  if (subs.manifest().empty()) return "no submissions: this build has no -DKL_USER_KERNELS (compare --submissions MANIFEST names one)\n";
  const auto statuses = submission_statuses(subs, {});
  const auto left_out = std::count_if(statuses.begin(), statuses.end(), [](const SubmissionStatus& s) { return s.left_out; });
  return "submissions (" + std::to_string(statuses.size()) + ", " + std::to_string(left_out) + " left out; " +
         subs.manifest() + "):\n" + status_lines(statuses);
}

Plan parse_command_line(int argc, const char* const* argv) {
  Plan plan;
  CLI::App app{help_header()};
  app.set_help_flag("-h,--help", "print this help and exit");
  app.set_version_flag("--version", std::string(KL_GIT_COMMIT),
                       "print the commit this build was made from (a report's git_commit) and exit");
  std::vector<std::string> families, types, sizes, variants, axes;
  std::string sweep, mode = "kernel", flush = "read";
  bool sweep_flag = false;
  std::uint64_t seed = 0;
  app.add_flag("--list", plan.list_only,
               "list families, types, sizes, axes and variants (one line each, with its types), then exit; -f, -t and -v "
               "narrow it (needs no GPU)");
  app.add_flag("--json", plan.list_filter.json, "with --list: the listing as JSON");
  app.add_flag("--dry-run", plan.dry_run,
               "print the problems and variants this command would run, the ones --gpu would skip and why, and an "
               "estimated time from that GPU's committed default run; launches nothing (needs no GPU)");
  app.add_option("--gpu", plan.dry_run_gpu, "with --dry-run: judge the variants against this GPU's limits (T4, A100, A10, "
                                            "L4, H100, H200, B200, RTX5090, ...)");
  app.add_option("-f,--family", families, "families to run (comma-separated): " + family_names() + " (default: all)");
  app.add_option("-t,--type", types, "element types (comma-separated): " + type_names(all_types()) + " (default: per family)");
  app.add_option("-s,--sizes", sizes, "problem sizes (comma-separated), e.g. 2^28,1000 or 513x257x129, or a named set (see --list)");
  app.add_option("-a,--axis", axes, "a family's string axis, NAME=V1,V2 (repeatable), e.g. op=row_sum,row_max (see --list)");
  auto* sweep_opt = app.add_option("--sweep", sweep, "power-of-two sweep LO:HI (exponents), e.g. 10:28");
  app.add_flag("--default-sweep", sweep_flag, "each family's default power-of-two sweep (" + sweep_defaults() + ")");
  app.add_option("-v,--variants", variants, "variant name globs (comma-separated), e.g. 'reduce[5-8]*,gemm_smem*'; library baselines always run");
  app.add_option("-m,--mode", mode, "kernel: device time of the operation only; e2e: plus host->device input and device->host output copies (as doc 004 measures)")
      ->check(CLI::IsMember({"kernel", "e2e"}));
  app.add_option("--l2-flush", flush, "how L2 is emptied before each sample: read (a 2xL2 read, leaves no dirty lines; default) or write (a 2xL2 memset, as nvbench)")
      ->check(CLI::IsMember({"read", "write"}));
  app.add_option("-o,--out", plan.out_dir, "directory for compare.json, compare.csv, compare.md (default: compare-out)");
  app.add_option("--name", plan.basename, "base name of the report files (default: compare)");
  app.add_flag("--no-files", [&](std::int64_t) { plan.write_files = false; }, "print the table only");
  std::string seed_text;
  auto* seed_opt = app.add_option("--seed", seed_text, "fixed random seed, 0 to 2^64-1 (default: fresh inputs for every problem)");
  app.add_option("--warmup", plan.run.warmup, "untimed runs before sampling (default 2)")->check(CLI::Range(0, 1000));
  app.add_option("--min-samples", plan.run.stop.min_samples, "fewest samples (default 10)")->check(CLI::Range(1, 1000000));
  app.add_option("--max-samples", plan.run.stop.max_samples, "most samples (default 1000)")->check(CLI::Range(1, 1000000));
  app.add_option("--max-noise", plan.run.stop.max_noise, "stop once the relative std. dev. is at most this (default 0.02)")->check(CLI::Range(0.0, 1.0));
  app.add_option("--min-time", plan.run.stop.min_seconds, "fewest seconds of measured time per variant (default 0)")->check(CLI::Range(0.0, 3600.0));
  app.add_option("--max-time", plan.run.stop.max_seconds, "most wall seconds of sampling per variant (default 1.5)")->check(CLI::Range(0.0, 3600.0));
  app.add_option("--device", plan.device, "CUDA device index (default 0)")->check(CLI::Range(0, 1024));
  // The settings families declare for themselves (allreduce: --gpus N), one option each.
  std::map<std::string, long long> setting_values;
  std::vector<std::pair<std::string, CLI::Option*>> setting_opts;
  for (const FamilySetting& fs : family_settings())
    setting_opts.emplace_back(fs.name, app.add_option("--" + fs.name, setting_values[fs.name], fs.help)->check(CLI::Range(fs.min, fs.max)));
  app.add_option("--smem-bank-mode", plan.smem_bank_mode, "ask for 4- or 8-byte shared-memory banks first (doc 001; has no effect since Maxwell: see docs/bank-modes.md)")
      ->check(CLI::IsMember({4, 8}));
  app.add_flag("-q,--quiet", plan.quiet, "no progress line on stderr");
  app.add_option("--repeat", plan.repeat, "R passes over the problems, each in a new random order, every variant's "
                                          "samples and time caps split over them; the report keeps each pass's median, "
                                          "which compare diff tests (default 1)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--validate-only", [&](std::int64_t) { plan.run.time_variants = false; }, "validate every variant, time none (no copy ceiling either)");
  app.add_flag("--no-exact-check", [&](std::int64_t) { plan.run.exact_check = false; }, "skip the validation on integer-valued inputs");
  app.add_flag("--no-recheck", [&](std::int64_t) { plan.run.recheck = false; },
               "skip the last validation, on fresh inputs in fresh buffers (profiling: with --validate-only and --no-exact-check each variant is launched once)");
  app.add_flag("--skip-library", plan.run.skip_library, "profiling: run library baselines only where --variants names them");
  app.add_flag("--stop-on-fault", [&](std::int64_t) { plan.recover_from_faults = false; }, "when a fault leaves the CUDA context unusable, stop (exit 4, incomplete report) instead of going on in child processes");
  app.add_flag("--summary", plan.summary, "after the table, the verdict table: one line per hand-written variant (a submission's, alice/NAME, or a ladder step): passed or its first failure, best and worst % of the library, best % of the ceiling; also written as BASE.summary.md and .csv");
  std::string manifest;
  app.add_option("--submissions", manifest,
                 "the submissions manifest to grade (written by a -DKL_USER_KERNELS build: "
                 "BUILD/submissions/user/manifest.json; default: this build's own, if any)");
  app.add_flag("--list-submissions", plan.list_submissions,
               "list every submission with its status (what it registers, or why it was left out), one line each, "
               "then exit (needs no GPU)");
  std::string shard;
  app.add_option("--shard", shard,
                 "K/N: grade only every N-th submission, starting at the K-th (0-based), e.g. one task of a Slurm "
                 "array; join the reports with `compare merge`");
  app.add_option("--grade-gpus", plan.grade_gpus,
                 "grade G submissions at a time, one per GPU (devices 0..G-1), each in a child process, and merge "
                 "their reports into one")
      ->check(CLI::Range(1, 64));
  app.add_option("--phase-timeout", plan.run.phase_timeout,
                 "seconds one phase of a variant may take at least before the watchdog ends it (default 20; more where "
                 "the library's time says so)")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_flag("--isolate", plan.isolate, "run every problem in a child process: a variant that faults (illegal address, trap) loses only its own row, the problem is resumed without it");
  app.add_option("--inject-fault", plan.testing.inject_fault, "testing the runner: add a variant that faults to every problem (oob: an out-of-bounds write; trap; hang: a kernel that never ends)")
      ->check(CLI::IsMember({"oob", "trap", "hang"}));
  std::vector<std::string> delays;
  app.add_option("--inject-delay", delays, "testing compare diff: VARIANT=MICROSECONDS makes that variant wait on the GPU after every launch (repeatable)");
  // Internal: how --isolate starts its children.
  app.add_option("--worker", plan.worker)->group("");
  app.add_option("--worker-out", plan.worker_out)->group("");
  app.add_option("--worker-copy-gbps", plan.worker_copy_gbps)->group("");
  app.add_option("--worker-variants", plan.worker_variants)->delimiter(',')->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    plan.help_only = true;
    plan.help_text = app.help();
    return plan;
  } catch (const CLI::CallForVersion&) {
    plan.version_only = true;
    plan.help_text = KL_GIT_COMMIT;
    return plan;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  plan.argv.assign(argv, argv + argc);
  if (!manifest.empty()) {
    if (!std::filesystem::exists(manifest)) throw UsageError("--submissions: no such file: " + manifest);
    manifest = std::filesystem::absolute(manifest).string();
  } else {
    manifest = default_submission_manifest();
  }
  int shard_k = 0, shard_n = 1;
  if (!shard.empty()) {
    const auto slash = shard.find('/');
    int k = -1, n = 0;
    try {
      if (slash != std::string::npos) {
        std::size_t used = 0;
        k = std::stoi(shard.substr(0, slash), &used);
        if (used != slash) k = -1;
        n = std::stoi(shard.substr(slash + 1), &used);
        if (used != shard.size() - slash - 1) n = 0;
      }
    } catch (const std::exception&) {
      k = -1;
    }
    if (k < 0 || n < 1 || k >= n) throw UsageError("--shard takes K/N with 0 <= K < N (got '" + shard + "')");
    shard_k = k, shard_n = n;
  }
  plan.submission_set = std::make_shared<SubmissionSet>(manifest, shard_k, shard_n, plan.device);
  plan.run.remote = plan.submission_set.get();
  const SubmissionSet& subs = *plan.submission_set;
  if (plan.list_submissions) return plan;
  if (!plan.dry_run_gpu.empty() && !plan.dry_run) throw UsageError("--gpu goes with --dry-run (a real run uses the GPU it finds: --device)");
  if (plan.list_filter.json && !plan.list_only) throw UsageError("--json goes with --list (compare diff has its own --json)");
  if (plan.list_only) {
    for (const auto& n : split_list(families)) {
      if (n == "all") continue;
      if (!find_family(n)) throw UsageError("unknown family '" + n + "' (families: " + family_names() + ")");
      plan.list_filter.families.push_back(n);
    }
    for (const auto& n : split_list(types)) {
      if (!parse_dtype(n)) throw UsageError("unknown type '" + n + "' (types: " + type_names(all_types()) + ")");
      plan.list_filter.types.push_back(n);
    }
    plan.list_filter.patterns = split_list(variants);
    return plan;
  }
  if (plan.run.stop.min_samples > plan.run.stop.max_samples) throw UsageError("--min-samples is larger than --max-samples");
  if (plan.repeat > 1) plan.run.stop = per_pass(plan.run.stop, plan.repeat);

  for (const auto& d : delays) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--inject-delay takes VARIANT=MICROSECONDS (got '" + d + "')");
    const long long us = parse_positive_count(d.substr(eq + 1), "--inject-delay microseconds");
    plan.testing.inject_delay.emplace_back(d.substr(0, eq), static_cast<double>(us));
  }
  for (const auto& [name, opt] : setting_opts)
    if (*opt) plan.run.settings[name] = setting_values[name];
  plan.run.end_to_end = mode == "e2e";
  plan.l2_flush = flush == "write" ? L2Flush::write : L2Flush::read;
  if (*seed_opt) {
    std::size_t used = 0;
    try {
      if (seed_text.empty() || seed_text.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("");
      seed = std::stoull(seed_text, &used);
    } catch (const std::exception&) {
      throw UsageError("--seed takes a whole number from 0 to 2^64-1 (got '" + seed_text + "')");
    }
    plan.run.seed = seed;
  }
  // An empty item in a list (-s '', -s 1,,2) is a typo, not a request for the defaults.
  for (const auto& [name, items] : {std::pair<const char*, const std::vector<std::string>*>{"--sizes", &sizes},
                                    {"--family", &families}, {"--type", &types}, {"--variants", &variants}}) {
    for (const auto& item : *items)
      if (item.empty() || item.front() == ',' || item.back() == ',' || item.find(",,") != std::string::npos)
        throw UsageError(std::string(name) + ": an empty item in '" + item + "'");
  }
  // Where the report goes must be writable before anything runs, not found out after the run.
  if (plan.write_files && plan.worker < 0 && !plan.dry_run) {
    // The folder, or the nearest folder above it that exists (compare creates the rest).
    std::filesystem::path at = std::filesystem::absolute(plan.out_dir);
    std::error_code ec;
    while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path()) at = at.parent_path();
    if (!std::filesystem::is_directory(at, ec) || access(at.c_str(), W_OK) != 0)
      throw UsageError("--out: cannot write to " + plan.out_dir + " (" + at.string() +
                       (std::filesystem::is_directory(at, ec) ? " is not writable)" : " is not a folder)"));
  }
  plan.run.variant_patterns = split_list(variants);

  // Families.
  std::vector<const Family*> fams;
  const auto fam_names = split_list(families);
  const bool explicit_families = !fam_names.empty() && !(fam_names.size() == 1 && fam_names[0] == "all");
  if (!explicit_families) {
    // The default comparison leaves out a family not yet measured on a GPU; `-f all` takes it.
    for (const Family* f : all_families())
      if (!fam_names.empty() || f->in_default_run()) fams.push_back(f);
  } else {
    for (const auto& n : fam_names) {
      const Family* f = find_family(n);
      for (const UnbuiltFamily& u : unbuilt_families())
        if (!f && u.name == n) throw UsageError("family " + n + " was " + u.why);
      if (!f) throw UsageError("unknown family '" + n + "' (families: " + family_names() + ")");
      if (std::find(fams.begin(), fams.end(), f) == fams.end()) fams.push_back(f);
    }
  }

  // Types.
  std::vector<DType> wanted;
  for (const auto& n : split_list(types)) {
    auto t = parse_dtype(n);
    if (!t) throw UsageError("unknown type '" + n + "' (types: " + type_names(all_types()) + ")");
    wanted.push_back(*t);
  }

  // Axes: every name given must belong to a selected family.
  const auto axis_values = parse_axes(axes);
  for (const auto& [name, vals] : axis_values) {
    bool known = false;
    for (const Family* f : fams)
      for (const StringAxis& a : f->axes()) known |= a.name == name;
    if (!known) throw UsageError("no selected family has an axis '" + name + "' (see compare --list)");
  }

  // Sizes.
  const auto size_texts = split_list(sizes);
  if (sweep_flag && *sweep_opt) throw UsageError("give either --sweep LO:HI or --default-sweep, not both");
  if ((sweep_flag || *sweep_opt) && !size_texts.empty()) throw UsageError("give either --sizes or a sweep, not both");
  std::optional<std::pair<int, int>> sweep_range;
  if (*sweep_opt) sweep_range = parse_sweep(sweep);

  std::set<std::string> matched_patterns;
  std::vector<ChosenFamily> chosen;
  for (const Family* f : fams) {
    std::vector<DType> ts;
    if (wanted.empty()) {
      ts = f->default_dtypes();
    } else {
      const auto supported = f->dtypes();
      for (DType t : wanted)
        if (std::find(supported.begin(), supported.end(), t) != supported.end()) ts.push_back(t);
      if (ts.empty()) {
        if (explicit_families) throw UsageError("family " + std::string(f->name()) + " has no variants of the requested type (types: " + type_names(f->dtypes()) + ")");
        continue;
      }
    }
    chosen.push_back({f, ts});
    const SizeSpec& spec = f->sizes();
    std::vector<Dims> dims;
    if (!size_texts.empty()) {
      for (const auto& s : size_texts)
        for (auto& d : spec.parse(f->name(), s)) dims.push_back(std::move(d));
    } else if (sweep_flag) {
      dims = spec.sweep(f->name(), spec.sweep_lo, spec.sweep_hi);
    } else if (sweep_range) {
      dims = spec.sweep(f->name(), sweep_range->first, sweep_range->second);
    } else {
      dims = spec.defaults;
    }
    const auto points = axis_points(*f, axis_values);
    // The family's extra default problems join only the plain default comparison (no sizes, no
    // sweep, no axis values given).
    const bool plain_defaults = size_texts.empty() && !sweep_flag && !sweep_range && axis_values.empty();
    // Only families/types that have a variant the patterns select.
    for (DType t : ts) {
      bool any = false;
      for (const auto& v : f->variants(t, &subs)) {
        for (const auto& p : plan.run.variant_patterns)
          if (matches_any(v.name, {p})) matched_patterns.insert(p), any = true;
      }
      // A shard of a graded folder (--shard, --grade-gpus) may hold no submission of a family the
      // others do: it still runs the family's problems (the library rows), so every shard's report
      // merges, rather than stopping on a pattern that only other shards match.
      if (!plan.run.variant_patterns.empty() && !any && subs.shards() == 1) continue;
      for (const auto& d : dims)
        for (const auto& a : points) plan.problems.push_back({f, ProblemKey{t, d, a}});
      if (plain_defaults)
        for (const auto& [d, a] : f->extra_defaults()) plan.problems.push_back({f, ProblemKey{t, d, a}});
    }
  }
  // A pattern that names a submission stays in the run even where it matches no variant (the
  // submission was left out, or has nothing in these families): its status line says why, and
  // every other submission is graded. One that names nothing at all is a typo.
  for (const auto& p : plan.run.variant_patterns) {
    if (!matched_patterns.count(p) && subs.shards() == 1 && !subs.named_by(p)) {
      std::set<std::string> seen;
      std::vector<std::string> names;
      for (const Family* f : fams)
        for (DType t : f->dtypes())
          for (const auto& v : f->variants(t, &subs))
            if (v.source == Source::handwritten && seen.insert(v.name).second) names.push_back(v.name);
      std::vector<std::string> some(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(names.size(), 8)));
      const std::string more = names.size() > some.size() ? ", and " + std::to_string(names.size() - some.size()) + " more" : "";
      throw UsageError("no variant matches '" + p + "' (variants: " + joined(some) + more +
                       "; compare --list -f FAMILY -v 'GLOB' shows them)");
    }
  }
  plan.submissions = submission_statuses(subs, plan.run.variant_patterns, chosen);
  // Nothing to run but a submission the command names that cannot be graded: main says why and
  // exits 1, as a run would.
  const bool a_failed_submission = std::any_of(plan.submissions.begin(), plan.submissions.end(),
                                               [](const SubmissionStatus& st) { return st.failed; });
  if (plan.problems.empty() && !a_failed_submission)
    throw UsageError("nothing to run: no selected family has the requested types and variants" +
                     std::string(plan.submissions.empty() ? "" : " (compare --dry-run says what each submission has)"));
  if (plan.worker >= 0) {
    if (static_cast<std::size_t>(plan.worker) >= plan.problems.size() || plan.worker_out.empty())
      throw UsageError("--worker: no such problem");
    plan.isolate = false;
    if (!plan.worker_variants.empty()) {
      plan.run.variant_patterns = plan.worker_variants;
      // The injected fault runs only where the parent asks for it: once it has its row, the
      // workers that resume the problem must run the other variants without it.
      const std::string fault = fault_variant_name(plan.testing.inject_fault);
      if (std::find(plan.worker_variants.begin(), plan.worker_variants.end(), fault) == plan.worker_variants.end())
        plan.testing.inject_fault.clear();
    }
  }
  plan.run.wrap_candidates = candidate_wrapper(plan.testing);
  return plan;
}

}  // namespace kl
