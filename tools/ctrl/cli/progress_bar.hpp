// Progress of long commands on stderr: a one-line bar redrawn in place on a terminal, plain lines
// otherwise (logs, CI, pipes). Hand-written: no packaged C++ library draws progress bars.
#pragma once
#include <chrono>
#include <string>

namespace ctrl::tool {

class ProgressBar {
 public:
  enum class Mode { bar, plain, none };
  // "auto" (bar when stderr is a terminal, plain lines otherwise), "bar", "plain" or "none".
  static Mode parse_mode(const std::string& text);

  explicit ProgressBar(Mode mode);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  Mode mode() const { return mode_; }
  // A line of its own: printed in both modes (the bar is cleared first and redrawn after).
  void line(const std::string& text);
  // Bar mode: redraws [####----] with the percentage, the label and an estimate of the time left
  // (at most 10 times a second unless `force`). Plain and none modes: nothing.
  void update(double fraction, const std::string& label, bool force = false);
  // Clears the bar.
  void finish();

 private:
  void draw();
  void clear();

  Mode mode_;
  bool shown_ = false;
  double fraction_ = 0;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_draw_{};
};

// "1m05s", "12.3s", "850ms"
std::string format_duration(double seconds);

}  // namespace ctrl::tool
