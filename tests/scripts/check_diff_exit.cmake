# Runs EXE with ARGS (a list) and checks its exit status (EXPECT_RC) and, when given, that stderr
# has exactly EXPECT_STDERR_LINES lines and stdout is then empty (bad input: one line, nothing else).
#   cmake -DEXE=... "-DARGS=a;b" -DEXPECT_RC=2 [-DEXPECT_STDERR_LINES=1] -P check_diff_exit.cmake
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}\nstdout: ${out}\nstderr: ${err}")
endif()
if(DEFINED EXPECT_STDERR_LINES)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines n)
  if(NOT n EQUAL EXPECT_STDERR_LINES)
    message(FATAL_ERROR "stderr has ${n} lines, expected ${EXPECT_STDERR_LINES}: ${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "stdout is not empty: ${out}")
  endif()
endif()
message(STATUS "exit status ${rc} as expected; stderr: ${err}")
