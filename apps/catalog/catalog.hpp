// Every application the ctrl tool profiles and runs (`ctrl profile APP`, `ctrl run APP`): dgemm,
// fft2d and fft2d-whole, the HEPOPTA paper's, and the case studies described for the loop as divisible workloads
// (docs/loop.md, "Applications"). Each is made by a function of its own folder (from the values of
// its parameters, where it has some: jacobi's --iterations); catalog() holds one of each, in this
// order.
#pragma once
#include <ctrl/loop/workload.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace apps {

const ctrl::loop::Catalog& catalog();

// The catalog whose workloads can run on these devices: catalog() itself, or, in the tool's
// host-compiled catalog when a device is a GPU, the GPU-capable one, loaded then from the module
// ctrl_catalog_cuda (DeviceError naming the file when it cannot be). Both offer the same
// applications under the same names.
const ctrl::loop::Catalog& catalog_for(const std::vector<ctrl::DeviceSpec>& devices);

// Words and numbers as one string, for checks' messages (the workloads are compiled as CUDA where
// the backend is built, and nvcc does not take fmt's compile-time format strings).
template <class... A>
std::string words(const A&... parts) {
  std::ostringstream out;
  out.precision(9);
  (out << ... << parts);
  return out.str();
}

std::unique_ptr<ctrl::loop::Workload> dgemm_workload();
std::unique_ptr<ctrl::loop::Workload> fft2d_workload();
std::unique_ptr<ctrl::loop::Workload> fft2d_whole_workload();
std::unique_ptr<ctrl::loop::Workload> matadd_workload();
std::vector<ctrl::loop::Parameter> blackscholes_parameters();
std::unique_ptr<ctrl::loop::Workload> blackscholes_workload(const ctrl::loop::Settings& settings);
std::unique_ptr<ctrl::loop::Workload> matmul_workload();
std::vector<ctrl::loop::Parameter> jacobi_parameters();
std::unique_ptr<ctrl::loop::Workload> jacobi_workload(const ctrl::loop::Settings& settings);
std::vector<ctrl::loop::Parameter> recurrence_parameters();
std::unique_ptr<ctrl::loop::Workload> recurrence_workload(const ctrl::loop::Settings& settings);
std::vector<ctrl::loop::Parameter> mandelbrot_parameters();
std::unique_ptr<ctrl::loop::Workload> mandelbrot_workload(const ctrl::loop::Settings& settings);

}  // namespace apps
