// Recorded launches (include/ctrl/graph.hpp): recording a sequence, and replaying it as one
// launch whose roles are the sequence's, through the execution model's plan (a CUDA graph) or,
// where the model has none, launch by launch in one queue entry.
#include "controller_core.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ctrl::detail {

namespace {

// The sequence as the plan sees it, with the tile pointers of one replay.
class Sequence final : public RecordedSequence {
 public:
  Sequence(const GraphState& g, void* const* ptrs) : g_(g), ptrs_(ptrs) {}
  std::size_t size() const override { return g_.launches.size(); }
  ReplayLaunch launch(std::size_t i) const override {
    const RecordedLaunch& r = g_.launches[i];
    return {r.body.get(), r.variant, r.space, ptrs_ + r.first_use};
  }

 private:
  const GraphState& g_;
  void* const* ptrs_;
};

}  // namespace

void ControllerCore::refuse_while_recording(const std::string& what) const {
  if (!recording_open_.load(std::memory_order_relaxed)) return;
  throw UsageError(
      fmt::format("{} on controller {} while it records a graph: a recording holds launches only, "
                  "and nothing runs until it is replayed; call it before or after record()",
                  what, name_));
}

void ControllerCore::begin_recording() {
  std::lock_guard lock(mutex_);
  if (recording_) {
    throw UsageError(
        fmt::format("record on controller {}: it is already recording a graph (recordings do not nest)", name_));
  }
  recording_ = std::make_unique<GraphState>();
  recording_->controller_id = id_;
  recording_->controller_name = name_;
  recording_open_.store(true, std::memory_order_relaxed);
}

std::shared_ptr<GraphState> ControllerCore::end_recording() {
  std::lock_guard lock(mutex_);
  std::shared_ptr<GraphState> g(std::move(recording_));
  recording_open_.store(false, std::memory_order_relaxed);
  g->ptrs.assign(g->uses.size(), nullptr);
  // Checking mode runs each launch with its checks: no plan, whatever the kind.
  if (!check_out_ && !g->launches.empty()) g->plan = parts_.exec->plan_replays();
  return g;
}

void ControllerCore::abort_recording() noexcept {
  std::lock_guard lock(mutex_);
  recording_.reset();
  recording_open_.store(false, std::memory_order_relaxed);
}

// Called by submit, the launch checked: the body moves into the recording, and each tile's entry
// learns whether the sequence reads it before writing it and whether it writes it.
void ControllerCore::add_to_recording(LaunchBody& body, Variant v, const Threads& space, const TileUse* uses,
                                      std::size_t n_uses) {
  GraphState& g = *recording_;
  const std::size_t launch = g.launches.size();
  RecordedLaunch r{body.move_to_heap(), v, space, g.uses.size(), n_uses};
  for (std::size_t j = 0; j < n_uses; ++j) {
    const TileState* t = uses[j].tile;
    std::size_t k = 0;
    while (k < g.tiles.size() && g.tiles[k].raw != t) ++k;
    if (k == g.tiles.size()) {  // check_launch found it attached to or internal to this controller
      const auto owned = std::find_if(owned_.begin(), owned_.end(), [&](const auto& p) { return p.get() == t; });
      g.tiles.push_back({*owned, t, t->label(), launch});
    }
    RecordedTile& rt = g.tiles[k];
    if (rt.first_launch == launch && reads(uses[j].role)) rt.read_first = true;
    if (writes(uses[j].role)) rt.written = true;
    g.uses.push_back(static_cast<std::uint32_t>(k));
    g.roles.push_back(uses[j].role);
  }
  if (r.body->binds_values()) g.bound.push_back(r.body.get());
  g.launches.push_back(std::move(r));
}

void ControllerCore::replay(const std::shared_ptr<GraphState>& g, std::uint64_t times) {
  std::lock_guard lock(mutex_);
  refuse_while_recording("replay of a graph");
  if (!g || times == 0 || g->launches.empty()) return;
  if (g->controller_id != id_) {
    throw UsageError(
        fmt::format("replay on controller {} of a graph recorded on controller {}: a graph replays only "
                    "on the controller that recorded it (its launches use that controller's tiles); "
                    "record it again on this one",
                    name_, g->controller_name));
  }
  const auto live = replay_tiles(*g);
  const bool changed = bring_up_to_date(*g, live);
  std::vector<Copy> copies = settle_replay(*g, live);
  std::vector<std::vector<OutCheck>> checks;  // checking mode only
  if (check_out_) checks = replay_checks(*g, live);
  ReplayRun run{g.get(), g->ptrs.data(), copies, checks, launches_ + 1, ++g->replays, times, changed};
  launches_ += times * g->launches.size();
  if (parts_.queue->runs_inline()) {
    auto task = [&] { run_replay(run); };
    g->last_ticket = parts_.queue->submit_inline(TaskRef(task));
    return;
  }
  // The task owns what it reads: the host may change the graph's pointers before it runs.
  g->last_ticket = parts_.queue->submit(
      [this, g, run, ptrs = g->ptrs, copies = std::move(copies), checks = std::move(checks)]() mutable {
        run.ptrs = ptrs.data();
        run.copies = copies;
        run.checks = checks;
        run_replay(run);
      });
}

