# Kernels from outside the tree (docs/your-kernel.md).
#
#   cmake -S . -B build -DKL_USER_KERNELS="/path/to/labs;/path/to/more"
#
# Each folder named holds submissions: every sub-folder is one (its name becomes the prefix of its
# variants: alice/warp_atomic), and .cu files directly in the folder form one submission named
# after the folder. Paths are absolute or relative to the source tree.
#
# Each submission is its own module (a shared library), compiled with exactly the build's flags
# (architectures, defines, optimisation: its target inherits them like any other) and hidden
# symbols, so two submissions can define the same names. Its compiler and linker run through
# cmake/submission_compile.sh, which records each file's outcome and never fails the build: one
# submission that does not compile leaves the others building, and compare names its file, line
# and first error. Changing one submission rebuilds that module alone. compare never loads a
# module: it runs each in its own kl-sandbox process (compare/sandbox/).
#
# kl_user_submissions(SET OUT_MANIFEST [NOTE TEXT] FOLDERS...) defines the modules of one set of
# folders and writes BUILD/submissions/SET/manifest.json (what `compare --submissions` reads);
# OUT_MANIFEST receives its path. Sets are independent: the same folder may be in two of them.
# NOTE: said after each build message of the set's submissions, for sets whose failures are
# planted on purpose (the red team's), so a clean build's output says they are expected.
#
# Every sub-folder is accounted for. One with no .cu file (a .cpp by mistake, an empty folder) is
# in the manifest as left out, with what it holds. A folder added later is picked up by the next
# `cmake --build`: the listing of each folder is a CONFIGURE_DEPENDS glob, so the build re-runs
# cmake when it changes; and compare names a sub-folder its manifest does not know (the manifest
# keeps the folders it was made from, "roots").

set(KL_SUBMISSION_LAUNCHER ${CMAKE_CURRENT_LIST_DIR}/submission_compile.sh)

# What a folder with nothing to build holds, for its "left out" line: "it holds a.cpp, b.h" or
# "it is empty".
function(_kl_folder_contents folder out)
  file(GLOB_RECURSE held RELATIVE "${folder}" "${folder}/*")
  list(SORT held)
  list(LENGTH held n)
  if(n EQUAL 0)
    set(${out} "it is empty" PARENT_SCOPE)
    return()
  endif()
  list(SUBLIST held 0 4 shown)
  string(REPLACE ";" ", " shown "${shown}")
  if(n GREATER 4)
    math(EXPR more "${n} - 4")
    string(APPEND shown " and ${more} more")
  endif()
  set(${out} "it holds ${shown}" PARENT_SCOPE)
endfunction()

