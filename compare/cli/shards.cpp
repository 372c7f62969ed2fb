#include "compare/cli/shards.hpp"

#include "compare/cli/runner.hpp"
#include "compare/report/merge.hpp"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <filesystem>
#include <ostream>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kl {
namespace {

// The command line as given, less the options the parent sets for each child.
std::vector<std::string> child_args(const Plan& plan, int g) {
  static const std::vector<std::string> drop_with_value = {"--grade-gpus", "--device", "-o", "--out", "--name", "--shard"};
  static const std::vector<std::string> drop_flag = {"--summary", "-q", "--quiet"};
  std::vector<std::string> out = {"/proc/self/exe"};
  for (std::size_t i = 1; i < plan.argv.size(); ++i) {
    const std::string& a = plan.argv[i];
    bool dropped = false;
    for (const auto& d : drop_with_value) {
      if (a == d) {
        ++i;
        dropped = true;
      } else if (a.rfind(d + "=", 0) == 0) {
        dropped = true;
      }
    }
    for (const auto& d : drop_flag) dropped |= a == d;
    if (!dropped) out.push_back(a);
  }
  const std::string dir = plan.out_dir + "/shard-" + std::to_string(g);
  out.insert(out.end(), {"--shard", std::to_string(g) + "/" + std::to_string(plan.grade_gpus), "--device",
                         std::to_string(g), "--out", dir, "--name", plan.basename, "-q"});
  return out;
}

}  // namespace

Report run_graded_on_gpus(const Plan& plan, std::ostream& out) {
  std::vector<pid_t> pids;
  for (int g = 0; g < plan.grade_gpus; ++g) {
    auto args = child_args(plan, g);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("--grade-gpus: cannot start a child process");
    pids.push_back(pid);
  }
  std::vector<Report> parts;
  std::vector<std::string> labels;
  std::string failed;
  for (int g = 0; g < plan.grade_gpus; ++g) {
    int st = 0;
    while (waitpid(pids[static_cast<std::size_t>(g)], &st, 0) < 0 && errno == EINTR) {
    }
    const std::string file = plan.out_dir + "/shard-" + std::to_string(g) + "/" + plan.basename + ".json";
    const bool ran = WIFEXITED(st) && (WEXITSTATUS(st) == kExitOk || WEXITSTATUS(st) == kExitFailures);
    if (!ran || !std::filesystem::exists(file)) {
      failed += (failed.empty() ? "" : "; ") + std::string("the child on GPU ") + std::to_string(g) + " ended with status " +
                std::to_string(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
      if (!std::filesystem::exists(file)) continue;
    }
    parts.push_back(load_report(file));
    labels.push_back(file);
  }
  if (parts.empty()) throw std::runtime_error("--grade-gpus: no child wrote a report (" + failed + ")");
  // The children are one run: every one times the library, so only GPUs that differ are worth a line.
  MergeNotes notes;
  Report rep = merge_reports(parts, labels, notes);
  std::vector<const char*> argv;
  for (const auto& a : plan.argv) argv.push_back(a.c_str());
  rep.meta.command_line = join_command_line(static_cast<int>(argv.size()), argv.data());
  if (!failed.empty()) {
    rep.meta.incomplete = true;
    rep.meta.incomplete_reason += (rep.meta.incomplete_reason.empty() ? "" : "; ") + failed;
  }
  print_table(out, rep);
  if (!notes.mixed_gpus.empty()) out << "\n  the GPUs differ (" << notes.mixed_gpus << "): their rows are not comparable\n";
  if (!plan.summary) print_ungraded(plan, out);
  if (plan.write_files) {
    const std::string base = plan.out_dir + "/" + plan.basename;
    write_reports(base, rep);
    out << "  wrote " << base << ".json, .csv, .md (merged from " << parts.size() << " GPUs)\n";
  }
  if (plan.summary) write_summary(plan, rep, out);
  return rep;
}

int merge_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"compare merge: join reports (the shards of a graded folder) into one; needs no GPU"};
  app.footer("Each submission's rows must come from one report: a submission graded in two is refused (exit 2), as "
             "a typo would be (compare diff compares two runs). Library and ladder rows, which every shard times "
             "again, are kept from the first report that has them, and merge says how many.\n"
             "Exit status: 0 every row of the merged report passed (or was skipped); 1 a row failed or raised an "
             "error; 2 bad input (a report that does not read, a submission in two reports, an unwritable folder).");
  std::vector<std::string> files;
  std::string dir = "compare-out", name = "compare";
  app.add_option("reports", files, "the reports (.json or .json.gz)")->required()->check(CLI::ExistingFile);
  app.add_option("-o,--out", dir, "directory of the merged report (default: compare-out)");
  app.add_option("--name", name, "base name of the merged report's files (default: compare)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    err << "compare merge: error: " << e.what() << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || access(dir.c_str(), W_OK) != 0) {
    err << "compare merge: error: cannot write to " << dir << "\n";
    return kExitUsage;
  }
  std::vector<Report> parts;
  try {
    for (const auto& f : files) parts.push_back(load_report(f));
  } catch (const std::exception& e) {
    err << "compare merge: error: " << e.what() << "\n";
    return kExitUsage;
  }
  MergeNotes notes;
  Report rep;
  try {
    rep = merge_reports(parts, files, notes);
  } catch (const MergeRefused& e) {
    err << "compare merge: error: " << e.what() << "\n";
    return kExitUsage;
  }
  print_table(out, rep);
  for (const auto& n : notes.lines()) err << "compare merge: note: " << n << "\n";
  write_reports(dir + "/" + name, rep);
  out << "  wrote " << dir << "/" << name << ".json, .csv, .md (merged from " << parts.size() << " reports)\n";
  return exit_code_for(rep);
}

}  // namespace kl
