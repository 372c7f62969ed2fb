// compare's command line in the host suites (test_cli, test_diff, test_allreduce): parsed in
// process, and the real executable run end to end (where it is, one run's exit status and
// output, and the line count their "exactly one line" checks use).
#pragma once

#include "compare/cli/cli.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace kl::test {

// parse_command_line on `compare ARGS...`.
inline Plan parse(std::vector<const char*> args) {
  args.insert(args.begin(), "compare");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

// The executable built beside this suite; KL_COMPARE_EXE overrides it (binaries moved elsewhere).
inline std::string compare_exe() {
  const char* env = std::getenv("KL_COMPARE_EXE");
  return env && *env ? env : KL_COMPARE_EXE;
}

struct Run {
  int code;            // the exit status; -1 when the command did not exit
  std::string output;  // its standard output, to the end
};

// Runs `command` through the shell (redirections included) and reads its standard output.
inline Run run_shell(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// `compare ARGS`, its standard error merged into the output.
inline Run run_compare(const std::string& args) { return run_shell(compare_exe() + " " + args + " 2>&1"); }

inline int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace kl::test
