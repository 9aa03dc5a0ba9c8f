#include "controller_core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace ctrl::detail {

ControllerCore::ControllerCore(DeviceSpec spec, DeviceParts parts, bool check_out)
    : spec_(std::move(spec)),
      name_(spec_.str()),
      parts_(std::move(parts)),
      shared_(parts_.memory->shared_with_host()),
      check_out_(check_out) {
  static std::atomic<std::uint64_t> next_id{1};
  id_ = next_id.fetch_add(1);
  ExecutionModel* exec = parts_.exec.get();
  parts_.queue->start([exec] { exec->bind_queue_thread(); });
}

ControllerCore::~ControllerCore() {
  // Bring attached tiles home and free internal ones; errors cannot leave a destructor. A failure
  // that detach reports (a kernel that threw) must not keep the internal tiles from being freed:
  // their records would go on naming this controller after it is gone.
  std::vector<std::shared_ptr<TileState>> attached;
  std::vector<std::shared_ptr<TileState>> internal;
  for (auto& t : owned_) (t->internal ? internal : attached).push_back(t);
  auto report = [this](const std::exception& e) {
    std::fprintf(stderr, "ctrl: controller %s: error while shutting down: %s\n", name_.c_str(), e.what());
  };
  try {
    if (!attached.empty()) detach(attached);
  } catch (const std::exception& e) {
    report(e);
  }
  try {
    for (auto& t : internal) destroy_internal(t);
    parts_.queue->wait(parts_.queue->last_ticket());
  } catch (const std::exception& e) {
    report(e);
  }
  abandon_events();      // a waiter on another controller must not wait for what will never come
  parts_.queue.reset();  // joins the queue thread before the parts it uses go away
  parts_.exec.reset();
  parts_.memory.reset();
}

std::string ControllerCore::description() const {
  return fmt::format("{}; {}", parts_.exec->describe(), parts_.memory->describe());
}

// The image a tile attached or taken here will have: the host memory itself on a shared-memory
// kind, else a new image (an internal tile gets one even there, as create_internal gives it).
// Nothing has changed when this throws; `what` begins the error's message.
void* ControllerCore::image_for(TileState& t, const std::string& what) {
  if (shared_ && !t.internal) return t.host();
  void* image = nullptr;
  try {
    image = parts_.memory->allocate(t.bytes());
    if (!t.internal && !shared_) parts_.memory->tile_attached(t);
  } catch (const DeviceError& e) {
    if (image) parts_.memory->release(image);
    std::throw_with_nested(DeviceError(fmt::format("{}: {}", what, e.what())));
  } catch (...) {
    if (image) parts_.memory->release(image);
    throw;
  }
  return image;
}

void ControllerCore::attach(const std::shared_ptr<TileState>& t) {
  std::lock_guard lock(mutex_);
  refuse_while_recording(fmt::format("attach of tile {}", t->label()));
  if (t->owner) {
    throw UsageError(
        fmt::format("attach of tile {} to controller {}: it is already {} controller {} (take moves "
                    "it here)",
                    t->label(), name_, t->internal ? "internal to" : "attached to", t->owner->name()));
  }
  if (!t->storage) {
    throw UsageError(
        fmt::format("attach of tile {} to controller {}: the tile has no host memory (declared by "
                    "shape only); use create_internal",
                    t->label(), name_));
  }
  check_not_moved(*t, fmt::format("attach of tile {} to controller {}", t->label(), name_));
  {
    std::lock_guard range_lock(t->storage->mutex);
    const std::size_t begin = t->offset, end = t->offset + t->bytes();
    for (const auto& a : t->storage->attached) {
      if (begin < a.end && a.begin < end) {
        throw UsageError(
            fmt::format("attach of tile {} to controller {}: it overlaps tile {}, attached to "
                        "controller {}",
                        t->label(), name_, a.tile->label(), a.tile->owner->name()));
      }
    }
    t->storage->attached.push_back({begin, end, t.get()});
  }
  t->owner = this;
  t->internal = false;
  t->host_valid = true;
  try {
    t->image = image_for(*t, fmt::format("attach of tile {} to controller {}", t->label(), name_));
  } catch (...) {
    t->image = nullptr;
    unregister_range(*t);
    t->owner = nullptr;
    throw;
  }
  t->device_valid = shared_;
  owned_.push_back(t);
}

