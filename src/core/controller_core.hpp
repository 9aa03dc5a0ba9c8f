// The device-independent heart of a controller: the coherence record of its tiles, the decision
// of what to copy for each launch, and the queue. It knows devices only through DeviceParts.
#pragma once
#include "device.hpp"
#include "recording.hpp"

#include <ctrl/controller.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace ctrl::detail {

class ControllerCore {
 public:
  ControllerCore(DeviceSpec spec, DeviceParts parts, bool check_out);
  ~ControllerCore();

  void attach(const std::shared_ptr<TileState>& t);
  void detach(const std::vector<std::shared_ptr<TileState>>& tiles);
  void create_internal(const std::shared_ptr<TileState>& t);
  void destroy_internal(const std::shared_ptr<TileState>& t);
  // take.cpp: tiles attached or internal to other controllers, handed to this one.
  void take(const std::vector<std::shared_ptr<TileState>>& tiles);
  // take.cpp: rows of a tile on another controller copied into rows of one here (Controller::copy_rows).
  void copy_rows(const std::shared_ptr<TileState>& to, index_t begin, index_t end,
                 const std::shared_ptr<TileState>& from, index_t from_begin);
  void update_rows(const std::shared_ptr<TileState>& t, index_t begin, index_t end, bool to_host);
  // Settles the launch's copies and queues it. The body is moved to the heap only when the queue
  // runs tasks later (a queue thread); an inline queue (CUDA streams) runs it from here.
  void submit(LaunchBody& body, Variant variant, const Threads& space, const TileUse* uses, std::size_t n_uses);
  void wait();
  // host_task.cpp: a host task's copies home and its record, then the task queued (Controller::host_task).
  void submit_host_task(std::unique_ptr<HostTaskBody> body, const TileUse* uses, std::size_t n_uses);

  // event.cpp: Controller::record_event and wait_for.
  std::shared_ptr<EventState> record_event();
  void wait_for(const std::shared_ptr<EventState>& e);

  // Recorded launches (recording.cpp): while a recording is open, submit() records instead of
  // queuing, and the calls that would move data or wait are refused.
  void begin_recording();
  std::shared_ptr<GraphState> end_recording();
  void abort_recording() noexcept;
  void replay(const std::shared_ptr<GraphState>& g, std::uint64_t times);

  const DeviceSpec& spec() const { return spec_; }
  const std::string& name() const { return name_; }
  std::string description() const;
  bool shared() const { return shared_; }
  bool checks_out() const { return check_out_; }
  TransferStats transfers() const;
  void reset_transfers();

 private:
  struct Copy {
    void* device;
    void* host;
    std::size_t bytes;
  };
  // An Out tile of a launch in checking mode: its image, and what a report says about it (taken
  // at submission: the record may change before the launch runs).
  struct OutCheck {
    void* image;
    std::size_t bytes, elem_size, rank;
    index_t ext[4];
    std::string label;
  };
  void check_launch(const LaunchBody& body, Variant v, const Threads& space, const TileUse* uses,
                    std::size_t n_uses) const;
  std::size_t settle(const TileUse* uses, std::size_t n_uses, void** ptrs, Copy* copies);
  static std::vector<OutCheck> out_checks(const TileUse* uses, std::size_t n_uses);
  std::string find_unwritten(std::span<const OutCheck> checks);
  void run_launch(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs,
                  std::span<const Copy> copies, std::span<const OutCheck> checks, std::uint64_t number,
                  const ReplayPosition* in_replay = nullptr);
  void check_owned(const TileState& t, const char* what, const char* kernel) const;
  void run_host_task(HostTaskBody& body, void* const* ptrs, std::uint64_t number);
  void abandon_events() noexcept;  // event.cpp: at destruction, those the queue never reached
  void forget(const TileState& t);
  void raise_pending_error();
  [[noreturn]] void report_moved(const std::vector<std::string>& moved) const;
  void unregister_range(TileState& t);
  // attach and take: the tile's image here
  void* image_for(TileState& t, const std::string& what);
  // take.cpp
  void take_one(const std::shared_ptr<TileState>& tile, ControllerCore& giver);
  void move_data(TileState& t, ControllerCore& giver, void* image);
  // One end of a copy between two controllers: an address, and whether it lies in the
  // controller's own memory (an image of a separate-memory kind) rather than in host memory.
  struct Place {
    void* at;
    bool device;
  };
  std::uint64_t copy_across(ControllerCore& giver, Place to, Place from, std::size_t bytes);
  template <class What>  // take.cpp only
  void check_copy_rows(const TileState& to, index_t begin, index_t end, const TileState& from, index_t from_begin,
                       const What& what) const;
  void count_in(std::size_t bytes);
  // recording.cpp
  void refuse_while_recording(const std::string& what) const;
  void add_to_recording(LaunchBody& body, Variant v, const Threads& space, const TileUse* uses, std::size_t n_uses);
  std::vector<std::shared_ptr<TileState>> replay_tiles(const GraphState& g) const;
  bool bring_up_to_date(GraphState& g, const std::vector<std::shared_ptr<TileState>>& live);
  std::vector<Copy> settle_replay(const GraphState& g, const std::vector<std::shared_ptr<TileState>>& live);
  std::vector<std::vector<OutCheck>> replay_checks(const GraphState& g,
                                                   const std::vector<std::shared_ptr<TileState>>& live) const;
  struct ReplayRun {
    GraphState* graph;
    void* const* ptrs;  // per tile argument
    std::span<const Copy> copies;
    std::span<const std::vector<OutCheck>> checks;  // per launch, checking mode only
    std::uint64_t first_number, replay_number, times;
    bool changed;
  };
  void run_replay(const ReplayRun& r);
  void run_launch_by_launch(const ReplayRun& r);

  DeviceSpec spec_;
  std::string name_;
  DeviceParts parts_;
  bool shared_;
  bool check_out_;  // checking mode for Out parameters (ControllerOptions::check_out)
  std::uint64_t launches_ = 0;
  std::uint64_t host_tasks_ = 0;
  std::uint64_t events_recorded_ = 0;
  std::vector<std::weak_ptr<EventState>> events_;  // recorded here, not known to be reached
  std::uint64_t id_;                               // tells controllers apart (a graph names the one it replays on)
  std::unique_ptr<GraphState> recording_;          // open recording, or null
  std::atomic<bool> recording_open_{false};        // recording_ != null, read without the lock

  mutable std::mutex mutex_;  // the API may be used from several host threads
  std::vector<std::shared_ptr<TileState>> owned_;
  TransferStats stats_;
};

}  // namespace ctrl::detail
