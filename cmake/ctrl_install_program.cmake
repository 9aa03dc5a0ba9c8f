# Run by `cmake --install` (apps/common/CMakeLists.txt, ctrl_install_program()): installs the built
# program CTRL_PROGRAM_FILE as CTRL_PROGRAM_DIR/CTRL_PROGRAM_NAME under the prefix, as
# install(TARGETS) would under its own name: DESTDIR honoured, listed in install_manifest.txt, its
# run path replaced by CTRL_PROGRAM_RPATH (the build tree's paths out), stripped by --strip.
# install(TARGETS) has no RENAME, and install(PROGRAMS ... RENAME) keeps the build tree's run path.
set(_dir "${CMAKE_INSTALL_PREFIX}/${CTRL_PROGRAM_DIR}")
set(_to "$ENV{DESTDIR}${_dir}/${CTRL_PROGRAM_NAME}")
if(EXISTS "${_to}" AND NOT IS_SYMLINK "${_to}")
  # An installed copy whose run path is not the install one is stale: install it again.
  file(RPATH_CHECK FILE "${_to}" RPATH "${CTRL_PROGRAM_RPATH}")
endif()
file(INSTALL DESTINATION "${_dir}" TYPE PROGRAM RENAME "${CTRL_PROGRAM_NAME}" FILES "${CTRL_PROGRAM_FILE}")
if(EXISTS "${_to}" AND NOT IS_SYMLINK "${_to}")
  file(RPATH_SET FILE "${_to}" NEW_RPATH "${CTRL_PROGRAM_RPATH}")
  if(CMAKE_INSTALL_DO_STRIP AND CTRL_PROGRAM_STRIP)
    execute_process(COMMAND "${CTRL_PROGRAM_STRIP}" "${_to}")
  endif()
endif()
