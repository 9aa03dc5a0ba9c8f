# Installs ctrl as a CMake package: find_package(ctrl) gives ctrl::ctrl, ctrl::loop (the profile ->
# front -> run loop) and ctrl::cuda where built, and ctrl_cuda_sources() for files compiled by nvcc;
# and as a pkg-config package (lib/pkgconfig/ctrl.pc: the host libraries).
include(CMakePackageConfigHelpers)
install(DIRECTORY include/ctrl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/ctrl/build_config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ctrl)
set(_ctrl_targets ctrl ctrl_partition ctrl_energy ctrl_files ctrl_loop)
if(CTRL_HAVE_CUDA)
  list(APPEND _ctrl_targets ctrl_cuda)
endif()
install(TARGETS ${_ctrl_targets} EXPORT ctrlTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ctrlTargets NAMESPACE ctrl:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctrl)
# The architectures ctrl's CUDA code was built for: ctrl_cuda_sources() falls back to them where a
# consumer names none and has no GPU ("native" resolved to the GPUs CMake saw here).
set(CTRL_PACKAGE_CUDA_ARCHITECTURES "")
if(CTRL_HAVE_CUDA)
  set(CTRL_PACKAGE_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  if(CTRL_PACKAGE_CUDA_ARCHITECTURES STREQUAL "native")
    set(CTRL_PACKAGE_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
endif()
configure_package_config_file(cmake/ctrlConfig.cmake.in ${PROJECT_BINARY_DIR}/ctrlConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctrl)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ctrlConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ctrlConfig.cmake ${PROJECT_BINARY_DIR}/ctrlConfigVersion.cmake
              cmake/ctrl_cuda_sources.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctrl)

# ctrl.pc: Cflags and Libs of the host libraries, for `g++ ... $(pkg-config --cflags --libs ctrl)`.
# Libs in link order, each library before those it needs: ctrl_loop -> ctrl -> ctrl_partition,
# ctrl_energy -> ctrl_files (their PUBLIC links above). Their private dependencies (hwloc, fmt, MPI,
# ...) are not listed: the libraries are shared and name them themselves. Written in two steps so
# that its prefix is the one installed to, also with `cmake --install <build> --prefix P`: here all
# but the prefix, at install time the prefix.
set(CTRL_PC_LIBS "-lctrl_loop -lctrl -lctrl_partition -lctrl_energy -lctrl_files")
set(CTRL_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(CTRL_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(CTRL_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
configure_file(cmake/ctrl.pc.in ${PROJECT_BINARY_DIR}/ctrl.pc.in @ONLY)
install(CODE "configure_file(\"${PROJECT_BINARY_DIR}/ctrl.pc.in\" \"${PROJECT_BINARY_DIR}/ctrl.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/ctrl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
