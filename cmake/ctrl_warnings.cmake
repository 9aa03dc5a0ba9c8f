# Warnings live in an interface target that ctrl's own targets and tests link (Taskflow's habit):
# consumers of the installed package never inherit them.
add_library(ctrl_warnings INTERFACE)
target_compile_options(ctrl_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                            -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
# GCC 12 at -O3 warns that `"text" + std::string` may overlap itself (-Wrestrict inside
# libstdc++'s inlined replace: GCC bug 105329, fixed in 13): noise in every Release build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(ctrl_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()

# Sanitizers, also as an interface target so that only ctrl's targets are instrumented.
add_library(ctrl_sanitizers INTERFACE)
if(CTRL_SANITIZE STREQUAL "address")
  target_compile_options(ctrl_sanitizers INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(ctrl_sanitizers INTERFACE -fsanitize=address,undefined)
elseif(CTRL_SANITIZE STREQUAL "thread")
  target_compile_options(ctrl_sanitizers INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=thread -fno-omit-frame-pointer>)
  target_link_options(ctrl_sanitizers INTERFACE -fsanitize=thread)
elseif(CTRL_SANITIZE)
  message(FATAL_ERROR "CTRL_SANITIZE must be empty, 'address' or 'thread', not '${CTRL_SANITIZE}'")
endif()
