// Command-line parsing and bad input: in-process through parse_command_line, and end to end
// through the real `compare` executable (exit code 2 and exactly one line on stderr).
#include "compare/cli/cli.hpp"
#include "compare/sandbox/submissions.hpp"
#include "compare/core/device.hpp"
#include "compare_cli.hpp"

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kl;
using namespace kl::test;

TEST_CASE("no options: the default comparison covers every family at its default types and sizes") {
  const Plan p = parse({});
  bool reduce_2p28_float = false, gemm_2048_double = false, aat_1000 = false;
  for (const auto& pr : p.problems) {
    reduce_2p28_float |= pr.family->name() == "reduce" && pr.key.dtype == DType::f32 && pr.key.dims == Dims{1LL << 28};
    gemm_2048_double |= pr.family->name() == "gemm" && pr.key.dtype == DType::f64 && pr.key.dims == Dims{2048, 2048, 2048};
    aat_1000 |= pr.family->name() == "aat" && pr.key.dims == Dims{1000, 1000};
  }
  CHECK(reduce_2p28_float);
  CHECK(gemm_2048_double);
  CHECK(aat_1000);
  bool dot_1025 = false, rows_16384_sum = false, rows_pitched = false;
  for (const auto& pr : p.problems) {
    const std::string fam(pr.family->name());
    dot_1025 |= fam == "dot" && pr.key.dtype == DType::f32 && pr.key.dims == Dims{1025};
    rows_16384_sum |= fam == "rows" && pr.key.dims == Dims{16384, 16384} && pr.key.axis("op") == "row_sum" &&
                      pr.key.axis("layout") == "packed";
    rows_pitched |= fam == "rows" && pr.key.dims == Dims{100003, 7} && pr.key.axis("layout") == "pitched";
  }
  CHECK(dot_1025);
  CHECK(rows_16384_sum);
  CHECK(rows_pitched);
  CHECK_FALSE(p.run.end_to_end);
  CHECK_FALSE(p.run.seed.has_value());  // fresh inputs unless asked
}

TEST_CASE("family, types, sizes and variants") {
  const Plan p = parse({"--family", "reduce", "--type", "int,double", "--sizes", "1,2^10,1e3", "--variants", "reduce3*"});
  REQUIRE(p.problems.size() == 6);
  CHECK(p.problems[0].key.dtype == DType::i32);
  CHECK(p.problems[1].key.dims == Dims{1024});
  CHECK(p.problems[2].key.dims == Dims{1000});
  CHECK(p.problems[3].key.dtype == DType::f64);
  CHECK(p.run.variant_patterns == std::vector<std::string>{"reduce3*"});
}

TEST_CASE("string axes, and a family's extra default problems join only the plain default comparison") {
  auto count_pitched = [](const Plan& p) {
    int n = 0;
    for (const auto& pr : p.problems) n += pr.key.axis("layout") == "pitched";
    return n;
  };
  const Plan all = parse({"--family", "rows"});
  CHECK(count_pitched(all) > 0);
  const Plan sized = parse({"--family", "rows", "--sizes", "64x33"});
  CHECK(count_pitched(sized) == 0);
  CHECK(sized.problems.size() == 3);  // the default ops, packed
  const Plan axes = parse({"--family", "rows", "--sizes", "64x33,5", "--axis", "op=row_min,col_mean", "--axis",
                           "layout=packed,pitched"});
  REQUIRE(axes.problems.size() == 8);
  CHECK(axes.problems[0].key.axis("op") == "row_min");
  CHECK(axes.problems[0].key.axis("layout") == "packed");
  CHECK(axes.problems[1].key.axis("layout") == "pitched");
  CHECK(axes.problems[7].key.dims == Dims{5, 5});
  CHECK(count_pitched(parse({"--family", "rows", "--axis", "op=row_sum"})) == 0);
}

