// A teacher's class folder (docs/your-kernel.md, "A class folder"): every submission has a status
// line wherever submissions are shown; --variants naming a submission that cannot be graded (left
// out, or nothing in the chosen families) gives it a row and never stops the others; a pattern that
// names nothing stays a usage error; folders newer than the build, or with nothing to build, are
// named. The examples (examples/user_kernels) are the class: alice's sum, bob's wrong sum, carol's
// matrix-vector product, erin who does not compile, frank who registers a name twice.
#include "compare/cli/submission_status.hpp"
#include "compare/core/family.hpp"
#include "compare/report/summary.hpp"
#include "compare/sandbox/submissions.hpp"

#include "compare_cli.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kl::test {
namespace {

std::string examples() { return std::string("--submissions ") + KL_EXAMPLES_MANIFEST + " "; }

// The line of `text` that starts with `head` ("" if none).
std::string line_of(const std::string& text, const std::string& head) {
  const auto at = text.find(head);
  if (at == std::string::npos) return {};
  return text.substr(at, text.find('\n', at) - at);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

SubmissionVariant variant_of(const std::string& sub, const std::string& name, const std::string& family, const std::string& dtype) {
  SubmissionVariant v;
  v.submission = sub;
  v.full_name = sub + "/" + name;
  v.family = family;
  v.dtype = dtype;
  return v;
}

}  // namespace

TEST_CASE("the class: every submission has one status line; a left-out one names its file, line and first error") {
  const Run r = run_compare(examples() + "--list-submissions");
  REQUIRE(r.code == 0);
  const std::string& out = r.output;
  CAPTURE(out);
  // One line for every sub-folder of the examples, whatever else the class holds.
  int folders = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(KL_SOURCE_DIR) + "/examples/user_kernels"))
    folders += e.is_directory();
  CHECK(out.find("submissions (" + std::to_string(folders) + ", 2 left out; ") == 0);
  CHECK(line_of(out, "  alice: ") == "  alice: reduce: warp_atomic (float)");
  CHECK(line_of(out, "  bob: ") == "  bob: reduce: shared_tree (float)");
  CHECK(line_of(out, "  carol: ") == "  carol: gemv: warp_per_row (float, double)");
  const std::string erin = line_of(out, "  erin: ");
  CHECK(erin.find("  erin: left out: does not compile: erin/reduce_block_sum.cu(") == 0);
  CHECK(has(erin, "identifier \"sum\" is undefined"));
  CHECK(has(erin, "(full log: "));
  const std::string frank = line_of(out, "  frank: ");
  CHECK(frank.find("  frank: left out: frank/reduce_two_grids.cu:") == 0);
  CHECK(has(frank, "registers reduce float 'grid_sum' twice (frank/reduce_two_grids.cu:"));
  CHECK(count_lines(out) == 1 + folders);
}

TEST_CASE("--list shows the submissions -v names, and only those; every one without -v") {
  const Run one = run_compare(examples() + "--list -f reduce -v 'alice/*'");
  REQUIRE(one.code == 0);
  CHECK(has(one.output, "\n  alice: reduce: warp_atomic (float)\n"));
  CHECK_FALSE(has(one.output, "erin"));
  CHECK_FALSE(has(one.output, "frank"));
  const Run all = run_compare(examples() + "--list -f gemv");
  REQUIRE(all.code == 0);
  CHECK(has(all.output, "\n  erin: left out: does not compile: "));
  CHECK(has(all.output, "\n  frank: left out: "));
  const Run json = run_compare(examples() + "--list --json -v 'erin/*'");
  REQUIRE(json.code == 0);
  CHECK(has(json.output, "\"submission\": \"erin\""));
  CHECK_FALSE(has(json.output, "\"submission\": \"alice\""));
}

