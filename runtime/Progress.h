//===- Progress.h - progress of long work on a terminal ---------*- C++ -*-===//
//
// One line on standard error, rewritten in place ("\r"), at most every
// 0.25 s: what is running, how far (a fraction of the current phase and a
// count), and an estimate of the phase's remaining time. Shown only when
// standard error is a terminal and the tool was not asked to be quiet
// (`--quiet`, or ENERGY_QUIET=1 in the environment); never on standard
// output. Header-only, no dependencies: the tools and the passes share it.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_PROGRESS_H
#define RUNTIME_PROGRESS_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace energy {
namespace progress {

/// The process-wide switch: `--quiet` sets it; ENERGY_QUIET=1 too.
inline bool &quietFlag() {
  static bool quiet = [] {
    const char *q = std::getenv("ENERGY_QUIET");
    return q && std::strcmp(q, "0") != 0 && *q;
  }();
  return quiet;
}
inline void setQuiet(bool q) { quietFlag() = q; }
/// Whether progress is shown at all (terminal, not quiet).
inline bool enabled() { return !quietFlag() && isatty(STDERR_FILENO); }

class Line {
public:
  explicit Line(std::string title) : what(std::move(title)), on(enabled()) {
    phaseStart = last = std::chrono::steady_clock::now();
  }
  ~Line() { done(); }
  Line(const Line &) = delete;
  Line &operator=(const Line &) = delete;

  /// A new phase, shown at once: its fraction and estimate start over.
  void phase(const std::string &name, const std::string &detail = "") {
    current = name;
    phaseStart = std::chrono::steady_clock::now();
    update(-1, detail, /*force=*/true);
  }
  /// `fraction` of the current phase is done (negative: unknown); `detail`
  /// e.g. "118 points".
  void update(double fraction, const std::string &detail, bool force = false) {
    if (!on)
      return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last < std::chrono::milliseconds(250))
      return;
    last = now;
    double elapsed = std::chrono::duration<double>(now - phaseStart).count();
    char eta[48] = "";
    if (fraction > 0.02 && fraction < 1)
      std::snprintf(eta, sizeof eta, ", ~%.0f s left",
                    elapsed * (1 - fraction) / fraction);
    char pct[16] = "";
    if (fraction >= 0)
      std::snprintf(pct, sizeof pct, " %3.0f%%", 100 * fraction);
    std::string text = what + ": " + current + pct +
                       (detail.empty() ? "" : ", " + detail) + eta;
    if (text.size() < width)
      text += std::string(width - text.size(), ' ');
    width = text.size();
    std::fprintf(stderr, "\r%s", text.c_str());
    std::fflush(stderr);
    shown = 1;
  }
  /// Clears the line (nothing is left behind on the terminal).
  void done() {
    if (!on || shown < 0)
      return;
    std::fprintf(stderr, "\r%s\r", std::string(width, ' ').c_str());
    std::fflush(stderr);
    shown = -1;
  }

private:
  std::string what, current;
  bool on;
  int shown = -1;
  size_t width = 0;
  std::chrono::steady_clock::time_point phaseStart, last;
};

} // namespace progress
} // namespace energy

#endif // RUNTIME_PROGRESS_H