// The graph's tiles as they are now; each must still be attached to or internal to this controller.
std::vector<std::shared_ptr<TileState>> ControllerCore::replay_tiles(const GraphState& g) const {
  std::vector<std::shared_ptr<TileState>> live;
  live.reserve(g.tiles.size());
  for (const RecordedTile& rt : g.tiles) {
    std::shared_ptr<TileState> t = rt.state.lock();
    if (!t) {
      throw UsageError(
          fmt::format("replay of a graph on controller {}: tile {} was detached and freed after the graph "
                      "was recorded",
                      name_, rt.label));
    }
    if (t->owner != this) {
      throw UsageError(
          fmt::format("replay of a graph on controller {}: tile {} is {} (it was attached when the graph "
                      "was recorded); attach it again before replaying",
                      name_, rt.label,
                      t->owner ? fmt::format("attached to controller {}", t->owner->name())
                               : std::string("no longer attached to it")));
    }
    live.push_back(std::move(t));
  }
  return live;
}

// Takes the tiles' current images and the ctrl::ref variables' current values; true if anything
// differs from the last replay (or there was none), so that a plan brings itself up to date.
bool ControllerCore::bring_up_to_date(GraphState& g, const std::vector<std::shared_ptr<TileState>>& live) {
  bool changed = g.replays == 0;
  for (std::size_t u = 0; u < g.uses.size(); ++u) {
    void* p = live[g.uses[u]]->image;
    if (p != g.ptrs[u]) {
      g.ptrs[u] = p;
      changed = true;
    }
  }
  const bool values =
      std::any_of(g.bound.begin(), g.bound.end(), [](const LaunchBody* b) { return b->values_changed(); });
  if (values) {
    // A queue thread may still run earlier replays with these bodies: they finish first.
    if (!parts_.queue->runs_inline() && g.last_ticket != 0) parts_.queue->wait(g.last_ticket);
    for (LaunchBody* b : g.bound) b->reload_values();
    changed = true;
  }
  return changed;
}

// The replay's copies, and the record after it: the whole sequence taken as one launch.
std::vector<ControllerCore::Copy> ControllerCore::settle_replay(const GraphState& g,
                                                                const std::vector<std::shared_ptr<TileState>>& live) {
  std::vector<Copy> copies;
  for (std::size_t k = 0; k < g.tiles.size(); ++k) {
    TileState& t = *live[k];
    if (!shared_ && g.tiles[k].read_first && !t.device_valid) {
      copies.push_back({t.image, t.host(), t.bytes()});
      stats_.bytes_in += t.bytes();
      ++stats_.copies_in;
      t.device_valid = true;
    }
    if (g.tiles[k].written) {
      t.device_valid = true;
      t.host_valid = shared_ && !t.internal;
    }
  }
  return copies;
}

std::vector<std::vector<ControllerCore::OutCheck>> ControllerCore::replay_checks(
    const GraphState& g, const std::vector<std::shared_ptr<TileState>>& live) const {
  std::vector<std::vector<OutCheck>> checks(g.launches.size());
  std::vector<TileUse> uses;
  for (std::size_t i = 0; i < g.launches.size(); ++i) {
    const RecordedLaunch& r = g.launches[i];
    uses.clear();
    for (std::size_t u = r.first_use; u < r.first_use + r.n_uses; ++u)
      uses.push_back({live[g.uses[u]].get(), g.roles[u]});
    checks[i] = out_checks(uses.data(), uses.size());
  }
  return checks;
}

// In the queue's context.
void ControllerCore::run_replay(const ReplayRun& r) {
  GraphState& g = *r.graph;
  const auto where = [&] {
    return fmt::format("replay #{} ({} time{}) of a graph of {} launches on controller {}", r.replay_number, r.times,
                       r.times == 1 ? "" : "s", g.launches.size(), name_);
  };
  try {
    for (const Copy& c : r.copies) parts_.memory->copy_in(c.device, c.host, c.bytes);
  } catch (const std::exception& e) {
    std::throw_with_nested(DeviceError(fmt::format("{}: a copy before it failed: {}", where(), e.what())));
  }
  if (!g.plan) {
    run_launch_by_launch(r);
    return;
  }
  try {
    g.plan->replay(Sequence(g, r.ptrs), r.changed, r.times);
  } catch (const DeviceError& e) {
    std::throw_with_nested(DeviceError(fmt::format("{}: {}", where(), e.what())));
  } catch (const std::exception& e) {  // a library variant that throws while it is captured
    std::throw_with_nested(KernelError(fmt::format("{} failed: {}", where(), e.what())));
  }
}

// Every launch runs, as queued launches do after one fails; the first failure is reported.
void ControllerCore::run_launch_by_launch(const ReplayRun& r) {
  const GraphState& g = *r.graph;
  std::exception_ptr first;
  std::uint64_t failed = 0, number = r.first_number;
  for (std::uint64_t t = 0; t < r.times; ++t) {
    for (std::size_t i = 0; i < g.launches.size(); ++i, ++number) {
      const RecordedLaunch& l = g.launches[i];
      const ReplayPosition at{r.replay_number, i + 1, g.launches.size()};
      try {
        run_launch(*l.body, l.variant, l.space, r.ptrs + l.first_use, {},
                   r.checks.empty() ? std::span<const OutCheck>() : std::span<const OutCheck>(r.checks[i]), number,
                   &at);
      } catch (...) {
        if (!first) first = std::current_exception();
        ++failed;
      }
    }
  }
  if (failed <= 1) {
    if (first) std::rethrow_exception(first);
    return;
  }
  const std::string more = fmt::format(" (and {} later launches of the replay failed)", failed - 1);
  try {
    std::rethrow_exception(first);
  } catch (const DeviceError& d) {
    std::throw_with_nested(DeviceError(d.what() + more));
  } catch (const std::exception& k) {
    std::throw_with_nested(KernelError(k.what() + more));
  }
}

}  // namespace ctrl::detail