TEST_CASE("--variants naming a submission that cannot be graded gives it a status, never a usage error") {
  const Run r = run_compare(examples() + "--dry-run -f reduce -t float -s 1000 -v 'alice/*,carol/*,erin/*,frank/*'");
  REQUIRE(r.code == 0);
  const std::string& out = r.output;
  CAPTURE(out);
  CHECK(has(out, "\nsubmissions:\n  alice: graded: reduce: warp_atomic (float)\n"));
  CHECK(has(out, "\n  carol: not graded: no variant in reduce (float); it registers gemv: warp_per_row (float, double)\n"));
  CHECK(has(out, "\n  erin: left out: does not compile: erin/reduce_block_sum.cu("));
  CHECK(has(out, "\n  frank: left out: frank/reduce_two_grids.cu:"));
  CHECK_FALSE(has(out, "bob"));  // not named
  // A pattern that names no submission and matches no variant is still a typo: one line, exit 2.
  for (const char* args : {"--dry-run -f reduce -v 'zed/*'", "--dry-run -f reduce -v 'alice/*,zed/*'", "-f reduce -v 'nomatch*'"}) {
    CAPTURE(args);
    const Run bad = run_compare(examples() + args);
    CHECK(bad.code == 2);
    CHECK(count_lines(bad.output) == 1);
    CHECK(has(bad.output, "no variant matches"));
  }
}

TEST_CASE("nothing to grade but a named submission that cannot be graded: its row, its reason, exit 1, no GPU needed") {
  const auto dir = fresh_dir("kl_class_summary");
  const Run r = run_compare(examples() + "-f reduce -t float -s 1000 -v 'carol/*,erin/*' --summary --out " + dir.string());
  CHECK(r.code == 1);
  CAPTURE(r.output);
  CHECK(has(r.output, "| carol | carol/* |  | not graded: no variant in reduce (float); it registers gemv: warp_per_row (float, double) | 0/0 |"));
  CHECK(has(r.output, "| erin | erin/* |  | left out: does not compile: erin/reduce_block_sum.cu("));
  std::ifstream md(dir / "compare.summary.md");
  REQUIRE(md.good());
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK(has(text, "| carol | carol/* |"));
  const Run plain = run_compare(examples() + "-f reduce -v 'erin/*' --no-files");
  CHECK(plain.code == 1);
  CHECK(has(plain.output, "submissions this run names but did not grade:\n  erin: left out: does not compile: "));
  std::filesystem::remove_all(dir);
}

TEST_CASE("statuses: a left-out submission fails the run that names it; nothing to grade fails only one named by name") {
  Submission alice, bob, erin;
  alice.name = "alice";
  alice.variants = {variant_of("alice", "warp_atomic", "reduce", "float")};
  bob.name = "bob";
  bob.variants = {variant_of("bob", "warp_per_row", "gemv", "float"), variant_of("bob", "warp_per_row", "gemv", "double")};
  erin.name = "erin";
  erin.broken = "does not compile: erin/sum.cu(3): error: x";
  const std::vector<const Submission*> subs = {&alice, &bob, &erin};
  const std::vector<ChosenFamily> reduce = {{find_family("reduce"), {DType::f32}}};
  REQUIRE(reduce[0].family != nullptr);

  const auto by_name = statuses_of(subs, {"alice/*", "bob/*", "erin/*"}, reduce);
  REQUIRE(by_name.size() == 3);
  CHECK(by_name[0].graded);
  CHECK_FALSE(by_name[0].failed);
  CHECK(by_name[0].text == "graded: reduce: warp_atomic (float)");
  CHECK_FALSE(by_name[1].graded);
  CHECK(by_name[1].failed);  // 'bob/*' names bob, who has nothing to grade here
  CHECK(by_name[1].text == "not graded: no variant in reduce (float); it registers gemv: warp_per_row (float, double)");
  CHECK(by_name[2].left_out);
  CHECK(by_name[2].failed);
  CHECK(by_name[2].text == "left out: does not compile: erin/sum.cu(3): error: x");

  const auto wildcard = statuses_of(subs, {"*/*"}, reduce);
  REQUIRE(wildcard.size() == 3);
  CHECK_FALSE(wildcard[1].failed);  // '*/*' grades whoever has a sum: bob's status is said, not failed
  CHECK(wildcard[2].failed);        // a submission that did not build always fails the run that names it

  const auto one = statuses_of(subs, {"alice/*"}, reduce);
  REQUIRE(one.size() == 1);  // only the named ones
  CHECK(one[0].name == "alice");
  const auto misnamed = statuses_of(subs, {"alice/other*"}, reduce);
  REQUIRE(misnamed.size() == 1);
  CHECK(misnamed[0].text == "not graded: --variants names none of its variants in reduce (float); it registers reduce: warp_atomic (float)");
  CHECK(misnamed[0].failed);
  const auto listing = statuses_of(subs, {});
  REQUIRE(listing.size() == 3);
  CHECK(listing[1].text == "gemv: warp_per_row (float, double)");
  CHECK(pattern_names_submission("st*/*", "student07"));
  CHECK_FALSE(pattern_names_submission("warp*", "warp"));  // no '/': a ladder pattern
}