TEST_CASE("sweeps") {
  CHECK(parse({"--family", "reduce", "--sweep", "10:12"}).problems.size() == 3);
  CHECK(parse({"--family", "gemm", "--sweep", "28:30"}).problems.size() >= 3);  // up to the limit
  CHECK(parse({"--family", "reduce", "--sweep", "35:36"}).problems.size() == 2);
  const Plan g = parse({"--family", "gemm", "--type", "float", "--default-sweep"});
  REQUIRE(g.problems.size() == 6);  // 256 .. 8192
  CHECK(g.problems.front().key.dims == Dims{256, 256, 256});
  CHECK(g.problems.back().key.dims == Dims{8192, 8192, 8192});
}

TEST_CASE("matrix shapes") {
  const Plan p = parse({"--family", "gemm", "--type", "float", "--sizes", "513x257x129,64"});
  CHECK(p.problems[0].key.dims == Dims{513, 257, 129});
  CHECK(p.problems[1].key.dims == Dims{64, 64, 64});
  CHECK(parse({"--family", "aat", "--type", "double", "--sizes", "1025x333"}).problems[0].key.dims == Dims{1025, 333});
}

TEST_CASE("matrix x vector: M x N, one number for square, and document 003's named sweep") {
  const Plan p = parse({"--family", "gemv,gevm", "--type", "float", "--sizes", "4097x1023,300"});
  REQUIRE(p.problems.size() == 4);
  CHECK(p.problems[0].family->name() == "gemv");
  CHECK(p.problems[0].key.dims == Dims{4097, 1023});
  CHECK(p.problems[1].key.dims == Dims{300, 300});
  CHECK(p.problems[2].family->name() == "gevm");
  const Plan d = parse({"--family", "gemv,gevm", "--sizes", "003"});
  REQUIRE(d.problems.size() == 2 * 2 * 7);  // two families, float and double, seven sizes
  CHECK(d.problems.front().key.dims == Dims{1000, 500});  // rows x columns
  CHECK(d.problems.back().key.dims == Dims{2500, 2000});
  const Plan def = parse({"--family", "gemv"});
  bool large = false, doc = false;
  for (const auto& pr : def.problems) {
    large |= pr.key.dims == Dims{16384, 16384};
    doc |= pr.key.dims == Dims{2500, 2000} && pr.key.dtype == DType::f64;
  }
  CHECK(large);
  CHECK(doc);
}

TEST_CASE("mode, seed and timing options") {
  const Plan p = parse({"--family", "reduce", "--mode", "e2e", "--seed", "7", "--max-noise", "0.05", "--min-samples", "3"});
  CHECK(p.l2_flush == L2Flush::read);
  CHECK(parse({"--family", "reduce", "--l2-flush", "write"}).l2_flush == L2Flush::write);
  CHECK(p.run.end_to_end);
  CHECK(p.run.seed == 7u);
  CHECK(p.run.stop.max_noise == doctest::Approx(0.05));
  CHECK(p.run.stop.min_samples == 3);
}

