// Controller::take: a tile attached or internal to one controller handed to another, in one call
// and without the host where it need not be involved. The data that only the giver's memory holds
// moves at once: straight into the taker's memory where the taker's space reaches the giver's
// (MemorySpace::reaches / copy_from: GPU peer copies, or a copy within one GPU), otherwise out to
// the host's memory and, as after an attach, in again at the first launch that reads it. Data
// the host already holds moves nothing now: it is copied in at that first launch, as ever.
// Controller::copy_rows: rows of a tile on another controller copied into rows of one here (a
// stencil's halo from the neighbour that computed it), by the same paths (copy_across).
#include "controller_core.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>

namespace ctrl::detail {

void MemorySpace::copy_from(void* /*image*/, const MemorySpace& /*source*/, const void* /*from*/,
                            std::size_t /*bytes*/) {
  throw DeviceError(fmt::format("{}: no direct copy from another controller's memory (reaches() said no)", describe()));
}

void ControllerCore::take(const std::vector<std::shared_ptr<TileState>>& tiles) {
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (tiles[j] == tiles[i]) {
        throw UsageError(
            fmt::format("take of tile {} by controller {}: the tile is listed twice", tiles[i]->label(), name_));
      }
    }
    if (!tiles[i]->owner) {
      throw UsageError(
          fmt::format("take of tile {} by controller {}: it is on no controller; attach it (or "
                      "create_internal) instead",
                      tiles[i]->label(), name_));
    }
  }
  for (const auto& t : tiles) {
    if (t->owner != this) take_one(t, *t->owner);
  }
}

void ControllerCore::take_one(const std::shared_ptr<TileState>& tile, ControllerCore& giver) {
  TileState& t = *tile;
  const std::string what =
      fmt::format("take of tile {} by controller {} from controller {}", t.label(), name_, giver.name_);
  {
    std::scoped_lock lock(giver.mutex_, mutex_);
    if (t.owner != &giver) throw UsageError(what + ": another thread moved it meanwhile");
    refuse_while_recording(what);
    giver.refuse_while_recording(what);
    if (!t.internal) check_not_moved(t, what);
    // The giver's launches that use the tile (every one queued so far) finish before it moves.
    giver.parts_.queue->wait(giver.parts_.queue->last_ticket());
    void* image = image_for(t, what);
    void* given = t.image;
    if (t.host_valid) {
      t.device_valid = shared_;  // copied in at the first launch that reads it, as after an attach
    } else {
      try {
        move_data(t, giver, image);
      } catch (...) {
        if (image != t.host()) parts_.memory->release(image);
        throw;
      }
    }
    // The giver's image goes after every copy from it (move_data waited for them).
    const bool giver_image = !giver.shared_ || t.internal;
    if (giver_image) {
      MemorySpace* mem = giver.parts_.memory.get();
      giver.parts_.queue->submit([mem, given] { mem->release(given); });
    }
    if (!giver.shared_ && !t.internal) giver.parts_.memory->tile_detached(t);
    giver.forget(t);
    t.owner = this;
    t.image = image;
    owned_.push_back(tile);
  }
  giver.raise_pending_error();
  raise_pending_error();
}

// Moves the data that only the giver's image holds into `image` (this controller's), or, where
// this memory cannot reach the giver's directly, into host memory; waits for the copies. The
// record then says where the data is.
void ControllerCore::move_data(TileState& t, ControllerCore& giver, void* image) {
  const bool host_image = shared_;  // this controller's image is host memory (the tile's or internal)
  const Place from{t.image, !giver.shared_};
  // An attached tile that cannot go straight across stops in its host memory: copied in here at
  // its first read, as after an attach.
  if (from.device && !host_image && !t.internal && !parts_.memory->reaches(*giver.parts_.memory)) {
    copy_across(giver, {t.host(), false}, from, t.bytes());
    t.host_valid = true;
    t.device_valid = false;
    return;
  }
  parts_.queue->wait(copy_across(giver, {image, !host_image}, from, t.bytes()));
  if (host_image && !t.internal) t.host_valid = true;  // the image is the tile's host memory
  t.device_valid = true;
}