void ControllerCore::unregister_range(TileState& t) {
  std::lock_guard range_lock(t.storage->mutex);
  auto& v = t.storage->attached;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& a) { return a.tile == &t; }), v.end());
}

void ControllerCore::forget(const TileState& t) {
  owned_.erase(std::remove_if(owned_.begin(), owned_.end(), [&](const auto& p) { return p.get() == &t; }),
               owned_.end());
}

void ControllerCore::detach(const std::vector<std::shared_ptr<TileState>>& tiles) {
  std::uint64_t ticket = 0;
  std::vector<std::string> moved;
  std::vector<bool> gone(tiles.size(), false);  // per tile: its wrapped container moved
  {
    std::lock_guard lock(mutex_);
    if (!tiles.empty()) refuse_while_recording(fmt::format("detach of tile {}", tiles.front()->label()));
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (tiles[j] == tiles[i]) {
          throw UsageError(
              fmt::format("detach of tile {} from controller {}: the tile is listed twice", tiles[i]->label(), name_));
        }
      }
    }
    for (const auto& t : tiles) {
      if (t->owner != this) {
        throw UsageError(t->owner
                             ? fmt::format("detach of tile {} from controller {}: it is {} controller {}", t->label(),
                                           name_, t->internal ? "internal to" : "attached to", t->owner->name())
                             : fmt::format("detach of tile {} from controller {}: it is not attached to "
                                           "any controller",
                                           t->label(), name_));
      }
      if (t->internal) {
        throw UsageError(fmt::format("detach of tile {} from controller {}: it is internal; use destroy_internal",
                                     t->label(), name_));
      }
    }
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const auto& t = tiles[i];
      // A wrapped container that moved while attached: its old memory may be gone, so nothing is
      // copied there; the tile is detached all the same and the error said after.
      std::string why = t->storage->moved();
      gone[i] = !why.empty();
      if (!why.empty()) moved.push_back(fmt::format("tile {}: {}", t->label(), why));
      if (!shared_) {
        MemorySpace* mem = parts_.memory.get();
        Copy c{t->image, t->host(), t->bytes()};
        const bool back = !t->host_valid && why.empty();
        if (back) {
          stats_.bytes_out += c.bytes;
          ++stats_.copies_out;
        }
        ticket = parts_.queue->submit([mem, c, back] {
          if (back) mem->copy_out(c.host, c.device, c.bytes);
          mem->release(c.device);
        });
      } else {
        ticket = parts_.queue->last_ticket();
      }
    }
  }
  parts_.queue->wait(ticket);
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const auto& t = tiles[i];
      if (!shared_) parts_.memory->tile_detached(*t);
      if (gone[i]) t->storage->unprepare();  // its old memory
      unregister_range(*t);
      t->owner = nullptr;
      t->image = nullptr;
      t->host_valid = true;
      t->device_valid = false;
      forget(*t);
    }
  }
  raise_pending_error();
  if (!moved.empty()) report_moved(moved);
}

// The detach's tiles whose wrapped containers moved while attached (their data on the device is
// lost; on a shared-memory kind the kernels wrote to memory the container had left).
void ControllerCore::report_moved(const std::vector<std::string>& moved) const {
  std::string list;
  for (const std::string& m : moved) list += (list.empty() ? "" : "; ") + m;
  throw UsageError(
      fmt::format("detach from controller {}: {}; a wrapped container must keep its elements in "
                  "place while attached (nothing was copied into its old memory)",
                  name_, list));
}

