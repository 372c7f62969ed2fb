# The layers depend one way (the `layering` test): each room below may include from the rooms
# listed for it and nothing else of the tree (system and library headers are not checked).
#   common/             common/ only: the contract and the helpers every layer shares (the argument
#                       structs included, common/args/), nothing of the kernels or the runner
#   handwritten/        common/ and itself: the ladder's kernels know nothing of the runner
#   library_baselines/  common/ and itself: the libraries' launchers, the same
#   compare/report/     common/ and itself: the CUDA-free report, below the runner
#   compare/diff/       those and itself: the CUDA-free diff, on top of the report
#   compare/core/       common/, compare/report/ and itself: the runner core knows the families'
#                       template, never a family, the sandbox, the tests' wrappers or the command
#                       line (remote variants reach it through compare/core/remote_variants.hpp)
#   compare/families/   those and itself: each family is traits on the core's template
#   compare/testing/    common/, compare/report/, compare/core/ and itself: the runner's own tests
#                       wrap candidates through RunOptions, never a family's insides
#   compare/sandbox/    common/, compare/report/, compare/core/ and itself (its child process too)
#   compare/cli/        common/ and every room of compare/: the one place that puts them together
# cmake -DSRC=<source dir> [-DMIN_FILES=N] -P check_layering.cmake   (MIN_FILES: fewer files found
# means a wrong SRC; default 200)
set(_layers "common" "handwritten" "library_baselines" "compare/report" "compare/diff" "compare/core"
            "compare/families" "compare/testing" "compare/sandbox" "compare/cli")
set(_allowed_common "common/")
set(_allowed_handwritten "common/;handwritten/")
set(_allowed_library_baselines "common/;library_baselines/")
set(_allowed_compare/report "common/;compare/report/")
set(_allowed_compare/diff "common/;compare/report/;compare/diff/")
set(_allowed_compare/core "common/;compare/report/;compare/core/")
set(_allowed_compare/families "common/;compare/report/;compare/core/;compare/families/")
set(_allowed_compare/testing "common/;compare/report/;compare/core/;compare/testing/")
set(_allowed_compare/sandbox "common/;compare/report/;compare/core/;compare/sandbox/")
set(_allowed_compare/cli "common/;compare/")
set(_bad "")
set(_n 0)
foreach(_layer IN LISTS _layers)
  file(GLOB_RECURSE _files "${SRC}/${_layer}/*.hpp" "${SRC}/${_layer}/*.cuh" "${SRC}/${_layer}/*.h"
                           "${SRC}/${_layer}/*.cpp" "${SRC}/${_layer}/*.cu")
  foreach(_file IN LISTS _files)
    math(EXPR _n "${_n} + 1")
    file(STRINGS "${_file}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(_line IN LISTS _includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" _inc "${_line}")
      if(NOT _inc MATCHES "/")
        continue()  # a generated header from the build folder (kl_config_renames.h)
      endif()
      set(_ok FALSE)
      foreach(_prefix IN LISTS _allowed_${_layer})
        string(FIND "${_inc}" "${_prefix}" _at)
        if(_at EQUAL 0)
          set(_ok TRUE)
        endif()
      endforeach()
      if(NOT _ok)
        file(RELATIVE_PATH _rel "${SRC}" "${_file}")
        string(APPEND _bad "\n  ${_rel} includes ${_inc} (${_layer}/ may include only: ${_allowed_${_layer}})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(NOT DEFINED MIN_FILES)
  set(MIN_FILES 200)
endif()
if(_n LESS MIN_FILES)
  message(FATAL_ERROR "only ${_n} files found under ${SRC}: wrong SRC?")
endif()
if(_bad)
  message(FATAL_ERROR "an include against the layering:${_bad}")
endif()
message(STATUS "${_n} files of ${_layers} include only their own room and those below it")
