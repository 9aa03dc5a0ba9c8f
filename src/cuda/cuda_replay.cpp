// Recorded launches as CUDA graphs. The sequence is captured (cudaStreamBeginCapture) from a
// stream of the plan's own, through the same launch path as a plain launch, so that generic,
// native and library variants alike become graph nodes; the graph is instantiated and launched
// on the controller's compute stream, after the replay's copies like any kernel.
//
// Parameters that change between replays (a ctrl::ref value, a tile attached again elsewhere in
// device memory) are taken by capturing the sequence again and updating the instantiated graphs
// with cudaGraphExecUpdate (re-instantiating only where the update is refused): one path for
// every node kind, kernel or library, and a launch already queued keeps the parameters it had.
//
// replay(n) launches graphs that hold the sequence many times in a row (built on first use and
// kept): as many full graphs as n holds, then the rest as one graph of exactly that many copies (a
// few such counts are kept; beyond them, graphs of 2^k copies, largest first). n = 1000 replays of
// Jacobi's two kernels are one graph launch, not 1000, so that the host's launch cost stays far
// below the kernels' time; as 6 graphs of 2^k copies they took a few per cent longer than one
// hand-captured graph of the same kernels, each graph launch a gap on the GPU
// (bench/results/cuda-h200.md). A sequence that captured as a chain of kernel nodes (generic and
// native launches) is repeated as kernel nodes, one chain, as a hand-captured graph of the same
// launches is; any other (library nodes, branches) as child-graph nodes, a level of nesting
// between every copy.
#include "cuda_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <exception>
#include <map>
#include <utility>
#include <vector>

namespace ctrl::detail {

namespace {

// A graph launch covers at most this many kernel nodes (or the sequence once, if larger): long
// enough to hide a launch's host cost, small enough to instantiate in a few milliseconds.
constexpr std::size_t nodes_per_launch = 2048;

// Graphs of an exact number of copies (a replay's rest) kept at most; other rests are launched
// as graphs of 2^k copies, so that a program replaying ever other counts keeps a bounded number
// of graphs (each one updated when parameters change).
constexpr std::size_t exact_graphs = 8;

// The device's context on the capture stream. The cuBLAS handle and cuFFT plans are bound to the
// capture stream while the sequence is captured and bound back to the compute stream after.
class CaptureContext final : public CudaContext {
 public:
  CaptureContext(CudaDevice& dev, cudaStream_t stream) : dev_(dev), stream_(stream) {}
  ~CaptureContext() override { restore(); }
  CaptureContext(const CaptureContext&) = delete;
  CaptureContext& operator=(const CaptureContext&) = delete;

  int device() const override { return dev_.device(); }
  const cudaDeviceProp& properties() const override { return dev_.properties(); }
  cudaStream_t stream() const override { return stream_; }
  cublasHandle_t cublas() override {
    cublasHandle_t h = dev_.cublas();
    if (cublas_ == nullptr) {
      cublas_check(cublasSetStream(h, stream_), "cublasSetStream (graph capture)");
      cublas_ = h;
    }
    return h;
  }
  cufftHandle fft_plan(int rank, const int* dims, cufftType type, int batch) override {
    const cufftHandle p = dev_.fft_plan(rank, dims, type, batch);
    if (std::find(plans_.begin(), plans_.end(), p) == plans_.end()) {
      cufft_check(cufftSetStream(p, stream_), "cufftSetStream (graph capture)");
      plans_.push_back(p);
    }
    return p;
  }
  std::string name() const override { return dev_.name(); }

  void restore() noexcept {
    if (cublas_ != nullptr) (void)cublasSetStream(cublas_, dev_.stream());
    for (const cufftHandle p : plans_) (void)cufftSetStream(p, dev_.stream());
    cublas_ = nullptr;
    plans_.clear();
  }

 private:
  CudaDevice& dev_;
  cudaStream_t stream_;
  cublasHandle_t cublas_ = nullptr;
  std::vector<cufftHandle> plans_;
};

// A cudaGraph_t that is destroyed unless released.
struct GraphGuard {
  cudaGraph_t g = nullptr;
  ~GraphGuard() {
    if (g) cudaGraphDestroy(g);
  }
  cudaGraph_t release() { return std::exchange(g, nullptr); }
};

class CudaReplayPlan final : public ReplayPlan {
 public:
  explicit CudaReplayPlan(std::shared_ptr<CudaDevice> dev) : dev_(std::move(dev)) {
    dev_->make_current();
    check(cudaStreamCreateWithFlags(&capture_, cudaStreamNonBlocking), dev_->label(), "cudaStreamCreateWithFlags");
  }
  ~CudaReplayPlan() override {
    // Errors cannot leave a destructor. A graph still running is freed by CUDA when it completes.
    try {
      dev_->make_current();
    } catch (...) {
      return;
    }
    for (auto& [copies, exec] : execs_) cudaGraphExecDestroy(exec);
    if (graph_) cudaGraphDestroy(graph_);
    cudaStreamDestroy(capture_);
    (void)cudaGetLastError();
  }
  CudaReplayPlan(const CudaReplayPlan&) = delete;
  CudaReplayPlan& operator=(const CudaReplayPlan&) = delete;

