#pragma once
#include <ctrl/ctrl.hpp>

namespace cudatest {
// Launches a generic kernel from a file compiled by the host compiler (g++).
void launch_generic_from_host_compiled_file(ctrl::Controller& c, ctrl::Tile<float, 1>& t);
// Launches a kernel with a generic body and a cuda_library variant from that file.
void launch_library_from_host_compiled_file(ctrl::Controller& c, ctrl::Tile<int, 1>& t);
}  // namespace cudatest
