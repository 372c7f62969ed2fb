# doctest for the suites: its CMake package where the distribution ships one, else its header.
# Included by tests/CMakeLists.txt and tests/diff_tests.cmake (a diff-only build has only the latter).
if(NOT TARGET doctest::doctest)
  find_package(doctest QUIET)
  if(NOT doctest_FOUND)
    find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
    add_library(doctest::doctest INTERFACE IMPORTED)
    target_include_directories(doctest::doctest INTERFACE ${DOCTEST_INCLUDE_DIR})
  endif()
endif()
