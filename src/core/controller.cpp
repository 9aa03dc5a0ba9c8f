// Controller: the public face; everything is forwarded to the device-independent core, with the
// device parts built by the registered kind.
#include "controller_core.hpp"
#include "host_task.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

namespace ctrl {

namespace {
detail::DeviceParts build_parts(const DeviceSpec& spec) {
  detail::register_builtin_kinds();
  detail::KindFactory factory = detail::find_kind(spec.kind);
  if (!factory) {
    throw UsageError(fmt::format("device '{}': no device kind '{}' in this build of ctrl (it has: {})", spec.str(),
                                 spec.kind, detail::registered_kinds()));
  }
  return factory(spec);
}

// CTRL_CHECK_OUT=1 checks a whole program (a test run, a debugging session) without changing its
// code. Anything but 1, 0 or nothing is refused: a misspelt value must not quietly check nothing.
bool check_out_requested() {
  const char* env = std::getenv("CTRL_CHECK_OUT");
  const std::string_view v = env ? env : "";
  if (v.empty() || v == "0") return false;
  if (v == "1") return true;
  throw UsageError(
      fmt::format("CTRL_CHECK_OUT='{}': set it to 1 to check that kernels write every element of "
                  "their Out tiles, or to 0 (or leave it unset) not to",
                  v));
}

std::unique_ptr<detail::ControllerCore> make_core(const DeviceSpec& spec, const ControllerOptions& options) {
  const bool check_out = check_out_requested() || options.check_out;  // a bad value fails before a device opens
  return std::make_unique<detail::ControllerCore>(spec, build_parts(spec), check_out);
}
}  // namespace

Controller::Controller(const DeviceSpec& device, const ControllerOptions& options)
    : core_(make_core(device, options)) {}

Controller::~Controller() = default;

void Controller::attach_state(const std::shared_ptr<detail::TileState>& s) {
  detail::refuse_inside_host_task("attach", core_->name());
  core_->attach(s);
}
void Controller::detach_states(const std::vector<std::shared_ptr<detail::TileState>>& s) {
  detail::refuse_inside_host_task("detach", core_->name());
  core_->detach(s);
}
void Controller::take_states(const std::vector<std::shared_ptr<detail::TileState>>& s) {
  detail::refuse_inside_host_task("take", core_->name());
  core_->take(s);
}
void Controller::create_internal_state(const std::shared_ptr<detail::TileState>& s) {
  detail::refuse_inside_host_task("create_internal", core_->name());
  core_->create_internal(s);
}
void Controller::destroy_internal_state(const std::shared_ptr<detail::TileState>& s) {
  detail::refuse_inside_host_task("destroy_internal", core_->name());
  core_->destroy_internal(s);
}
void Controller::update_rows(const std::shared_ptr<detail::TileState>& s, index_t begin, index_t end, bool to_host) {
  detail::refuse_inside_host_task(to_host ? "update_host" : "update_device", core_->name());
  core_->update_rows(s, begin, end, to_host);
}
void Controller::copy_rows_state(const std::shared_ptr<detail::TileState>& s, index_t begin, index_t end,
                                 const std::shared_ptr<detail::TileState>& source, index_t from) {
  detail::refuse_inside_host_task("copy_rows", core_->name());
  core_->copy_rows(s, begin, end, source, from);
}
void Controller::submit(detail::LaunchBody& body, Variant variant, const Threads& space, const detail::TileUse* uses,
                        std::size_t n_uses) {
  detail::refuse_inside_host_task("launch", core_->name());
  core_->submit(body, variant, space, uses, n_uses);
}
void Controller::submit_host_task(std::unique_ptr<detail::HostTaskBody> body, const detail::TileUse* uses,
                                  std::size_t n_uses) {
  detail::refuse_inside_host_task("host_task", core_->name());
  core_->submit_host_task(std::move(body), uses, n_uses);
}
void Controller::wait() {
  detail::refuse_inside_host_task("wait", core_->name());
  core_->wait();
}
Event Controller::record_event() {
  detail::refuse_inside_host_task("record_event", core_->name());
  return Event(core_->record_event());
}
void Controller::wait_for(const Event& event) {
  detail::refuse_inside_host_task("wait_for", core_->name());
  core_->wait_for(event.state_);
}
void Controller::begin_recording() {
  detail::refuse_inside_host_task("record", core_->name());
  core_->begin_recording();
}
Graph Controller::end_recording() { return Graph(core_->end_recording()); }
void Controller::abort_recording() noexcept { core_->abort_recording(); }
void Controller::replay(const Graph& graph, std::uint64_t times) {
  detail::refuse_inside_host_task("replay", core_->name());
  core_->replay(graph.state_, times);
}
std::size_t Graph::launches() const { return state_ ? state_->launches.size() : 0; }
std::string Graph::controller() const { return state_ ? state_->controller_name : std::string(); }
const DeviceSpec& Controller::spec() const { return core_->spec(); }
std::string Controller::name() const { return core_->name(); }
std::string Controller::description() const { return core_->description(); }
bool Controller::shares_host_memory() const { return core_->shared(); }
bool Controller::checks_out() const { return core_->checks_out(); }
TransferStats Controller::transfers() const { return core_->transfers(); }
void Controller::reset_transfers() { core_->reset_transfers(); }

}  // namespace ctrl
