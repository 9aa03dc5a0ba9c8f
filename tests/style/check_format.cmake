# cmake -DCLANG_FORMAT=... -DROOT=... -P check_format.cmake: fails naming every file of ROOT's
# source folders that clang-format would change, and how to fix them.
if(NOT CLANG_FORMAT)
  # CI must check: ./run installs clang-format there. A machine where nothing can be installed (the
  # GPU machine) skips the check instead of failing the suite.
  if("$ENV{CI}" STREQUAL "")
    message(STATUS "style check skipped: clang-format not found (./run installs clang-format-14)")
    return()
  endif()
  message(FATAL_ERROR "clang-format not found: install clang-format-14 (./run installs it)")
endif()
set(_files)
foreach(dir apps bench examples fuzz include src tests tools)
  file(GLOB_RECURSE _found "${ROOT}/${dir}/*.hpp" "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.cu"
       "${ROOT}/${dir}/*.cuh")
  list(APPEND _files ${_found})
endforeach()
# One clang-format for every file (a process per file took most of the test's time).
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror --style=file ${_files} RESULT_VARIABLE rc OUTPUT_QUIET
                ERROR_VARIABLE diagnostics)
list(LENGTH _files _n)
if(NOT rc EQUAL 0)
  string(REGEX MATCHALL "[^\n]+:[0-9]+:[0-9]+: error:" _hits "${diagnostics}")
  set(_bad)
  foreach(hit IN LISTS _hits)
    string(REGEX REPLACE ":[0-9]+:[0-9]+: error:$" "" f "${hit}")
    file(RELATIVE_PATH _rel ${ROOT} ${f})
    list(APPEND _bad ${_rel})
  endforeach()
  list(REMOVE_DUPLICATES _bad)
  list(LENGTH _bad _m)
  list(JOIN _bad "\n  " _list)
  message(FATAL_ERROR "${_m} of ${_n} files differ from .clang-format:\n  ${_list}\n"
                      "fix: ${CLANG_FORMAT} -i <files> (from the repository root)")
endif()
message(STATUS "${_n} files formatted as .clang-format says")
