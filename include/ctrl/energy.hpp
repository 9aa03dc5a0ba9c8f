// Energy meters of ctrl: a meter per device (NVML for NVIDIA GPUs, RAPL through powercap for
// CPU packages, an estimate for CPU cores where neither exists, or an explicit "no sensor"),
// windows over one or several meters, a device's base (idle) power, and a counter's self-check. The model is described
// in docs/energy.md.
//
// Host-only: nothing here includes CUDA headers; NVML is loaded at run time.
#pragma once

#include <ctrl/energy/clock.hpp>
#include <ctrl/energy/counter_check.hpp>
#include <ctrl/energy/estimate.hpp>
#include <ctrl/energy/factory.hpp>
#include <ctrl/energy/measurement.hpp>
#include <ctrl/energy/meter.hpp>
#include <ctrl/energy/nvml.hpp>
#include <ctrl/energy/rapl.hpp>