  void replay(const RecordedSequence& sequence, bool changed, std::uint64_t times) override {
    dev_->make_current();
    if (changed || stale_) capture(sequence);
    if (nodes_ == 0) return;  // every launch had an empty index space
    dev_->before_kernel();    // the replay's copies (on the copy stream) come first
    const std::uint64_t most = most_copies();
    std::uint64_t left = times;
    for (; left >= most; left -= most) launch(exec_for(most));
    if (left > 0) {
      const bool kept = execs_.count(left) != 0;
      if (kept || exact_ < exact_graphs) {
        if (!kept && !std::has_single_bit(left)) ++exact_;
        launch(exec_for(left));
        left = 0;
      }
    }
    while (left > 0) {  // the rest in graphs of 2^k copies, largest first
      const std::uint64_t copies = std::bit_floor(left);
      launch(exec_for(copies));
      left -= copies;
    }
    dev_->record_launch(last_.kernel, last_.variant, last_.geometry);  // for messages on asynchronous failures
    dev_->enqueued_on_compute();
  }

 private:
  // The most copies of the sequence one graph launch holds (at least one).
  std::uint64_t most_copies() const { return std::max<std::uint64_t>(1, nodes_per_launch / nodes_); }

  void capture(const RecordedSequence& sequence) {
    stale_ = true;
    dev_->before_kernel();  // joins the streams now: nothing may wait on an event from inside the capture
    check(cudaStreamBeginCapture(capture_, cudaStreamCaptureModeRelaxed), dev_->label(), "cudaStreamBeginCapture");
    GraphGuard captured;
    {
      CaptureContext ctx(*dev_, capture_);
      try {
        for (std::size_t i = 0; i < sequence.size(); ++i) capture_launch(ctx, sequence, i);
      } catch (...) {
        ctx.restore();
        (void)cudaStreamEndCapture(capture_, &captured.g);
        (void)cudaGetLastError();
        throw;
      }
    }
    check(cudaStreamEndCapture(capture_, &captured.g), dev_->label(), "cudaStreamEndCapture");
    std::size_t nodes = 0;
    check(cudaGraphGetNodes(captured.g, nullptr, &nodes), dev_->label(), "cudaGraphGetNodes");
    last_ = dev_->read_launch();
    chain_.clear();  // (its nodes are graph_'s)
    if (graph_) cudaGraphDestroy(graph_);
    graph_ = captured.release();
    nodes_ = nodes;
    chain_ = kernel_chain();
    update_execs();
    stale_ = false;
  }

  // Launch i into the capture; a failure names it (the core names the replay).
  void capture_launch(CaptureContext& ctx, const RecordedSequence& sequence, std::size_t i) {
    const ReplayLaunch l = sequence.launch(i);
    try {
      run_cuda_launch(*dev_, ctx, *l.body, l.variant, l.space, l.ptrs);
    } catch (const DeviceError& e) {
      std::throw_with_nested(DeviceError(fmt::format("launch {} of {}, kernel '{}' ({}): {}", i + 1, sequence.size(),
                                                     l.body->kernel_name(), variant_name(l.variant), e.what())));
    } catch (const std::exception& e) {
      std::throw_with_nested(
          KernelError(fmt::format("launch {} of {}, kernel '{}' ({}) failed: {}", i + 1, sequence.size(),
                                  l.body->kernel_name(), variant_name(l.variant), e.what())));
    }
  }

  // Brings every instantiated graph to the new capture: cudaGraphExecUpdate where CUDA accepts
  // it (same topology, new parameters), a new instantiation where it does not.
  void update_execs() {
    for (auto& [copies, exec] : execs_) {
      GraphGuard unrolled;
      cudaGraph_t shape = graph_;
      if (copies > 1) shape = unrolled.g = build_unrolled(copies);
      cudaGraphExecUpdateResultInfo info{};
      if (exec == nullptr || cudaGraphExecUpdate(exec, shape, &info) != cudaSuccess) {
        (void)cudaGetLastError();
        if (exec) cudaGraphExecDestroy(exec);
        exec = nullptr;  // (an instantiation that fails leaves none: the next capture tries again)
        exec = instantiate(shape);
      }
    }
  }

