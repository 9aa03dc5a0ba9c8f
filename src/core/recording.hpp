// A recorded sequence of launches (include/ctrl/graph.hpp), as the controller core keeps it: the
// bodies, the tiles with the roles the whole sequence gives them, and the execution model's plan.
// Guarded by the recording controller's lock.
#pragma once
#include "device.hpp"

#include <ctrl/roles.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ctrl::detail {

struct RecordedLaunch {
  std::unique_ptr<LaunchBody> body;
  Variant variant;
  Threads space;
  std::size_t first_use, n_uses;  // its tile arguments: GraphState::uses[first_use, first_use + n_uses)
};

// A tile of the sequence. The graph does not keep it alive: a tile freed since the recording is
// found expired at the next replay.
struct RecordedTile {
  std::weak_ptr<TileState> state;
  const TileState* raw;  // identity while recording
  std::string label;     // for messages once it is gone
  std::size_t first_launch;
  bool read_first = false;  // the first launch that uses it reads it: it must be valid on the device
  bool written = false;     // some launch writes it: the device copy is the valid one after a replay
};

struct GraphState {
  std::uint64_t controller_id = 0;
  std::string controller_name;
  std::vector<RecordedLaunch> launches;
  std::vector<RecordedTile> tiles;
  std::vector<std::uint32_t> uses;   // per tile argument, launch after launch: its index in tiles
  std::vector<Role> roles;           // per tile argument: its role
  std::vector<void*> ptrs;           // per tile argument: the image the last replay used
  std::vector<LaunchBody*> bound;    // the bodies with ctrl::ref values
  std::unique_ptr<ReplayPlan> plan;  // null: replayed launch by launch
  std::uint64_t replays = 0;         // queued so far, for messages
  std::uint64_t last_ticket = 0;     // the queue ticket of the last replay
};

// Where a launch run by a replay sits, for messages: "replay #3, launch 2 of 2".
struct ReplayPosition {
  std::uint64_t replay;
  std::size_t launch, of;
};

}  // namespace ctrl::detail