// Copies `bytes` from the giver's `from` to this controller's `to` by the shortest path: host to
// host a memcpy here; host memory into this one's a copy-in (this controller counts it); the
// giver's memory out to host memory a copy-out (the giver counts it); the giver's memory into this
// one's a direct copy where this space reaches the giver's (copy_from: a peer copy, counted by this
// controller), else out to a host buffer of its own and in again. Both controllers' locks are held
// and the launches that write `from` or use `to` have finished. Returns this controller's ticket to
// wait for; the giver's copies are waited for here.
std::uint64_t ControllerCore::copy_across(ControllerCore& giver, Place to, Place from, std::size_t bytes) {
  MemorySpace* mine = parts_.memory.get();
  MemorySpace* theirs = giver.parts_.memory.get();
  if (bytes == 0) return parts_.queue->last_ticket();
  if (!from.device && !to.device) {
    std::memcpy(to.at, from.at, bytes);
    return parts_.queue->last_ticket();
  }
  if (!from.device) {
    count_in(bytes);
    return parts_.queue->submit([mine, to, from, bytes] { mine->copy_in(to.at, from.at, bytes); });
  }
  if (to.device && mine->reaches(*theirs)) {
    ++stats_.copies_peer;
    stats_.bytes_peer += bytes;
    return parts_.queue->submit([mine, theirs, to, from, bytes] { mine->copy_from(to.at, *theirs, from.at, bytes); });
  }
  std::unique_ptr<unsigned char[]> own;
  void* host = !to.device ? to.at : (own = std::make_unique_for_overwrite<unsigned char[]>(bytes)).get();
  ++giver.stats_.copies_out;
  giver.stats_.bytes_out += bytes;
  giver.parts_.queue->wait(
      giver.parts_.queue->submit([theirs, host, from, bytes] { theirs->copy_out(host, from.at, bytes); }));
  if (!to.device) return parts_.queue->last_ticket();
  count_in(bytes);
  // Waited for here while `own` lives.
  const std::uint64_t ticket = parts_.queue->submit([mine, to, host, bytes] { mine->copy_in(to.at, host, bytes); });
  parts_.queue->wait(ticket);
  return ticket;
}

// The halo exchange calls this twice per block and exchange: the message is made only for an
// error.
void ControllerCore::copy_rows(const std::shared_ptr<TileState>& to, index_t begin, index_t end,
                               const std::shared_ptr<TileState>& from, index_t from_begin) {
  const auto what = [&] {
    return fmt::format("copy_rows into tile {} on controller {} from tile {}", to->label(), name_, from->label());
  };
  {
    std::lock_guard lock(mutex_);
    if (recording_open_.load(std::memory_order_relaxed)) refuse_while_recording(what());
    if (to->owner != this) throw UsageError(what() + ": the tile is not attached or internal to this controller");
  }
  ControllerCore* giver = from->owner;
  if (giver == nullptr || giver == this) {
    throw UsageError(fmt::format("{}: the source is {}", what(),
                                 giver ? "on this controller too (a kernel copies within one controller)"
                                       : "on no controller (attach it to the one whose kernels write it)"));
  }
  std::uint64_t ticket = 0;
  {
    std::scoped_lock lock(giver->mutex_, mutex_);
    if (from->owner != giver) throw UsageError(what() + ": another thread moved the source meanwhile");
    if (giver->recording_open_.load(std::memory_order_relaxed)) giver->refuse_while_recording(what());
    check_copy_rows(*to, begin, end, *from, from_begin, what);
    // The giver's launches wrote the rows; this controller's may still read the rows they replace.
    giver->parts_.queue->wait(giver->parts_.queue->last_ticket());
    parts_.queue->wait(parts_.queue->last_ticket());
    const std::size_t row = to->row_bytes();
    const std::size_t bytes = static_cast<std::size_t>(end - begin) * row;
    // Read where the current data is: the giver's image when only it holds it, else host memory
    // (a shared-memory kind's image is host memory). Written into this controller's image while
    // it is in use (its host copy then falls behind), else into the host memory it copies in from.
    const bool from_device = !giver->shared_ && !from->host_valid;
    const bool to_device = !shared_ && to->device_valid;
    char* src = static_cast<char*>(from->host_valid ? from->host() : from->image);
    char* dst = static_cast<char*>(to->device_valid ? to->image : to->host());
    // Between separate memories that do not reach each other the rows stop in a buffer of
    // copy_across's own, never in the source's host memory: sub-tiles of one array overlap, and
    // the source's host rows may be the current data of another tile (a CPU group's, or one
    // copied in later), which the rows of this image would overwrite.
    ticket = copy_across(*giver, {dst + static_cast<std::size_t>(begin) * row, to_device},
                         {src + static_cast<std::size_t>(from_begin) * row, from_device}, bytes);
    if (to_device && bytes > 0) to->host_valid = false;
  }
  parts_.queue->wait(ticket);
  giver->raise_pending_error();
  raise_pending_error();
}

template <class What>
void ControllerCore::check_copy_rows(const TileState& to, index_t begin, index_t end, const TileState& from,
                                     index_t from_begin, const What& what) const {
  if (from.elem_size != to.elem_size || from.row_bytes() != to.row_bytes()) {
    throw UsageError(fmt::format("{}: rows differ ({} and {})", what(), to.shape_str(), from.shape_str()));
  }
  if (begin < 0 || end < begin || end > to.ext[0] || from_begin < 0 || from_begin + (end - begin) > from.ext[0]) {
    throw UsageError(fmt::format("{}: rows [{}, {}) from row {}: not within {} and {} rows", what(), begin, end,
                                 from_begin, to.ext[0], from.ext[0]));
  }
}

void ControllerCore::count_in(std::size_t bytes) {
  ++stats_.copies_in;
  stats_.bytes_in += bytes;
}

}  // namespace ctrl::detail
