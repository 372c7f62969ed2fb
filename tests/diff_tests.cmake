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
# ...and compares two committed reports: two H100 runs of one commit (exit 0), one of them with a
# kernel slowed on purpose (exit 1), and compressed reports (.json.gz).
add_test(NAME compare_diff_standalone
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/results/h100/twice_a.json ${CMAKE_SOURCE_DIR}/results/h100/twice_b.json)
set_tests_properties(compare_diff_standalone PROPERTIES PASS_REGULAR_EXPRESSION "no regression \\(exit status 0\\)")
add_test(NAME compare_diff_standalone_slowed
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/results/h100/twice_a.json ${CMAKE_SOURCE_DIR}/results/h100/twice_slowed.json)
set_tests_properties(compare_diff_standalone_slowed PROPERTIES WILL_FAIL TRUE)
add_test(NAME compare_diff_standalone_gz
         COMMAND compare-diff ${CMAKE_SOURCE_DIR}/results/h100/matvec_003.json.gz
                 ${CMAKE_SOURCE_DIR}/results/h100/matvec_003.json.gz --only-changed)
set_tests_properties(compare_diff_standalone_gz PROPERTIES PASS_REGULAR_EXPRESSION "280 rows: 278 same.*no regression \\(exit status 0\\)")
