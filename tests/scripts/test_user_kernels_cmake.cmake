# cmake/user_kernels.cmake accounts for every sub-folder of a submissions folder (the ctest
# `user_kernels_folders`): configures a small project that uses it on a class folder holding a
# submission and a folder with no .cu file, reads the manifest it writes, then adds a folder and
# builds a target that compiles nothing: the build must re-run cmake by itself (the folder's
# listing is a CONFIGURE_DEPENDS glob) and the manifest must then hold the new folder's module.
# cmake -DSRC=<source tree> -DWORK=<scratch folder> -DGENERATOR=<...> -DCUDA_COMPILER=<nvcc> -P test_user_kernels_cmake.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/labs/alice" "${WORK}/labs/amy" "${WORK}/labs/.git" "${WORK}/proj")
file(WRITE "${WORK}/labs/alice/sum.cu" "// a submission\n")
file(WRITE "${WORK}/labs/amy/sum.cpp" "// a .cpp by mistake\n")
file(WRITE "${WORK}/proj/CMakeLists.txt" "cmake_minimum_required(VERSION 3.24)
project(user_kernels_folders LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
find_package(CCCL CONFIG REQUIRED HINTS \"\${CUDAToolkit_LIBRARY_DIR}/cmake\")
include(\"${SRC}/cmake/user_kernels.cmake\")
kl_user_submissions(user manifest \"${WORK}/labs\")
add_custom_target(nothing)
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK}/proj" -B "${WORK}/build" -G "${GENERATOR}"
                        "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" -DCMAKE_CUDA_ARCHITECTURES=90-real
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${out}")
endif()
set(manifest "${WORK}/build/submissions/user/manifest.json")

# (name -> broken, module) of the manifest's entries, and its roots.
function(read_manifest prefix)
  file(READ "${manifest}" m)
  string(JSON roots GET "${m}" roots)
  set(${prefix}_roots "${roots}" PARENT_SCOPE)
  string(JSON n LENGTH "${m}" submissions)
  set(names "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${m}" submissions ${i} name)
      string(JSON broken ERROR_VARIABLE none GET "${m}" submissions ${i} broken)
      string(JSON module GET "${m}" submissions ${i} module)
      list(APPEND names "${name}")
      set(${prefix}_${name}_broken "${broken}" PARENT_SCOPE)
      set(${prefix}_${name}_module "${module}" PARENT_SCOPE)
    endforeach()
  endif()
  set(${prefix}_names "${names}" PARENT_SCOPE)
endfunction()

read_manifest(first)
if(NOT first_names STREQUAL "alice;amy")
  message(FATAL_ERROR "the manifest names '${first_names}', not alice and amy (.git is no submission)")
endif()
if(NOT first_amy_broken STREQUAL "nothing to build: no .cu file in amy/ (it holds sum.cpp); a submission's kernels go in .cu files")
  message(FATAL_ERROR "amy's entry: '${first_amy_broken}'")
endif()
if(NOT first_alice_module MATCHES "/submissions/user/alice/libalice\\.so$" OR first_alice_broken)
  message(FATAL_ERROR "alice's entry: module '${first_alice_module}', broken '${first_alice_broken}'")
endif()
if(NOT first_roots MATCHES "labs")
  message(FATAL_ERROR "the manifest's roots: '${first_roots}'")
endif()

# A folder added after configure: the next build re-runs cmake by itself.
file(MAKE_DIRECTORY "${WORK}/labs/gina")
file(WRITE "${WORK}/labs/gina/sum.cu" "// added later\n")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/build" --target nothing
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the build failed:\n${out}")
endif()
read_manifest(second)
if(NOT second_names STREQUAL "alice;amy;gina" OR NOT second_gina_module MATCHES "/libgina\\.so$")
  message(FATAL_ERROR "after a folder was added and the build ran, the manifest names '${second_names}' (gina's module: "
                      "'${second_gina_module}'):\n${out}")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "every sub-folder accounted for; a folder added later picked up by the build")
