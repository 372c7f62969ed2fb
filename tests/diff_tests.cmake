# The report/diff without CUDA: included by tests/CMakeLists.txt, and alone by a KL_DIFF_ONLY build.
# The report/diff targets need no CUDA: their compile lines have no CUDA include folder, and the
# standalone compare-diff needs no CUDA library and holds no CUDA symbol.
set(_kl_cuda_include ${CUDAToolkit_INCLUDE_DIRS})
if(NOT _kl_cuda_include)  # a KL_DIFF_ONLY build looks no CUDA up: check for the usual place
  set(_kl_cuda_include /usr/local/cuda)
endif()
add_test(NAME compare_diff_no_cuda
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:compare-diff> -DCOMMANDS=${CMAKE_BINARY_DIR}/compile_commands.json
                 "-DCUDA_INCLUDE=${_kl_cuda_include}" -P ${CMAKE_SOURCE_DIR}/tests/scripts/check_no_cuda.cmake)
# ...and compares two committed reports (tests/fixtures/): two H100 runs of one commit (exit 0), one
# of them with a kernel slowed on purpose (exit 1), and a report against itself.
add_test(NAME compare_diff_standalone
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/tests/fixtures/twice_a.json.gz ${CMAKE_SOURCE_DIR}/tests/fixtures/twice_b.json.gz)
set_tests_properties(compare_diff_standalone PROPERTIES PASS_REGULAR_EXPRESSION "no regression \\(exit status 0\\)")
add_test(NAME compare_diff_standalone_slowed
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/tests/fixtures/twice_a.json.gz ${CMAKE_SOURCE_DIR}/tests/fixtures/twice_slowed.json.gz)
set_tests_properties(compare_diff_standalone_slowed PROPERTIES WILL_FAIL TRUE)
add_test(NAME compare_diff_standalone_gz
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/tests/fixtures/matvec_003.json.gz
                 ${CMAKE_SOURCE_DIR}/tests/fixtures/matvec_003.json.gz --only-changed)
set_tests_properties(compare_diff_standalone_gz PROPERTIES PASS_REGULAR_EXPRESSION "280 rows: 278 same.*no regression \\(exit status 0\\)")

# The diff's doctest suite (tests/diff/: judging with the run as the unit, renames, incomplete
# inputs, JSON and JUnit verdicts): CUDA-free, in every build. A diff-only build has no runner,
# so there it also runs the host suite's test_diff.cpp, against a stand-in for `compare` that
# serves `compare diff` with compare-diff (the full build runs that file in host_suite).
include(${CMAKE_CURRENT_LIST_DIR}/doctest.cmake)
file(GLOB KL_DIFF_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/diff/*.cpp)
if(KL_DIFF_ONLY)
  list(APPEND KL_DIFF_TESTS ${CMAKE_SOURCE_DIR}/tests/host/test_diff.cpp)
endif()
add_executable(diff_suite ${KL_DIFF_TESTS})
target_link_libraries(diff_suite PRIVATE kl_diff doctest::doctest ZLIB::ZLIB)
target_include_directories(diff_suite PRIVATE ${CMAKE_SOURCE_DIR}/tests/host)
target_compile_definitions(diff_suite PRIVATE KL_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                           KL_COMPARE_DIFF_EXE="$<TARGET_FILE:compare-diff>"
                           KL_COMPARE_EXE="${CMAKE_SOURCE_DIR}/tests/scripts/compare_stand_in.sh $<TARGET_FILE:compare-diff>")
kl_warnings(diff_suite)
add_dependencies(diff_suite compare-diff)
add_test(NAME diff_suite COMMAND diff_suite)

# The issue's acceptance checks on the command line, from committed fixtures: a report from
# before the configuration renames pairs with a current one through the compiled-in map, and an
# empty NEW report exits 2 with one line (tests/scripts/check_diff_exit.cmake).
add_test(NAME compare_diff_renames
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/tests/fixtures/diff/gemm-old-names.json
                 ${CMAKE_SOURCE_DIR}/tests/fixtures/diff/gemm-new-names-dirty.json)
set_tests_properties(compare_diff_renames PROPERTIES
  PASS_REGULAR_EXPRESSION "renames: 14 rows paired through compare/diff/config-renames.json.*DIRTY|DIRTY.*renames: 14 rows paired")
add_test(NAME compare_diff_empty_new
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:compare-diff> -DEXPECT_RC=2 -DEXPECT_STDERR_LINES=1
                 "-DARGS=${CMAKE_SOURCE_DIR}/tests/fixtures/diff/gemm-old-names.json;${CMAKE_SOURCE_DIR}/tests/fixtures/diff/empty.json"
                 -P ${CMAKE_SOURCE_DIR}/tests/scripts/check_diff_exit.cmake)
add_test(NAME compare_diff_incomplete_new
         COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:compare-diff> -DEXPECT_RC=2
                 "-DARGS=${CMAKE_SOURCE_DIR}/tests/fixtures/diff/gemm-new-names-dirty.json;${CMAKE_SOURCE_DIR}/tests/fixtures/diff/incomplete.json"
                 -P ${CMAKE_SOURCE_DIR}/tests/scripts/check_diff_exit.cmake)

# The rooms include one way, in every build: common/ nothing above it, the kernels nothing of the
# runner, the report nothing of the runner, the core no family, sandbox or command line
# (tests/scripts/check_layering.cmake, which lists every room). The selftest runs it over a tree
# of three files that breaks the rule twice: it must name both includes.
add_test(NAME layering COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/tests/scripts/check_layering.cmake)
add_test(NAME layering_selftest COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR}/tests/fixtures/layering -DMIN_FILES=3
                                        -P ${CMAKE_SOURCE_DIR}/tests/scripts/check_layering.cmake)
set_tests_properties(layering_selftest PROPERTIES
  PASS_REGULAR_EXPRESSION "compare/core/runner_part.hpp includes compare/sandbox/submissions.hpp.*handwritten/reduce/step.cuh includes compare/core/family.hpp|handwritten/reduce/step.cuh includes compare/core/family.hpp.*compare/core/runner_part.hpp includes compare/sandbox/submissions.hpp")
