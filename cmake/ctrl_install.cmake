# Installs ctrl as a CMake package: find_package(ctrl) gives ctrl::ctrl, ctrl::loop (the profile ->
# front -> run loop) and ctrl::cuda where built.
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
configure_package_config_file(cmake/ctrlConfig.cmake.in ${PROJECT_BINARY_DIR}/ctrlConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctrl)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ctrlConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ctrlConfig.cmake ${PROJECT_BINARY_DIR}/ctrlConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ctrl)
