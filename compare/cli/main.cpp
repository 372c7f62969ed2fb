// compare: the command-line front of the runner library (compare/). See README.md.
#include "common/cuda_check.hpp"
#include "compare/cli/cli.hpp"
#include "compare/cli/dry_run.hpp"
#include "compare/core/device.hpp"
#include "compare/cli/isolate.hpp"
#include "compare/diff/diff.hpp"
#include "compare/families/multi_gpu.hpp"
#include "compare/cli/runner.hpp"
#include "compare/cli/shards.hpp"

#include <cstdio>
#include <exception>
#include <iostream>
#include <string_view>

int main(int argc, char** argv) {
  using namespace kl;
  // Before anything could initialise NCCL (the allreduce family), and before any thread exists.
  keep_nvlink_multicast_off();
  const char* const* args = argv;
  // `compare diff OLD.json NEW.json`: reads two reports, needs no GPU, touches nothing CUDA.
  if (argc >= 2 && std::string_view(argv[1]) == "diff") return diff_command(argc - 1, args + 1, std::cout, std::cerr);
  // `compare merge A.json B.json ...`: joins reports (a graded folder's shards); no GPU either.
  if (argc >= 2 && std::string_view(argv[1]) == "merge") return merge_command(argc - 1, args + 1, std::cout, std::cerr);
  try {
    const Plan plan = parse_command_line(argc, args);
    if (plan.version_only) {
      std::cout << plan.help_text << '\n';
      return kExitOk;
    }
    if (plan.help_only) {
      std::cout << plan.help_text
                << "\nSubcommands:\n  compare diff OLD.json NEW.json   compare two runs' reports: medians, ratio, "
                   "significance (needs no GPU; compare diff --help)\n"
                   "  compare merge A.json B.json ...  join reports, such as the shards of a graded folder (needs no GPU)\n";
      return kExitOk;
    }
    if (plan.dry_run) {
      std::cout << dry_run_text(plan);
      return kExitOk;
    }
    if (plan.list_only) {
      std::cout << (plan.list_filter.json ? list_json(*plan.submission_set, plan.list_filter)
                                          : list_text(*plan.submission_set, plan.list_filter));
      return kExitOk;
    }
    if (plan.list_submissions) {
      std::cout << list_submissions_text(*plan.submission_set);
      return kExitOk;
    }
    if (plan.problems.empty() && plan.worker < 0) {  // only submissions that cannot be graded
      write_summary(plan, Report{}, std::cout);
      return kExitFailures;
    }
    std::string why;
    const int count = cuda_device_count(&why);
    if (count == 0) {
      std::fprintf(stderr, "compare: error: %s\n", why.c_str());
      return kExitNoDevice;
    }
    if (plan.device >= count) {
      std::fprintf(stderr, "compare: error: --device %d does not exist (%d CUDA device%s)\n", plan.device, count, count == 1 ? "" : "s");
      return kExitUsage;
    }
    check_settings(plan, count);
    install_interrupt_handler();
    if (plan.worker >= 0) return run_worker(plan);
    if (plan.grade_gpus > 1) {
      if (plan.grade_gpus > count)
        throw UsageError("--grade-gpus " + std::to_string(plan.grade_gpus) + ": only " + std::to_string(count) +
                         " CUDA device" + (count == 1 ? "" : "s") + " visible");
      return exit_code_for(plan, run_graded_on_gpus(plan, std::cout));
    }
    const Report rep = run_plan(plan, join_command_line(argc, args), std::cout);
    return exit_code_for(plan, rep);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "compare: error: %s\n", e.what());
    return kExitUsage;
  } catch (const FatalError& e) {
    std::fprintf(stderr, "compare: fatal CUDA error: %s\n", e.what());
    return kExitCuda;
  } catch (const CudaError& e) {
    // Outside any variant (setting up the device, the timer, the copy ceiling): 4 only if the
    // context is unusable, else an ordinary failure.
    std::fprintf(stderr, "compare: CUDA error: %s\n", e.what());
    const bool dead = cudaDeviceSynchronize() != cudaSuccess;
    return dead ? kExitCuda : kExitFailures;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare: error: %s\n", e.what());
    return kExitFailures;
  }
}
