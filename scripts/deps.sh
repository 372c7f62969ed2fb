#!/usr/bin/env bash
# Installs what the build needs and is missing: cmake, a C++ compiler, and the header-only
# libraries doctest, CLI11 and nlohmann-json, zlib (compare diff reads .json.gz reports), and
# python3 with matplotlib (scripts/plot_compare.py and its ctest, which must run, not skip),
# from Debian/Ubuntu packages. The CUDA toolkit
# (nvcc, cuBLAS, CCCL) must already be there, in /usr/local/cuda or on PATH.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
have_header() { for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done; return 1; }
have_header doctest/doctest.h || need+=(doctest-dev)
have_header CLI/CLI.hpp || need+=(libcli11-dev)
have_header nlohmann/json.hpp || need+=(nlohmann-json3-dev)
have_header zlib.h || need+=(zlib1g-dev)
# matplotlib for the python3 on PATH or Debian's own (CMake picks whichever imports it).
have_matplotlib() {
  for py in python3 /usr/bin/python3; do
    command -v "$py" >/dev/null && "$py" -c 'import matplotlib' >/dev/null 2>&1 && return 0
  done
  return 1
}
have_matplotlib || need+=(python3-matplotlib)

if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# nvcc in /usr/local/cuda/bin alone is enough: the scripts add that folder to PATH themselves.
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: error: no CUDA toolkit found (nvcc); install the CUDA toolkit 13.0 or newer" >&2
  exit 1
fi
# The toolkit the project is verified with (docs/method.md, "Which GPU, which toolkit"): 13.0 or
# newer; 12.x's CCCL lacks cub::DeviceTransform and does not build. CMake checks it too.
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ver=$("$nvcc_bin" --version | sed -n 's/.*release \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1.\2/p' | head -1)
if [ -n "$ver" ] && [ "${ver%%.*}" -lt 13 ]; then
  echo "deps: error: the CUDA toolkit is $ver ($nvcc_bin); this project needs 13.0 or newer" >&2
  exit 1
fi
