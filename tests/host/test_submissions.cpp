// Outside submissions, the part that needs no GPU: each submission of the red team (tests/redteam/)
// built into its own module with the build's flags, listed through its own sandbox process, and
// what does not fit a family refused loudly, naming the submission and the file, while every
// other submission is listed as usual. The verdicts of the ones that run: tests/gpu/test_submissions.cpp.
#include "compare_cli.hpp"

#include <doctest/doctest.h>

#include <string>

namespace kl::test {
namespace {

// The line `compare --list` gives a submission that was left out ("" if none).
std::string left_out_line(const std::string& listing, const std::string& name) {
  const std::string head = "\n  " + name + ": left out: ";
  const auto at = listing.find(head);
  if (at == std::string::npos) return {};
  return listing.substr(at + 1, listing.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("the red team's builds and registrations: each refusal names its submission and file; the others are listed") {
  const Run r = run_compare(std::string("--submissions ") + KL_REDTEAM_MANIFEST + " --list -f reduce,gemm,gemv");
  REQUIRE(r.code == 0);
  const std::string& out = r.output;
  CAPTURE(out);
  // Built with the build's own flags (Release: NDEBUG defined), a Debug-only constant does not compile.
  const std::string debug = left_out_line(out, "debug_only");
  CHECK(debug.find("does not compile: debug_only/sum.cu") != std::string::npos);
  CHECK(debug.find("kThreads") != std::string::npos);
  CHECK(debug.find("full log:") != std::string::npos);
  CHECK(left_out_line(out, "unknown_family").find("unknown_family/sum.cu:") != std::string::npos);
  CHECK(left_out_line(out, "unknown_family").find("unknown family 'reduc' (the families are: ") != std::string::npos);
  CHECK(left_out_line(out, "wrong_args").find("wrong_args/dot.cu:") != std::string::npos);
  CHECK(left_out_line(out, "wrong_args").find("a launcher taking DotArgs into 'reduce', whose launchers take ReduceArgs") !=
        std::string::npos);
  CHECK(left_out_line(out, "wrong_type").find("element type 'int' is not one the family 'gemm' runs (float, double)") !=
        std::string::npos);
  // A module whose static initializer runs a program is killed by the sandbox's process filter
  // while it is listed (no_new_processes.hpp): left out, the reason named.
  CHECK(left_out_line(out, "program_at_load").find("a system call the sandbox refuses") != std::string::npos);
  const std::string dup = left_out_line(out, "duplicate_name");
  CHECK(dup.find("registers reduce float 'sum' twice (duplicate_name/sum.cu:") != std::string::npos);
  // Two submissions that define the same names at file scope both build; a chatty static
  // initializer does not disturb its listing; every honest and planted variant that fits is listed.
  for (const char* v : {"clash_a/sum", "clash_b/sum", "noisy_init/sum", "honest_sum/sum", "honest_gemm/tiled16",
                        "capture_aware/sum", "guard_memo/sum", "content_cache/sum", "counter_cache/sum",
                        "write_before/sum", "host_graph/sum", "registry_tamper/sum", "input_mutation/sum", "spin/sum",
                        "tf32_exact_detect/tf32", "transform_cache_sum/sum", "transform_cache_gemm/cached",
                        "persist_window/sum", "stream_window/sum", "priority_node/sum", "cache_hints/sum",
                        "left_running/sum", "inf_late/sum", "thread_start/sum", "limit_in_launch/sum",
                        "escaped_child/sum", "honest_gemv/warp_per_row"}) {
    CAPTURE(v);
    CHECK(out.find(std::string(v) + " ") != std::string::npos);
  }
  for (const char* gone :
       {"debug_only/", "unknown_family/", "wrong_args/", "wrong_type/", "duplicate_name/", "program_at_load/"}) {
    CAPTURE(gone);
    CHECK(out.find(std::string("  ") + gone) == std::string::npos);
  }
}

TEST_CASE("the examples are listed from their manifest, and a manifest that is not one is refused in one line") {
  const Run r = run_compare(std::string("--submissions ") + KL_EXAMPLES_MANIFEST + " --list -f reduce,gemv");
  REQUIRE(r.code == 0);
  CHECK(r.output.find("alice/warp_atomic") != std::string::npos);
  CHECK(r.output.find("bob/shared_tree") != std::string::npos);
  CHECK(r.output.find("carol/warp_per_row") != std::string::npos);
  const Run missing = run_compare("--submissions /nonexistent/manifest.json --list");
  CHECK(missing.code == 2);
  CHECK(count_lines(missing.output) == 1);
}

}  // namespace kl::test