function(kl_user_submissions set out_manifest)
  cmake_parse_arguments(ARG "" "NOTE" "" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/submissions/${set})
  set(entries "")
  set(roots_json "")
  set(seen "")
  foreach(dir IN LISTS ARG_UNPARSED_ARGUMENTS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "KL_USER_KERNELS: ${dir} is not a folder")
    endif()
    string(APPEND roots_json "\"${dir}\",")
    # (name, folder, files): the folder's own .cu files, then each sub-folder's.
    set(subs "")
    file(GLOB top CONFIGURE_DEPENDS "${dir}/*.cu")
    if(top)
      get_filename_component(n "${dir}" NAME)
      list(APPEND subs "${n}")
      set(files_${n} "${top}")
      set(folder_${n} "${dir}")
    endif()
    file(GLOB children LIST_DIRECTORIES true CONFIGURE_DEPENDS "${dir}/*")
    list(SORT children)
    foreach(c IN LISTS children)
      get_filename_component(n "${c}" NAME)
      if(NOT IS_DIRECTORY "${c}" OR n MATCHES "^\\.")  # a file, or a hidden folder (.git)
        continue()
      endif()
      file(GLOB_RECURSE f CONFIGURE_DEPENDS "${c}/*.cu")
      list(APPEND subs "${n}")
      set(files_${n} "${f}")
      set(folder_${n} "${c}")
    endforeach()
    foreach(name IN LISTS subs)
      set(status_dir ${root}/${name})
      set(files_json "")
      foreach(f IN LISTS files_${name})
        string(APPEND files_json "\"${f}\",")
      endforeach()
      string(REGEX REPLACE ",$" "" files_json "${files_json}")
      set(head "{\"name\": \"${name}\", \"folder\": \"${folder_${name}}\", \"status_dir\": \"${status_dir}\", \"files\": [${files_json}]")
      if(NOT name MATCHES "^[A-Za-z0-9_.-]+$")
        string(APPEND entries "${head}, \"module\": \"\", \"broken\": \"a submission's name may hold letters, digits, '_', '.' and '-'\"},\n")
        continue()
      endif()
      if(NOT files_${name})
        _kl_folder_contents("${folder_${name}}" held)
        string(APPEND entries "${head}, \"module\": \"\", \"broken\": \"nothing to build: no .cu file in ${name}/ (${held}); a submission's kernels go in .cu files\"},\n")
        continue()
      endif()
      if(name IN_LIST seen)
        # compare names the second one as a duplicate and leaves it out; the first is graded.
        string(APPEND entries "${head}, \"module\": \"\"},\n")
        continue()
      endif()
      list(APPEND seen "${name}")
      # What the compiler launcher says with its messages: the folder above the submission's (made
      # relative in them, as compare's rows are) and the set's note.
      get_filename_component(parent "${folder_${name}}" DIRECTORY)
      string(REPLACE "'" "'\\''" parent "${parent}")  # quoted for the shell that sources the file
      string(REPLACE "'" "'\\''" note "${ARG_NOTE}")
      file(CONFIGURE OUTPUT ${status_dir}/submission.env CONTENT "parent='${parent}'\nnote='${note}'\n")
      string(MAKE_C_IDENTIFIER "kl_sub_${set}_${name}" t)
      add_library(${t} MODULE ${files_${name}})
      target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR})
      target_link_libraries(${t} PRIVATE CUDA::cudart CCCL::CCCL)
      target_compile_definitions(${t} PRIVATE "KL_SUBMISSION=\"${name}\"")
      if(CMAKE_CUDA_ARCHITECTURES MATCHES "(^|;)90a")
        target_compile_definitions(${t} PRIVATE KL_BUILD_SM90A=1)
      endif()
      set_target_properties(${t} PROPERTIES
        CUDA_RUNTIME_LIBRARY Shared
        CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
        POSITION_INDEPENDENT_CODE ON
        OUTPUT_NAME "${name}" PREFIX "lib"
        LIBRARY_OUTPUT_DIRECTORY "${status_dir}"
        CUDA_COMPILER_LAUNCHER "bash;${KL_SUBMISSION_LAUNCHER};${status_dir};compile"
        CXX_COMPILER_LAUNCHER "bash;${KL_SUBMISSION_LAUNCHER};${status_dir};compile")
      set_property(TARGET ${t} PROPERTY RULE_LAUNCH_LINK "bash ${KL_SUBMISSION_LAUNCHER} ${status_dir} link")
      string(APPEND entries "${head}, \"module\": \"$<TARGET_FILE:${t}>\"},\n")
      list(APPEND KL_SUBMISSION_TARGETS_${set} ${t})
    endforeach()
  endforeach()
  string(REGEX REPLACE ",\n$" "\n" entries "${entries}")
  string(REGEX REPLACE ",$" "" roots_json "${roots_json}")
  set(manifest ${root}/manifest.json)
  file(GENERATE OUTPUT ${manifest} CONTENT "{\"set\": \"${set}\", \"roots\": [${roots_json}], \"submissions\": [\n${entries}]}\n")
  set(${out_manifest} ${manifest} PARENT_SCOPE)
  set(KL_SUBMISSION_TARGETS_${set} "${KL_SUBMISSION_TARGETS_${set}}" PARENT_SCOPE)
endfunction()
