// Controller::take: a tile attached or internal to one controller handed to another, in one call
// and without the host where it need not be involved. The data that only the giver's memory holds
// moves at once: straight into the taker's memory where the taker's space reaches the giver's
// (MemorySpace::reaches / copy_from: GPU peer copies, or a copy within one GPU), otherwise out to
// the host's memory and, as after an attach, in again at the first launch that reads it. Data
// the host already holds moves nothing now: it is copied in at that first launch, as ever.
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
  const std::size_t bytes = t.bytes();
  const void* from = t.image;
  MemorySpace* mine = parts_.memory.get();
  MemorySpace* theirs = giver.parts_.memory.get();
  const bool host_image = shared_;  // this controller's image is host memory (the tile's or internal)
  if (giver.shared_) {
    // The giver's image is host memory (an internal tile of a shared-memory kind): copied in here
    // as from the host.
    if (!host_image) count_in(bytes);
    parts_.queue->wait(parts_.queue->submit([mine, host_image, image, from, bytes] {
      if (host_image)
        std::memcpy(image, from, bytes);
      else
        mine->copy_in(image, from, bytes);
    }));
  } else if (host_image || !mine->reaches(*theirs)) {
    // Out through host memory: this controller's own, else the tile's (an attached tile, copied in
    // here at its first read), else, for an internal tile, a buffer copied in here at once.
    std::unique_ptr<unsigned char[]> staging;
    void* host = host_image   ? image
                 : t.internal ? (staging = std::make_unique_for_overwrite<unsigned char[]>(bytes)).get()
                              : t.host();
    ++giver.stats_.copies_out;
    giver.stats_.bytes_out += bytes;
    giver.parts_.queue->wait(
        giver.parts_.queue->submit([theirs, host, from, bytes] { theirs->copy_out(host, from, bytes); }));
    if (!t.internal) t.host_valid = true;
    if (!host_image && !t.internal) {
      t.device_valid = false;
      return;
    }
    if (!host_image) {
      count_in(bytes);
      parts_.queue->wait(parts_.queue->submit([mine, image, host, bytes] { mine->copy_in(image, host, bytes); }));
    }
  } else {
    ++stats_.copies_peer;
    stats_.bytes_peer += bytes;
    parts_.queue->wait(
        parts_.queue->submit([mine, theirs, image, from, bytes] { mine->copy_from(image, *theirs, from, bytes); }));
  }
  t.device_valid = true;
}

void ControllerCore::count_in(std::size_t bytes) {
  ++stats_.copies_in;
  stats_.bytes_in += bytes;
}

}  // namespace ctrl::detail
