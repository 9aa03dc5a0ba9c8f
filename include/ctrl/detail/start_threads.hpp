// Starting threads so that one the system refuses (the user's limit of processes and threads,
// ulimit -u, is reached) is one ctrl error rather than an abort or a hang: the threads already
// started are stopped and joined first. Every thread ctrl starts is started through here.
#pragma once
#include <ctrl/errors.hpp>

#include <cstddef>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace ctrl::detail {

// The error of a thread the system would not start: `what` names the thread ("the queue thread
// of a controller", "a driver of the team's processors (2 of 3)"), `e` is what std::thread threw.
inline DeviceError cannot_start_thread(const std::string& what, const std::system_error& e) {
  return DeviceError("cannot start a thread: " + what + ": " + e.what() +
                     " (the limit of processes/threads of this user may be reached: ulimit -u)");
}

// One thread, Thread(args...) (std::thread or std::jthread); a refusal is cannot_start_thread.
template <class Thread, class... Args>
Thread start_thread(const std::string& what, Args&&... args) {
  try {
    return Thread(std::forward<Args>(args)...);
  } catch (const std::system_error& e) {
    throw cannot_start_thread(what, e);
  }
}

// Appends `count` threads to `threads`, thread k running what start(k) returns (k = 0 .. count - 1).
// Where one cannot be started, stop() makes those already started return (they may be waiting
// for the others, or for work: it must not wait itself), they are joined and removed, and the
// failure is thrown: cannot_start_thread for a thread the system refused (`what` names the
// threads, their number is added), anything else (std::bad_alloc) as it was thrown.
template <class Thread, class Start, class Stop>
void start_threads(std::vector<Thread>& threads, std::size_t count, const Start& start, const Stop& stop,
                   const std::string& what) {
  const std::size_t before = threads.size();
  try {
    threads.reserve(before + count);
    for (std::size_t k = 0; k < count; ++k) threads.emplace_back(start(k));
  } catch (...) {
    const std::size_t started = threads.size() - before;
    stop();
    for (std::size_t k = before; k < threads.size(); ++k)
      if (threads[k].joinable()) threads[k].join();
    threads.erase(threads.begin() + static_cast<std::ptrdiff_t>(before), threads.end());
    try {
      throw;
    } catch (const std::system_error& e) {
      throw cannot_start_thread(what + " (" + std::to_string(started + 1) + " of " + std::to_string(count) + ")", e);
    }
  }
}

// The same for threads that wait for nothing but their own work: joining them is enough.
template <class Thread, class Start>
void start_threads(std::vector<Thread>& threads, std::size_t count, const Start& start, const std::string& what) {
  const auto nothing_to_stop = [] {};
  start_threads(threads, count, start, nothing_to_stop, what);
}

}  // namespace ctrl::detail
