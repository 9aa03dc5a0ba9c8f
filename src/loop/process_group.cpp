#include <ctrl/loop/process_group.hpp>

#include <ctrl/loop/selection.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace ctrl::loop {

namespace {

class ThisProcess final : public ProcessGroup {
 public:
  ThisProcess() : host_(this_host()) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::string& host() const override { return host_; }
  std::string who() const override { return {}; }
  std::unique_ptr<Platform> platform(const std::vector<DeviceSpec>& mine, const TeamOptions& options,
                                     const std::vector<std::string>* order) override {
    if (order == nullptr) return std::make_unique<Team>(mine, options);
    // The named devices of `mine`, in the order's order: a name is the device ("cuda:0") or,
    // as a distributed profile names it, HOST/DEVICE with this host.
    std::vector<DeviceSpec> ordered;
    for (const auto& name : *order) {
      const auto it = std::find_if(mine.begin(), mine.end(), [&](const DeviceSpec& d) {
        return name == d.str() || name == processor_name(host_, d);
      });
      if (it == mine.end()) throw UsageError(fmt::format("{}: not one of this process's devices", name));
      ordered.push_back(*it);
    }
    return std::make_unique<Team>(ordered, options);
  }
  void broadcast(std::string& /*text*/, const char* /*what*/) override {}
  std::vector<std::string> allgather(const std::string& mine, const char* /*what*/) override { return {mine}; }
  void abort(int /*code*/, const std::string& /*message*/) override {}

 private:
  std::string host_;
};

}  // namespace

std::unique_ptr<ProcessGroup> this_process() { return std::make_unique<ThisProcess>(); }

bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

int launcher_ranks() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(v); s != nullptr) return std::max(1, std::atoi(s));
  return 1;
}

void raise_if_any(ProcessGroup& group, const std::string& error, const char* what) {
  const std::vector<std::string> errors = group.allgather(error, what);
  std::string text;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    const std::string rank = group.size() > 1 ? fmt::format("rank {} of {}: ", r, group.size()) : std::string();
    text += fmt::format("{}{}{}", text.empty() ? "" : "; ", rank, errors[r]);
  }
  if (!text.empty()) throw AgreedUsageError(text);
}

std::unique_ptr<Platform> selection_platform(ProcessGroup& group, const std::string& path, const TeamOptions& options,
                                             const std::vector<std::string>* order) {
  std::string text, error;
  if (group.is_root()) {
    try {
      text = read_selection(path).text();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  group.broadcast(error, "reading the selection");
  if (!error.empty()) throw AgreedUsageError(error);
  group.broadcast(text, "sending the selection");
  std::vector<DeviceSpec> mine;
  try {
    const Selection sel = parse_selection(text, path);
    for (const auto& d : sel.devices_for(group.rank(), group.host()))
      if (order == nullptr || std::find(order->begin(), order->end(), processor_name(group.host(), d)) != order->end())
        mine.push_back(d);
  } catch (const std::exception& e) {
    error = e.what();
  }
  raise_if_any(group, error, "reading each rank's devices");
  return group.platform(mine, options, order);
}

void agree_on_problem(ProcessGroup& group, const std::string& problem) {
  std::string root = problem;
  group.broadcast(root, "comparing every rank's application and inputs");
  const std::string error = root == problem
                                ? std::string()
                                : fmt::format(
                                      "started with '{}', but rank 0 with '{}': every rank must be given the same "
                                      "application and inputs",
                                      problem, root);
  raise_if_any(group, error, "comparing every rank's application and inputs");
}

}  // namespace ctrl::loop
