// ctrl: the umbrella header. Host-only: it parses no CUDA (include <ctrl/cuda.hpp> in .cu files
// that launch generic kernels on GPUs).
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/controller.hpp>
#include <ctrl/cpu/context.hpp>
#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/event.hpp>
#include <ctrl/gpus.hpp>
#include <ctrl/kernel.hpp>
#include <ctrl/roles.hpp>
#include <ctrl/threads.hpp>
#include <ctrl/tile.hpp>
#include <ctrl/traits.hpp>
#include <ctrl/view.hpp>
#include <ctrl/wrap.hpp>
