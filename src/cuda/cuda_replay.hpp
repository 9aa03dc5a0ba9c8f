// Recorded launches on a CUDA controller (include/ctrl/graph.hpp): the sequence is captured from a
// stream of its own into a CUDA graph, instantiated, and launched on the compute stream.
#pragma once
#include "../core/device.hpp"
#include "cuda_device.hpp"

#include <memory>

namespace ctrl::detail {

// One launch, its work enqueued on ctx.stream() (cuda_kind.cpp): the device's compute stream, or
// while a plan captures a sequence, the plan's capture stream.
void run_cuda_launch(CudaDevice& dev, CudaContext& ctx, const LaunchBody& body, Variant v, const Threads& space,
                     void* const* ptrs);

std::unique_ptr<ReplayPlan> make_cuda_replay_plan(std::shared_ptr<CudaDevice> dev);

}  // namespace ctrl::detail