  // The sequence `copies` times in a row: its kernel chain repeated, or child-graph nodes.
  cudaGraph_t build_unrolled(std::uint64_t copies) const {
    GraphGuard u;
    check(cudaGraphCreate(&u.g, 0), dev_->label(), "cudaGraphCreate");
    cudaGraphNode_t prev = nullptr;
    for (std::uint64_t c = 0; c < copies; ++c) {
      if (!chain_.empty()) {
        for (const cudaGraphNode_t k : chain_) prev = add_kernel_copy(u.g, prev, k);
        continue;
      }
      cudaGraphNode_t node = nullptr;
      check(cudaGraphAddChildGraphNode(&node, u.g, prev ? &prev : nullptr, prev ? 1 : 0, graph_), dev_->label(),
            "cudaGraphAddChildGraphNode");
      prev = node;
    }
    return u.release();
  }

  // A copy of kernel node k of graph_ in g, after prev (its arguments are copied by CUDA).
  cudaGraphNode_t add_kernel_copy(cudaGraph_t g, cudaGraphNode_t prev, cudaGraphNode_t k) const {
    cudaKernelNodeParams params{};
    check(cudaGraphKernelNodeGetParams(k, &params), dev_->label(), "cudaGraphKernelNodeGetParams");
    cudaGraphNode_t node = nullptr;
    check(cudaGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, &params), dev_->label(),
          "cudaGraphAddKernelNode");
    check(cudaGraphKernelNodeCopyAttributes(node, k), dev_->label(), "cudaGraphKernelNodeCopyAttributes");
    return node;
  }

  // graph_'s nodes in order where they form one chain of kernel nodes (each depending on the one
  // before) whose parameters the runtime reads back, else none. (A library's kernels, launched
  // through the driver, may not be readable: such a sequence keeps the child-graph nodes.)
  std::vector<cudaGraphNode_t> kernel_chain() const {
    std::vector<cudaGraphNode_t> chain;
    std::size_t n = 0;
    cudaGraphNode_t node = nullptr;
    check(cudaGraphGetRootNodes(graph_, nullptr, &n), dev_->label(), "cudaGraphGetRootNodes");
    if (n == 1) check(cudaGraphGetRootNodes(graph_, &node, &n), dev_->label(), "cudaGraphGetRootNodes");
    while (n == 1 && chain.size() < nodes_) {
      cudaGraphNodeType type{};
      check(cudaGraphNodeGetType(node, &type), dev_->label(), "cudaGraphNodeGetType");
      cudaKernelNodeParams params{};
      if (type != cudaGraphNodeTypeKernel || cudaGraphKernelNodeGetParams(node, &params) != cudaSuccess) {
        (void)cudaGetLastError();
        return {};
      }
      chain.push_back(node);
      n = 0;
      check(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &n), dev_->label(),
            "cudaGraphNodeGetDependentNodes");
      cudaGraphEdgeData edge{};
      if (n == 1) {
        check(cudaGraphNodeGetDependentNodes(node, &node, &edge, &n), dev_->label(), "cudaGraphNodeGetDependentNodes");
        if (edge.from_port != 0 || edge.to_port != 0 || edge.type != 0) return {};  // full completion only
      }
    }
    if (n != 0 || chain.size() != nodes_) return {};
    return chain;
  }

  cudaGraphExec_t instantiate(cudaGraph_t g) const {
    cudaGraphExec_t exec = nullptr;
    check(cudaGraphInstantiate(&exec, g, 0), dev_->label(), "cudaGraphInstantiate");
    return exec;
  }

  cudaGraphExec_t exec_for(std::uint64_t copies) {
    const auto it = execs_.find(copies);
    if (it != execs_.end()) return it->second;
    GraphGuard unrolled;
    cudaGraph_t shape = graph_;
    if (copies > 1) shape = unrolled.g = build_unrolled(copies);
    return execs_[copies] = instantiate(shape);
  }

  void launch(cudaGraphExec_t exec) const {
    const cudaError_t e = cudaGraphLaunch(exec, dev_->stream());
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw DeviceError(fmt::format("{}: cudaGraphLaunch failed: {}", dev_->label(), cuda_error_text(e)));
    }
  }

  std::shared_ptr<CudaDevice> dev_;
  cudaStream_t capture_ = nullptr;
  cudaGraph_t graph_ = nullptr;  // the sequence once, as last captured
  std::size_t nodes_ = 0;
  std::vector<cudaGraphNode_t> chain_;  // graph_'s kernel nodes in order, if it is one chain of them
  bool stale_ = true;  // graph_ and the execs do not hold the current parameters (none captured yet, or it failed)
  std::map<std::uint64_t, cudaGraphExec_t> execs_;  // by copies of the sequence
  std::size_t exact_ = 0;                           // of those, counts that are no power of two
  CudaDevice::LaunchRecord last_{};
};

}  // namespace

std::unique_ptr<ReplayPlan> make_cuda_replay_plan(std::shared_ptr<CudaDevice> dev) {
  return std::make_unique<CudaReplayPlan>(std::move(dev));
}

}  // namespace ctrl::detail