void ControllerCore::update_rows(const std::shared_ptr<TileState>& t, index_t begin, index_t end, bool to_host) {
  const char* what = to_host ? "update_host" : "update_device";
  std::uint64_t ticket = 0;
  {
    std::lock_guard lock(mutex_);
    refuse_while_recording(fmt::format("{} of tile {}", what, t->label()));
    if (t->owner != this || t->internal) {
      throw UsageError(fmt::format(
          "{} of tile {} on controller {}: {}", what, t->label(), name_,
          t->internal ? "the tile is internal (it has no host rows)" : "the tile is not attached to this controller"));
    }
    if (begin < 0 || end < begin || end > t->ext[0]) {
      throw UsageError(fmt::format("{} of tile {} on controller {}: rows [{}, {}) are not within its {} rows", what,
                                   t->label(), name_, begin, end, t->ext[0]));
    }
    ticket = parts_.queue->last_ticket();
    // Only the side that is behind is updated: the host when the device holds newer data, the
    // device when its copy is in use (else the next launch copies the whole tile anyway).
    const bool move = !shared_ && begin < end && (to_host ? !t->host_valid : t->device_valid);
    if (move) {
      const std::size_t row = t->row_bytes();
      const std::size_t offset = static_cast<std::size_t>(begin) * row;
      Copy c{static_cast<char*>(t->image) + offset, static_cast<char*>(t->host()) + offset,
             static_cast<std::size_t>(end - begin) * row};
      MemorySpace* mem = parts_.memory.get();
      if (to_host) {
        stats_.bytes_out += c.bytes;
        ++stats_.copies_out;
        ticket = parts_.queue->submit([mem, c] { mem->copy_out(c.host, c.device, c.bytes); });
      } else {
        stats_.bytes_in += c.bytes;
        ++stats_.copies_in;
        ticket = parts_.queue->submit([mem, c] { mem->copy_in(c.device, c.host, c.bytes); });
      }
    }
  }
  parts_.queue->wait(ticket);
  raise_pending_error();
}

void ControllerCore::create_internal(const std::shared_ptr<TileState>& t) {
  std::lock_guard lock(mutex_);
  refuse_while_recording(fmt::format("create_internal of tile {}", t->label()));
  if (t->owner) {
    throw UsageError(fmt::format("create_internal of tile {} on controller {}: it is already {} controller {}",
                                 t->label(), name_, t->internal ? "internal to" : "attached to", t->owner->name()));
  }
  try {
    t->image = parts_.memory->allocate(t->bytes());
  } catch (const DeviceError& e) {
    std::throw_with_nested(
        DeviceError(fmt::format("create_internal of tile {} on controller {}: {}", t->label(), name_, e.what())));
  }
  t->owner = this;
  t->internal = true;
  t->device_valid = true;
  t->host_valid = false;
  owned_.push_back(t);
}

void ControllerCore::destroy_internal(const std::shared_ptr<TileState>& t) {
  {
    std::lock_guard lock(mutex_);
    refuse_while_recording(fmt::format("destroy_internal of tile {}", t->label()));
    if (t->owner != this || !t->internal) {
      throw UsageError(
          fmt::format("destroy_internal of tile {} on controller {}: it is not internal to this "
                      "controller{}",
                      t->label(), name_,
                      t->owner ? fmt::format(" ({} {})", t->internal ? "internal to" : "attached to", t->owner->name())
                               : std::string()));
    }
    MemorySpace* mem = parts_.memory.get();
    void* image = t->image;
    parts_.queue->submit([mem, image] { mem->release(image); });  // after the launches that use it
    t->owner = nullptr;
    t->internal = false;
    t->image = nullptr;
    t->device_valid = false;
    t->host_valid = t->storage != nullptr;
    forget(*t);
  }
}

void ControllerCore::check_owned(const TileState& t, const char* what, const char* kernel) const {
  if (t.owner == this) return;
  if (!t.owner) {
    throw UsageError(
        fmt::format("{} of kernel '{}' on controller {}: tile {} is neither attached nor internal "
                    "to this controller",
                    what, kernel, name_, t.label()));
  }
  throw UsageError(fmt::format("{} of kernel '{}' on controller {}: tile {} is {} controller {}", what, kernel, name_,
                               t.label(), t.internal ? "internal to" : "attached to", t.owner->name()));
}

void ControllerCore::check_launch(const LaunchBody& body, Variant v, const Threads& space, const TileUse* uses,
                                  std::size_t n_uses) const {
  const char* kernel = body.kernel_name();
  const std::uint32_t indexed = body.indexed_tiles();
  for (int d = 0; d < space.dims(); ++d) {
    if (space.extent(d) < 0) {
      throw UsageError(
          fmt::format("launch of kernel '{}' on controller {}: negative index space {}", kernel, name_, space.str()));
    }
  }
  for (std::size_t j = 0; j < n_uses; ++j) {
    const TileState& t = *uses[j].tile;
    check_owned(t, "launch", kernel);
    if (v == Variant::library || !(indexed & (1U << j))) continue;
    const std::size_t dims = std::min<std::size_t>(static_cast<std::size_t>(space.dims()), t.rank);
    for (std::size_t d = 0; d < dims; ++d) {
      if (space.extent(static_cast<int>(d)) > t.ext[d]) {
        throw UsageError(
            fmt::format("launch of kernel '{}' on controller {}: index space {} is larger than tile {} "
                        "in dimension {}",
                        kernel, name_, space.str(), t.label(), d));
      }
    }
  }
}

