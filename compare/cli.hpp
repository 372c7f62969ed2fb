// Command line of `compare`, parsed into a Plan. Bad input throws UsageError with one line.
#pragma once

#include "compare/family.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kl {

struct PlannedProblem {
  const Family* family;
  ProblemKey key;
};

struct Plan {
  bool list_only = false;
  bool help_only = false;
  std::string help_text;
  std::vector<PlannedProblem> problems;
  RunOptions run;
  std::string out_dir = "compare-out";
  std::string basename = "compare";
  bool write_files = true;
  bool quiet = false;
  int device = 0;
  int smem_bank_mode = 0;  // 0: leave as it is; 4 or 8: ask for that bank width first
  L2Flush l2_flush = L2Flush::read;
};

// Parses argv into a Plan (throws UsageError). Works without a GPU.
Plan parse_command_line(int argc, const char* const* argv);

// What `compare --list` prints: families, types, sizes, axes, variants with origin and lesson.
std::string list_text();

// The command line as one shell-quoted string (for the report).
std::string join_command_line(int argc, const char* const* argv);

}  // namespace kl
