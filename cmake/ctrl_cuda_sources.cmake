# ctrl_cuda_sources(<target> <file>...): for projects that use ctrl's CUDA backend (installed with
# the package; find_package(ctrl) defines it). It adds the files to <target> (if they are not yet
# its sources), has them compiled by the CUDA compiler (LANGUAGE CUDA), so that the generic kernels
# they launch run on CUDA controllers too, and sets <target>'s CUDA_ARCHITECTURES to
#
#   1. the project's CMAKE_CUDA_ARCHITECTURES, where it was given: -DCMAKE_CUDA_ARCHITECTURES=...,
#      the CUDAARCHS environment variable, or set() in the project;
#   2. else "native": the GPUs of the machine that configures the project (CMake 3.24 or newer,
#      and a GPU that CMake's CUDA detection saw);
#   3. else, as on a build machine or a container with no GPU, ctrl_CUDA_ARCHITECTURES: the
#      architectures that ctrl's own CUDA code was built for (its CMAKE_CUDA_ARCHITECTURES, "native"
#      resolved to the GPUs it saw), so that the program runs wherever that ctrl does; and
#      "all-major" (every major architecture nvcc knows) where the package recorded none.
#
# CMake sets CMAKE_CUDA_ARCHITECTURES to the compiler's own default (nvcc's oldest supported
# architecture) when CUDA is enabled and nothing was given; that default is not taken for a choice:
# it would run recent GPUs only through PTX compiled at start-up.
#
# CUDA must be enabled first (project(... LANGUAGES CXX CUDA) or enable_language(CUDA)), and the
# target links ctrl::cuda (and ctrl::loop or ctrl::ctrl) itself. ctrl::ctrl carries -std=c++20 to
# nvcc.
function(ctrl_cuda_sources target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "ctrl_cuda_sources: no target named '${target}' (add it first)")
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "ctrl_cuda_sources(${target}): name the files to compile as CUDA")
  endif()
  if(DEFINED ctrl_HAVE_CUDA AND NOT ctrl_HAVE_CUDA)
    message(FATAL_ERROR "ctrl_cuda_sources(${target}): this ctrl was built without its CUDA backend "
                        "(ctrl_HAVE_CUDA is OFF): compile the files with the C++ compiler (cpu and offload "
                        "controllers), or rebuild ctrl with -DCTRL_CUDA=ON")
  endif()
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _languages)
    message(FATAL_ERROR "ctrl_cuda_sources(${target}): enable CUDA first: project(<name> LANGUAGES CXX CUDA) "
                        "or enable_language(CUDA) (set CMAKE_CUDA_COMPILER where nvcc is not on the PATH)")
  endif()

  set(_files "")
  foreach(_file IN LISTS ARGN)
    get_filename_component(_file "${_file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _files "${_file}")
  endforeach()
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_source_dir ${target} SOURCE_DIR)
  set(_absolute_sources "")
  foreach(_source IN LISTS _sources)
    get_filename_component(_source "${_source}" ABSOLUTE BASE_DIR "${_source_dir}")
    list(APPEND _absolute_sources "${_source}")
  endforeach()
  foreach(_file IN LISTS _files)
    if(NOT _file IN_LIST _absolute_sources)
      target_sources(${target} PRIVATE "${_file}")
    endif()
  endforeach()
  # Source properties belong to a directory: set them where the target was made (and here).
  set_source_files_properties(${_files} DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" TARGET_DIRECTORY ${target}
                              PROPERTIES LANGUAGE CUDA)

  # 1. Given by the project, or CMake's own default? CMake caches its default with the help string
  # "CUDA architectures"; one given on the command line has another (or no type), one set() in the
  # project is a plain variable (alone, or over the cache entry with another value).
  set(_given FALSE)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
    if(NOT "$ENV{CUDAARCHS}" STREQUAL "" OR NOT DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES})
      set(_given TRUE)
    elseif(NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
      set(_given TRUE)
    else()
      get_property(_help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
      if(NOT _help STREQUAL "CUDA architectures")
        set(_given TRUE)
      endif()
    endif()
  endif()
  if(_given)
    set(_architectures "${CMAKE_CUDA_ARCHITECTURES}")
    set(_why "CMAKE_CUDA_ARCHITECTURES")
  elseif(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24 AND NOT "${CMAKE_CUDA_ARCHITECTURES_NATIVE}" STREQUAL "")
    # 2. CMake found this machine's GPUs when it enabled CUDA (CMAKE_CUDA_ARCHITECTURES_NATIVE).
    set(_architectures native)
    set(_why "this machine's GPU: ${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  elseif(NOT "${ctrl_CUDA_ARCHITECTURES}" STREQUAL "")
    # 3. No GPU here (or CMake before 3.24): what ctrl itself was built for.
    set(_architectures "${ctrl_CUDA_ARCHITECTURES}")
    set(_why "no GPU seen here: the architectures ctrl was built for")
  else()
    set(_architectures all-major)
    set(_why "no GPU seen here")
  endif()
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES "${_architectures}")
  if(NOT _given)
    message(STATUS "ctrl_cuda_sources(${target}): CUDA_ARCHITECTURES ${_architectures} (${_why}; "
                   "-DCMAKE_CUDA_ARCHITECTURES=... chooses)")
  endif()
endfunction()
