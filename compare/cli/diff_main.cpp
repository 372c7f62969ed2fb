// compare-diff: `compare diff` alone, built from kl_diff and kl_report only (no CUDA header, no
// CUDA library), so a machine without CUDA can compare two reports and gate on the exit status:
//   compare-diff OLD.json NEW.json.gz [--only-changed] [--gate-library] ...
#include "compare/diff/diff.hpp"

#include <iostream>

int main(int argc, char** argv) { return kl::diff_command(argc, argv, std::cout, std::cerr); }