// Decides the launch's copies and updates the record: ptrs[j] is tile j's image; returns how
// many copies it wrote.
std::size_t ControllerCore::settle(const TileUse* uses, std::size_t n_uses, void** ptrs, Copy* copies) {
  std::size_t n_copies = 0;
  for (std::size_t j = 0; j < n_uses; ++j) {
    TileState& t = *uses[j].tile;
    ptrs[j] = t.image;
    if (!shared_ && reads(uses[j].role) && !t.device_valid) {
      copies[n_copies++] = {t.image, t.host(), t.bytes()};
      stats_.bytes_in += t.bytes();
      ++stats_.copies_in;
      t.device_valid = true;
    }
  }
  for (std::size_t j = 0; j < n_uses; ++j) {
    TileState& t = *uses[j].tile;
    if (writes(uses[j].role)) {
      t.device_valid = true;
      t.host_valid = shared_ && !t.internal;
    }
  }
  return n_copies;
}

// The tiles checking mode poisons: those taken as Out, once each, unless the launch also reads
// them through another parameter (the poison would then be what it reads).
std::vector<ControllerCore::OutCheck> ControllerCore::out_checks(const TileUse* uses, std::size_t n_uses) {
  std::vector<OutCheck> checks;
  for (std::size_t j = 0; j < n_uses; ++j) {
    const TileState& t = *uses[j].tile;
    if (uses[j].role != Role::out || t.bytes() == 0) continue;
    bool skip = false;
    for (std::size_t k = 0; k < n_uses && !skip; ++k) {
      skip = uses[k].tile == &t && (reads(uses[k].role) || (k < j && uses[k].role == Role::out));
    }
    if (skip) continue;
    OutCheck c{t.image, t.bytes(), t.elem_size, t.rank, {}, t.label()};
    std::copy(std::begin(t.ext), std::end(t.ext), std::begin(c.ext));
    checks.push_back(std::move(c));
  }
  return checks;
}

void ControllerCore::submit(LaunchBody& body, Variant variant, const Threads& space, const TileUse* uses,
                            std::size_t n_uses) {
  std::lock_guard lock(mutex_);
  const Variant v = choose_variant(body, parts_.exec->family(), variant, name_);
  check_launch(body, v, space, uses, n_uses);
  if (recording_) {
    add_to_recording(body, v, space, uses, n_uses);
    return;
  }
  // Decide the copies now, in submission order, so that the record is exact whatever runs when.
  // Small launches keep their pointers and copies on the stack.
  constexpr std::size_t on_stack = 16;
  void* stack_ptrs[on_stack];
  Copy stack_copies[on_stack];
  std::vector<void*> heap_ptrs;
  std::vector<Copy> heap_copies;
  void** ptrs = stack_ptrs;
  Copy* copies = stack_copies;
  if (n_uses > on_stack) {
    heap_ptrs.resize(n_uses);
    heap_copies.resize(n_uses);
    ptrs = heap_ptrs.data();
    copies = heap_copies.data();
  }
  const std::size_t n_copies = settle(uses, n_uses, ptrs, copies);
  std::vector<OutCheck> checks;  // stays empty, allocating nothing, unless checking mode is on
  if (check_out_) checks = out_checks(uses, n_uses);
  const std::uint64_t number = ++launches_;
  if (parts_.queue->runs_inline()) {
    // The queue runs the task before submit_inline returns: the body and arrays stay where they are.
    auto task = [&] { run_launch(body, v, space, ptrs, {copies, n_copies}, checks, number); };
    parts_.queue->submit_inline(TaskRef(task));
    return;
  }
  std::shared_ptr<const LaunchBody> owned(body.move_to_heap());
  parts_.queue->submit([this, owned, v, space, ptrs = std::vector<void*>(ptrs, ptrs + n_uses),
                        copies = std::vector<Copy>(copies, copies + n_copies), checks = std::move(checks),
                        number] { run_launch(*owned, v, space, ptrs.data(), copies, checks, number); });
}

