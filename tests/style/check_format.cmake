# cmake -DCLANG_FORMAT=... -DROOT=... -P check_format.cmake: fails naming every file of ROOT's
# source folders that clang-format would change, and how to fix them.
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "clang-format not found: install clang-format-14 (./run installs it)")
endif()
set(_files)
foreach(dir apps bench examples fuzz include src tests tools)
  file(GLOB_RECURSE _found "${ROOT}/${dir}/*.hpp" "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.cu"
       "${ROOT}/${dir}/*.cuh")
  list(APPEND _files ${_found})
endforeach()
set(_bad)
foreach(f IN LISTS _files)
  execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror --style=file ${f} RESULT_VARIABLE rc OUTPUT_QUIET
                  ERROR_QUIET)
  if(NOT rc EQUAL 0)
    file(RELATIVE_PATH _rel ${ROOT} ${f})
    list(APPEND _bad ${_rel})
  endif()
endforeach()
list(LENGTH _files _n)
if(_bad)
  list(LENGTH _bad _m)
  list(JOIN _bad "\n  " _list)
  message(FATAL_ERROR "${_m} of ${_n} files differ from .clang-format:\n  ${_list}\n"
                      "fix: ${CLANG_FORMAT} -i <files> (from the repository root)")
endif()
message(STATUS "${_n} files formatted as .clang-format says")
