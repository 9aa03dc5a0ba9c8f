#include "progress_bar.hpp"

#include <ctrl/errors.hpp>

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ctrl::tool {

namespace {

int terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

}  // namespace

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 1) return fmt::format("{:.0f}ms", s * 1000);
  if (s < 60) return fmt::format("{:.1f}s", s);
  const auto total = static_cast<long>(std::lround(s));
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

ProgressBar::Mode ProgressBar::parse_mode(const std::string& text) {
  if (text == "bar") return Mode::bar;
  if (text == "plain") return Mode::plain;
  if (text == "none") return Mode::none;
  if (text == "auto" || text.empty()) return ::isatty(STDERR_FILENO) ? Mode::bar : Mode::plain;
  throw UsageError(fmt::format("--progress '{}': auto, bar, plain or none", text));
}

ProgressBar::ProgressBar(Mode mode) : mode_(mode), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::line(const std::string& text) {
  if (mode_ == Mode::none) return;
  const bool was = shown_;
  clear();
  std::fprintf(stderr, "%s\n", text.c_str());
  if (was) draw();
  std::fflush(stderr);
}

void ProgressBar::update(double fraction, const std::string& label, bool force) {
  if (mode_ != Mode::bar) return;
  fraction_ = std::clamp(fraction, 0.0, 1.0);
  label_ = label;
  const auto now = std::chrono::steady_clock::now();
  if (!force && shown_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  draw();
}

void ProgressBar::draw() {
  if (mode_ != Mode::bar) return;
  last_draw_ = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(last_draw_ - start_).count();
  const std::string eta =
      fraction_ > 0.02 ? "  ~" + format_duration(elapsed / fraction_ - elapsed) + " left" : std::string();
  const int width = terminal_width();
  constexpr int bar = 24;
  const int filled = static_cast<int>(std::lround(fraction_ * bar));
  std::string text = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                     std::string(static_cast<std::size_t>(bar - filled), '-') + "] " +
                     fmt::format("{:3.0f}%  ", fraction_ * 100) + label_ + eta;
  if (static_cast<int>(text.size()) > width - 1) text.resize(static_cast<std::size_t>(width - 1));
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressBar::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

void ProgressBar::finish() { clear(); }

}  // namespace ctrl::tool