TEST_CASE("the verdict table: one line per hand-written variant, then each submission the run could not grade") {
  Report r;
  Row alice;
  alice.family = "reduce";
  alice.dtype = "float";
  alice.shape = "n=1000";
  alice.variant = "alice/warp_atomic";
  alice.source = Source::handwritten;
  alice.status = RowStatus::ok;
  r.rows = {alice};
  const auto lines = summarize(r, {{"carol", "not graded: no variant in reduce (float); it registers gemv: warp_per_row (float)"},
                                   {"erin", "left out: does not compile: erin/sum.cu(3): error: x"}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].verdict == "passed");
  CHECK(lines[1].variant == "carol/*");
  CHECK(lines[1].submission == "carol");
  CHECK(lines[1].verdict == "not graded: no variant in reduce (float); it registers gemv: warp_per_row (float)");
  CHECK(lines[2].verdict == "left out: does not compile: erin/sum.cu(3): error: x");
  const std::string md = summary_markdown(lines);
  CHECK(has(md, "| carol | carol/* |  | not graded: no variant in reduce (float); it registers gemv: warp_per_row (float) | 0/0 |"));
  CHECK(has(summary_csv(lines), "\nerin,erin/*,,left out: does not compile: erin/sum.cu(3): error: x,0,0,0,"));
}

TEST_CASE("a folder newer than the build, and one with nothing to build, are named with what to do") {
  const auto dir = fresh_dir("kl_class_new_folder");
  const auto labs = dir / "labs";
  std::filesystem::create_directories(labs / "amy");
  std::filesystem::create_directories(labs / "gina");
  std::filesystem::create_directories(labs / ".git");
  std::ofstream(labs / "amy" / "sum.cpp") << "// a .cpp by mistake\n";
  std::ofstream(labs / "gina" / "sum.cu") << "// added after the build was configured\n";
  const auto manifest = dir / "build" / "submissions" / "user" / "manifest.json";
  std::filesystem::create_directories(manifest.parent_path());
  std::ofstream(manifest) << "{\"set\": \"user\", \"roots\": [\"" << labs.string() << "\"], \"submissions\": [\n"
                          << "{\"name\": \"amy\", \"folder\": \"" << (labs / "amy").string() << "\", \"status_dir\": \"\", "
                          << "\"files\": [], \"module\": \"\", \"broken\": \"nothing to build: no .cu file in amy/ (it holds "
                             "sum.cpp); a submission's kernels go in .cu files\"}]}\n";
  const Run r = run_compare("--submissions " + manifest.string() + " --list-submissions");
  REQUIRE(r.code == 0);
  CAPTURE(r.output);
  CHECK(has(r.output, "\n  amy: left out: nothing to build: no .cu file in amy/ (it holds sum.cpp)"));
  CHECK(has(r.output, "\n  gina: left out: a new folder, not in this build yet: cmake --build " + (dir / "build").string() +
                          " builds it\n"));
  CHECK_FALSE(has(r.output, ".git"));
  CHECK(count_lines(r.output) == 3);
  // amy gets her .cu file: the build folder has not seen it yet.
  std::ofstream(labs / "amy" / "sum.cu") << "// renamed\n";
  const Run again = run_compare("--submissions " + manifest.string() + " --list-submissions");
  CHECK(has(again.output, "\n  amy: left out: a .cu file added since the build was configured: cmake --build "));
  std::filesystem::remove_all(dir);
}

}  // namespace kl::test
