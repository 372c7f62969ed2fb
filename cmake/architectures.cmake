# Which CUDA architectures a build without -DCMAKE_CUDA_ARCHITECTURES compiles for, from the
# compute capabilities nvidia-smi reports (CMakeLists.txt calls it; tests/scripts/
# test_architectures.cmake pins it).
#
# Each GPU's machine code, and where the project has code for a GPU's architecture-specific
# target (the `a` suffix: features that run only on that exact compute capability, such as
# Hopper's setmaxnreg and wgmma), that target instead: a build on an H100 or H200 then has gemm13
# in its list and gemm_auto takes it, as the README's two commands promise the fastest path.
# An `a` image runs only on its own compute capability, which is exactly the machine a native
# build is for; the portable list (no GPU found) stays free of them.

# Compute capabilities (major*10+minor, as CMake spells architectures) whose `a` target the
# project has code for: 9.0 (gemm13). Add 100 with the first Blackwell-specific step.
set(KL_ARCH_SPECIFIC_TARGETS "90")

# kl_architectures_for_caps(OUT CAPS): CAPS as nvidia-smi prints them ("9.0", "9.0, 8.0", one per
# line or comma-separated); OUT the architecture list, one entry per distinct capability in the
# order first seen: "90a-real" for 9.0, "80-real" for 8.0. OUT is empty when CAPS holds no
# capability (the caller falls back to the portable list).
function(kl_architectures_for_caps out caps)
  string(REGEX REPLACE "[\n,]+" ";" caps "${caps}")
  set(archs "")
  foreach(cap IN LISTS caps)
    string(STRIP "${cap}" cap)
    if(NOT cap MATCHES "^([0-9]+)\\.([0-9])$")
      continue()
    endif()
    set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    if(arch IN_LIST KL_ARCH_SPECIFIC_TARGETS)
      set(arch "${arch}a-real")
    else()
      set(arch "${arch}-real")
    endif()
    list(APPEND archs "${arch}")
  endforeach()
  list(REMOVE_DUPLICATES archs)
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()
