# Run at every build (not at configure time): writes OUT, a header defining KL_GIT_COMMIT as the
# commit the sources are at now, "-dirty" when tracked files differ from it, and rewrites the
# file only when that changes, so a build after an edit or a commit tags its results correctly
# and an unchanged tree recompiles nothing. FORCED (from -DKL_GIT_COMMIT=...) wins.
if(FORCED)
  set(commit "${FORCED}")
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT commit)
    set(commit "unknown")
  elseif(dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
set(content "#define KL_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
