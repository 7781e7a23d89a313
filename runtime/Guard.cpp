//===- Guard.cpp - restoring clocks on every exit path --------------------===//

#include "runtime/Device.h"

#include <atomic>
#include <csignal>
#include <mutex>
#include <unistd.h>

namespace energy {
namespace rt {

namespace {
constexpr int maxGuarded = 64;
std::atomic<Device *> guarded[maxGuarded];
/// The process that guards them. A child forked from it (a data-loader
/// worker, say) inherits the table and the signal handler, but the settings
/// are its parent's to restore: a SIGTERM to the worker must not undo the
/// parent's plan.
std::atomic<pid_t> owner{0};
std::once_flag installed;

void resetDevice(Device &d) {
  std::string err; // backends keep this path to plain system calls
  d.resetSmClock(err);
  d.resetPowerLimit(err);
}

extern "C" void restoreAndReraise(int sig) {
  restoreGuardedDevices();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install() {
  struct sigaction sa = {};
  sa.sa_handler = restoreAndReraise;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}
} // namespace

void restoreGuardedDevices() {
  if (getpid() != owner.load()) // async-signal-safe
    return;
  for (auto &slot : guarded)
    if (Device *d = slot.exchange(nullptr))
      resetDevice(*d);
}

ClockGuard::ClockGuard(Device &d) : dev(d), pid(getpid()) {
  std::call_once(installed, install);
  owner.store(pid);
  for (auto &slot : guarded) {
    Device *expected = nullptr;
    if (slot.compare_exchange_strong(expected, &d))
      break;
  }
}

ClockGuard::~ClockGuard() {
  if (getpid() != pid)
    return; // a forked child's copy: the parent restores its own settings
  for (auto &slot : guarded) {
    Device *expected = &dev;
    if (slot.compare_exchange_strong(expected, nullptr))
      break;
  }
  resetDevice(dev);
}

} // namespace rt
} // namespace energy