namespace {

// "(0, 5)": an element's indexes in a row-major tile, from its position in the image.
std::string element_index(std::size_t linear, std::size_t rank, const index_t* ext) {
  std::size_t idx[4] = {};
  for (std::size_t d = rank; d-- > 0;) {
    const auto e = static_cast<std::size_t>(ext[d]);
    idx[d] = linear % e;
    linear /= e;
  }
  std::string s = "(";
  for (std::size_t d = 0; d < rank; ++d) s += fmt::format("{}{}", d ? ", " : "", idx[d]);
  return s + ")";
}

}  // namespace

// "124 of 1024 elements of Out tile 'm' (...) unwritten (first at (0, 5))" for each checked tile
// the kernel left elements of; empty if none.
std::string ControllerCore::find_unwritten(std::span<const OutCheck> checks) {
  std::string report;
  for (const OutCheck& c : checks) {
    const PoisonScan found = parts_.memory->find_poison(c.image, c.bytes, c.elem_size);
    if (found.unwritten == 0) continue;
    report += fmt::format("{}{} of {} elements of Out tile {} unwritten (first at {})", report.empty() ? "" : " and ",
                          found.unwritten, c.bytes / c.elem_size, c.label, element_index(found.first, c.rank, c.ext));
  }
  return report;
}

// Runs in the queue's context: the launch's copies in, the checking mode's poison, then the
// kernel; failures name the launch. Elements of Out tiles left unwritten fail it after the kernel.
void ControllerCore::run_launch(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs,
                                std::span<const Copy> copies, std::span<const OutCheck> checks, std::uint64_t number,
                                const ReplayPosition* in_replay) {
  std::string unwritten;
  // "launch #12" or "launch #12 (replay #6, launch 2 of 2)": formatted only for a message.
  const auto launch = [&] {
    return in_replay ? fmt::format("launch #{} (replay #{}, launch {} of {})", number, in_replay->replay,
                                   in_replay->launch, in_replay->of)
                     : fmt::format("launch #{}", number);
  };
  try {
    for (const Copy& c : copies) parts_.memory->copy_in(c.device, c.host, c.bytes);
    for (const OutCheck& c : checks) parts_.memory->poison(c.image, c.bytes, c.elem_size);
    parts_.exec->run(body, v, space, ptrs);
    if (!checks.empty()) unwritten = find_unwritten(checks);
  } catch (const DeviceError& e) {
    std::throw_with_nested(DeviceError(fmt::format("{} of kernel '{}' ({}) on controller {}: {}", launch(),
                                                   body.kernel_name(), variant_name(v), name_, e.what())));
  } catch (const std::exception& e) {
    std::throw_with_nested(KernelError(fmt::format("{} of kernel '{}' ({}) on controller {} failed: {}", launch(),
                                                   body.kernel_name(), variant_name(v), name_, e.what())));
  } catch (...) {
    std::throw_with_nested(
        KernelError(fmt::format("{} of kernel '{}' ({}) on controller {} failed with a "
                                "non-standard exception",
                                launch(), body.kernel_name(), variant_name(v), name_)));
  }
  if (!unwritten.empty()) {
    throw KernelError(
        fmt::format("{} of kernel '{}' ({}) on controller {} left {}: an Out parameter must "
                    "write every element; take the tile as InOut to keep the others",
                    launch(), body.kernel_name(), variant_name(v), name_, unwritten));
  }
}

void ControllerCore::wait() {
  // A relaxed flag, not the lock: wait is on the hot path of a launch + wait.
  if (recording_open_.load(std::memory_order_relaxed)) refuse_while_recording("wait");
  parts_.queue->wait(parts_.queue->last_ticket());
  raise_pending_error();
}

void ControllerCore::raise_pending_error() {
  std::uint64_t failures = 0;
  std::exception_ptr e = parts_.queue->take_error(failures);
  if (!e) return;
  if (failures <= 1) std::rethrow_exception(e);
  try {
    std::rethrow_exception(e);
  } catch (const DeviceError& d) {
    std::throw_with_nested(DeviceError(fmt::format("{} (and {} later launches failed)", d.what(), failures - 1)));
  } catch (const std::exception& k) {
    std::throw_with_nested(KernelError(fmt::format("{} (and {} later launches failed)", k.what(), failures - 1)));
  }
}

TransferStats ControllerCore::transfers() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void ControllerCore::reset_transfers() {
  std::lock_guard lock(mutex_);
  stats_ = {};
}

}  // namespace ctrl::detail
