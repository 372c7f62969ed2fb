cmake_minimum_required(VERSION 3.24)  # run as cmake -P: the policies of the project
# ctest `architectures`: the architecture list a native build takes for each GPU (cmake -P).
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/architectures.cmake)

function(expect caps want)
  kl_architectures_for_caps(got "${caps}")
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "caps '${caps}': got '${got}', want '${want}'")
  endif()
endfunction()

expect("9.0" "90a-real")                       # H100, H200: gemm13 in the build
expect("9.0\n9.0\n9.0\n9.0" "90a-real")        # four of them, one entry
expect("9.0, 9.0" "90a-real")
expect("8.0" "80-real")                        # A100
expect("8.6\n8.9" "86-real;89-real")           # A10 and L4 in one machine
expect("7.5" "75-real")                        # T4
expect("10.0" "100-real")                      # B200: no Blackwell-specific step yet
expect("12.0" "120-real")                      # RTX 5090
expect("9.0\n8.0" "90a-real;80-real")          # mixed: each its own
expect("" "")                                  # nothing reported: the caller's portable list
expect("[N/A]" "")
message(STATUS "architectures: 11 cases")
