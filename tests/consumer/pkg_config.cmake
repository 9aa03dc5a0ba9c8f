# cmake -DPKG_CONFIG=pkg-config -DPC_PATH=<prefix>/lib/pkgconfig -DCXX=g++ -DSOURCE=main.cpp -DOUT=exe
#       -P pkg_config.cmake
# README's pkg-config words: SOURCE compiled and linked by the C++ compiler alone with the flags of
# the installed ctrl.pc (`pkg-config --cflags --libs ctrl`), its run path set to ctrl's libdir.
set(ENV{PKG_CONFIG_PATH} "${PC_PATH}")
foreach(query "--cflags;--libs" "--variable=libdir")
  execute_process(COMMAND ${PKG_CONFIG} ${query} ctrl RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${query} ctrl failed (PKG_CONFIG_PATH=${PC_PATH}): ${err}")
  endif()
  list(APPEND answers "${out}")
endforeach()
list(GET answers 0 flags)
list(GET answers 1 libdir)
message(STATUS "pkg-config --cflags --libs ctrl: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CXX} -O1 ${SOURCE} ${flags} -Wl,-rpath,${libdir} -o ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CXX} with pkg-config's flags failed")
endif()