TEST_CASE("bad input is a UsageError with a reason") {
  auto fails_with = [](std::vector<const char*> args, const std::string& needle) {
    try {
      parse(std::move(args));
    } catch (const UsageError& e) {
      INFO("message: " << e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
      return;
    }
    FAIL("no UsageError for " << needle);
  };
  fails_with({"--family", "nosuch"}, "unknown family 'nosuch' (families: reduce, dot, rows, gemm, aat, gemv, gevm, transpose, table");
  fails_with({"--type", "half"}, "unknown type 'half'");
  fails_with({"--family", "gemm", "--type", "int"}, "no variants of the requested type");
  fails_with({"--family", "reduce", "--sizes", "0"}, "positive");
  fails_with({"--family", "reduce", "--sizes", "-5"}, "");
  fails_with({"--family", "reduce", "--sizes", "abc"}, "is not a number");
  fails_with({"--family", "reduce", "--sizes", "1.5"}, "whole number");
  fails_with({"--family", "reduce", "--sizes", "1e30"}, "too large");
  fails_with({"--family", "gemm", "--sizes", "2x3"}, "needs M x N x K");
  fails_with({"--family", "gemm", "--sizes", "4x0x4"}, "N = '0' must be a positive");
  fails_with({"--family", "gemm", "--sizes", "3000000000"}, "larger than 2^30");
  fails_with({"--family", "gemm", "--sizes", "1x1x2147483647"}, "K = 2147483647 is larger than 2^30");
  fails_with({"--family", "aat", "--sizes", "2x3x4"}, "needs M x K");
  fails_with({"--family", "gemv", "--sizes", "2x3x4"}, "needs M x N (or one number for all), or the set '003'");
  fails_with({"--family", "gevm", "--sizes", "0x5"}, "M = '0' must be a positive");
  fails_with({"--family", "reduce", "--axis", "op=row_sum"}, "no selected family has an axis 'op'");
  fails_with({"--family", "rows", "--axis", "op=row_median"}, "rows: op 'row_median' is not one of");
  fails_with({"--family", "rows", "--axis", "layout=strided"}, "rows: layout 'strided' is not one of packed, pitched");
  fails_with({"--family", "rows", "--sizes", "1000x0"}, "N = '0' must be a positive");
  fails_with({"--family", "rows", "--sizes", "2x3x4"}, "needs M x N");
  fails_with({"--family", "dot", "--sizes", "0"}, "positive");
  fails_with({"--axis", "op"}, "NAME=VALUE");
  fails_with({"--l2-flush", "maybe"}, "");
  fails_with({"--variants", "nosuch*"}, "no variant matches 'nosuch*'");
  fails_with({"--mode", "fast"}, "");
  fails_with({"--sweep", "12:10"}, "LO is larger than HI");
  fails_with({"--sweep", "12"}, "LO:HI");
  fails_with({"--sizes", "10", "--sweep", "1:3"}, "not both");
  // A sweep keeps each family's size limit, as --sizes does (gemm 2^30 per dimension).
  fails_with({"--family", "gemm", "--sweep", "10:40"}, "gemm sweep up to 2^40: M = 2^40 is larger than 2^30");
  fails_with({"--family", "gemm", "--sweep", "10:31"}, "is larger than 2^30");
  fails_with({"--family", "reduce", "--sweep", "10:37"}, "reduce sweep up to 2^37: n = 2^37 is larger than 2^36");
  fails_with({"--sweep", "10:31"}, "is larger than 2^30");
  fails_with({"--smem-bank-mode", "2"}, "");
  fails_with({"--bogus"}, "");
  fails_with({"--family", "transpose", "--sizes", "2x3x4"}, "needs M x N");
  fails_with({"--family", "transpose", "--sizes", "5x0"}, "N = '0' must be a positive");
  fails_with({"--family", "table", "--sizes", "0"}, "positive");
  fails_with({"--family", "table", "--type", "double"}, "no variants of the requested type");
  fails_with({"--family", "table", "--axis", "step=-1"}, "table: step '-1' is not a positive finite number");
  fails_with({"--family", "table", "--axis", "step=0"}, "is not a positive finite number");
  fails_with({"--family", "table", "--axis", "step=abc"}, "is not a positive finite number");
  fails_with({"--family", "table", "--axis", "step=inf"}, "is not a positive finite number");
  fails_with({"--family", "table", "--axis", "step=1e-3x"}, "is not a positive finite number");
  fails_with({"--family", "table", "--axis", "step=1e-45"}, "outside float's normal range");
  fails_with({"--family", "table", "--axis", "step=1e39"}, "outside float's normal range");
  fails_with({"--family", "transpose", "--axis", "step=1"}, "no selected family has an axis 'step'");
}

TEST_CASE("the table's step axis accepts positive numbers a float can hold") {
  const Plan p = parse({"--family", "table", "--axis", "step=1e-3,0.37,2", "--sizes", "1000"});
  REQUIRE(p.problems.size() == 3);
  CHECK(p.problems[0].key.axis("step") == "1e-3");
  CHECK(p.problems[2].key.axis("step") == "2");
}

TEST_CASE("--list and --help need no GPU") {
  CHECK(parse({"--list"}).list_only);
  CHECK(parse({"--help"}).help_only);
  const Plan v = parse({"--version"});  // the commit a report's git_commit names: device.sh records it
  CHECK(v.version_only);
  CHECK_FALSE(v.help_text.empty());
  CHECK(v.help_text.find('\n') == std::string::npos);
  const std::string text = list_text(SubmissionSet("", 0, 1, 0));
  CHECK(text.find("reduce3_sequential_addressing") != std::string::npos);
  CHECK(text.find("cub_device_reduce_sum [library]") != std::string::npos);
  CHECK(text.find("cublas_gemm [library]") != std::string::npos);
  CHECK(text.find("transpose1_naive") != std::string::npos);
  CHECK(text.find("cublas_geam [library]") != std::string::npos);
  CHECK(text.find("table_const_intrinsics") != std::string::npos);
  CHECK(text.find("axis step") != std::string::npos);
  CHECK(text.find("gevm5_fitted_tiles_u4 ") != std::string::npos);
  CHECK(text.find("003 = document 003") != std::string::npos);
  CHECK(text.find("dot_atomic_tree") != std::string::npos);
  CHECK(text.find("cublas_dot [library]") != std::string::npos);
  CHECK(text.find("rows_shared_padded") != std::string::npos);
  CHECK(text.find("cub_segmented_reduce [library]") != std::string::npos);
  CHECK(text.find("values: row_sum, row_mean, col_mean, row_max, row_sumsq, row_min") != std::string::npos);
  CHECK(text.find("also in the default comparison: 100003x7 op=row_sum layout=pitched;") != std::string::npos);
}

TEST_CASE("the executable: bad input exits 2 with one line on stderr, never a crash") {
  for (const char* args : {"--family nosuch", "--family reduce --sizes 0", "--family reduce --sizes x",
                           "--type quad", "--variants 'nope*'", "--family gemm --sizes 1x2",
                           "--family gemm --sizes 1x1x2147483647", "--family gemm -s 4x0x4",
                           "--family table --axis step=-1", "--family table --axis step=1e-50",
                           "--family transpose --sizes 7x0", "--family rows --axis op=nosuch", "--family rows -s 3x0",
                           "--family dot -s 1.5", "--sweep 10:40 -f gemm", "-f rows --sweep 5:31"}) {
    const Run r = run_compare(args);
    INFO("compare " << args << " -> " << r.output);
    CHECK(r.code == 2);
    CHECK(count_lines(r.output) == 1);
    CHECK(r.output.rfind("compare: error: ", 0) == 0);
  }
}

TEST_CASE("the executable: --list exits 0") {
  const Run r = run_compare("--list");
  CHECK(r.code == 0);
  CHECK(r.output.find("reduce1_interleaved_divergent") != std::string::npos);
}

TEST_CASE("the executable: without a CUDA device it says so in one line and exits 3") {
  std::string why;
  if (cuda_device_count(&why) > 0) {
    MESSAGE("a CUDA device is present; this case only runs on machines without one");
    return;
  }
  const Run r = run_compare("--family reduce --sizes 1000 --no-files");
  INFO(r.output);
  CHECK(r.code == 3);
  CHECK(count_lines(r.output) == 1);
  CHECK(r.output.rfind("compare: error: ", 0) == 0);
  int driver = 0;
  cudaDriverGetVersion(&driver);
  if (driver == 0) {  // no driver at all (this is what a machine without a GPU usually has)
    CHECK(r.output.find("no NVIDIA driver found") != std::string::npos);
    CHECK(r.output.find("install the NVIDIA driver") != std::string::npos);
    CHECK(r.output.find("insufficient") == std::string::npos);
  }
}

TEST_CASE("--repeat R: the passes, and each pass's share of the sampling budget") {
  const Plan one = parse({"-f", "reduce"});
  CHECK(one.repeat == 1);
  const Plan p = parse({"-f", "reduce", "--repeat", "4", "--max-time", "2", "--max-samples", "1000"});
  CHECK(p.repeat == 4);
  CHECK(p.run.stop.min_samples == 3);  // 10 / 4 rounds up to 3, the floor's samples
  CHECK(p.run.stop.max_samples == 250);
  CHECK(p.run.stop.max_seconds == doctest::Approx(0.5));
  CHECK_THROWS_AS(parse({"--repeat", "0"}), UsageError);
}

TEST_CASE("--list honours -f, -t and -v, names each variant once with its types, and has --json") {
  const Run small = run_compare("--list -f reduce -t float");
  REQUIRE(small.code == 0);
  CHECK(count_lines(small.output) < 30);
  CHECK(small.output.find("reduce3_sequential_addressing  float  (") != std::string::npos);
  CHECK(small.output.find("\ngemm: ") == std::string::npos);
  const Run all = run_compare("--list -f dot");
  CHECK(all.output.find("dot1_global_memory  int, float, double") != std::string::npos);
  const Run globbed = run_compare("--list -f gemm -v 'gemm1*'");
  CHECK(globbed.output.find("gemm2_") == std::string::npos);
  CHECK(globbed.output.find("gemm1") != std::string::npos);
  const Run js = run_compare("--list --json -f reduce -t float -v 'reduce3*'");
  REQUIRE(js.code == 0);
  CHECK(js.output.find("\"name\": \"reduce3_sequential_addressing\"") != std::string::npos);
  CHECK(js.output.find("\"types\": [") != std::string::npos);
  CHECK(run_compare("--list -f reduc").code == 2);
}

TEST_CASE("the small edges: empty list items, a negative seed, an unwritable --out: one line before any work") {
  for (const char* args : {"-s ''", "-s 1,,2", "-f reduce, -s 1000", "--seed -1", "--seed 1e3", "-o /etc/passwd/x",
                           "--json", "-v 'nomatch*'"}) {
    CAPTURE(args);
    const Run r = run_compare(args);
    CHECK(r.code == 2);
    CHECK(count_lines(r.output) == 1);
    CHECK(r.output.size() < 400);
  }
  CHECK(parse({"--seed", "18446744073709551615"}).run.seed.value() == 18446744073709551615ull);
}

TEST_CASE("--dry-run --gpu NAME: what would run, what that GPU skips and why, without a driver") {
  const Run t4 = run_compare("--dry-run --gpu T4 -f gemm");
  REQUIRE(t4.code == 0);
  CHECK(t4.output.find("requirements checked for T4") != std::string::npos);
  CHECK(t4.output.find("skipped  gemm9_pipelined_64x64x16_w32x32_t4x8_s4: needs compute capability 8.0 for cp.async; this GPU is 7.5") !=
        std::string::npos);
  CHECK(t4.output.find("gemm double 2048x2048x2048") != std::string::npos);
  const Run h100 = run_compare("--dry-run --gpu h100 -f reduce -t float");
  REQUIRE(h100.code == 0);
  CHECK(h100.output.find(", 0 skipped; about ") != std::string::npos);
  CHECK(h100.output.find(std::string("from ") + "results" + "/h100/default.json") != std::string::npos);
  for (const char* args : {"--dry-run --gpu Z80", "--gpu T4"}) {
    CAPTURE(args);
    const Run r = run_compare(args);
    CHECK(r.code == 2);
    CHECK(count_lines(r.output) == 1);
  }
}

#if KL_HAVE_NCCL
TEST_CASE("--dry-run of the all-reduce on one GPU: every problem skipped, saying why, and no time estimated for it") {
  const Run one = run_compare("--dry-run --gpu H100 --gpus 1 -f allreduce");
  REQUIRE(one.code == 0);
  CAPTURE(one.output);
  CHECK(one.output.find(" problems, 0 variant runs, ") != std::string::npos);
  CHECK(one.output.find("skipped  every variant: needs at least 2 GPUs; --gpus 1 drives one") != std::string::npos);
  CHECK(one.output.find(" to run (") == std::string::npos);  // no problem carries an estimate
  CHECK(one.output.find("about ") == std::string::npos);
  // Two GPUs: every run counted, none skipped.
  const Run two = run_compare("--dry-run --gpu H100 --gpus 2 -f allreduce");
  REQUIRE(two.code == 0);
  CAPTURE(two.output);
  CHECK(two.output.find(" variant runs, 0 skipped") != std::string::npos);
  CHECK(two.output.find(" 0 variant runs") == std::string::npos);
}
#endif
