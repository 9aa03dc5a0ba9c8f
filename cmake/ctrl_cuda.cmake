# The CUDA backend is built where it can run: nvcc found and an NVIDIA GPU present (CTRL_CUDA=AUTO),
# or where demanded (ON: nvcc required, GPU or not; the suite's build compiles it wherever nvcc is,
# so that CUDA code is compiled on machines without a GPU too). Compiling it for sm_90 on a machine
# with no GPU is most of a fresh build's time, for code that cannot run there.
set(CTRL_HAVE_CUDA OFF)
set(_ctrl_cuda_wanted ${CTRL_CUDA})
if(CTRL_CUDA STREQUAL "AUTO" AND NOT EXISTS /proc/driver/nvidia/version AND NOT EXISTS /dev/nvidia0)
  message(STATUS "ctrl: no NVIDIA GPU here (no /proc/driver/nvidia/version): CUDA backend not built "
                 "(-DCTRL_CUDA=ON builds it anyway)")
  set(_ctrl_cuda_wanted OFF)
endif()
if(NOT _ctrl_cuda_wanted STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)   # the H200; nvcc's own default (75) runs Hopper only through PTX JIT
    endif()
    enable_language(CUDA)
    # CMake before 3.26 knows no C++20 flag for nvcc (12 and 13 take -std=c++20).
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(CTRL_HAVE_CUDA ON)
  elseif(CTRL_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CTRL_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "ctrl: CUDA backend ${CTRL_HAVE_CUDA}")
