# ctest user_kernels_broken: a folder of two submissions, one of which does not compile. Configuring
# this source tree with it must name the broken one (a warning, and the generated registration
# that --list and --summary read) and keep the other, whose object library must build.
#   cmake -DSRC=<source tree> -DWORK=<scratch folder> -DCUDA_COMPILER=<nvcc> -P user_kernels_broken.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/subs/good" "${WORK}/subs/broken")
file(WRITE "${WORK}/subs/good/sum.cu" [=[
#include "common/user_kernel.hpp"
__global__ void one(const float* in, float* out) { *out = *in; }
KL_REGISTER_VARIANT("reduce", kl::ReduceVariant<float>{
    .info = {"first_only", "", "wrong on purpose, but it compiles"},
    .launch = [](const kl::ReduceArgs<float>& a, cudaStream_t s) { one<<<1, 1, 0, s>>>(a.in, a.out); KL_CHECK_LAUNCH(); },
})
]=])
file(WRITE "${WORK}/subs/broken/sum.cu" [=[
#include "common/user_kernel.hpp"
__global__ void one(const float* in, float* out) { *out = *in + undeclared_name; }
]=])
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SRC}" -B "${WORK}/build" -DKL_BUILD_TESTS=OFF "-DKL_USER_KERNELS=${WORK}/subs"
          "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc}):\n${all}")
endif()
# (CMake wraps a warning's lines.)
if(NOT all MATCHES "submission 'broken' does not compile \\(sum.cu\\)" OR NOT all MATCHES "undeclared_name")
  message(FATAL_ERROR "the broken submission was not named with its error:\n${all}")
endif()
if(NOT all MATCHES "submission 'good'")
  message(FATAL_ERROR "the good submission was not kept:\n${all}")
endif()
file(GLOB gen "${WORK}/build/generated/kl_user_broken_*.cpp")
file(READ "${gen}" text)
if(NOT text MATCHES "\"broken\", \"sum.cu: [^\n]*undeclared_name")
  message(FATAL_ERROR "the generated registration does not name the broken submission:\n${text}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}/build" --target help OUTPUT_VARIABLE targets)
string(REGEX MATCH "kl_user_[0-9a-f]+_good" good "${targets}")
if(NOT good)
  message(FATAL_ERROR "no object library for the good submission:\n${targets}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}/build" --target ${good} RESULT_VARIABLE brc OUTPUT_VARIABLE bout ERROR_VARIABLE berr)
if(NOT brc EQUAL 0)
  message(FATAL_ERROR "the good submission did not build:\n${bout}\n${berr}")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "user_kernels_broken: 'broken' named and left out, 'good' kept and built")
