//===- Guard.cpp - restoring clocks on every exit path --------------------===//

#include "runtime/Device.h"
#include "runtime/RestoreRecord.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace energy {
namespace rt {

namespace {
constexpr int maxGuarded = 64;
std::atomic<Device *> guarded[maxGuarded];
/// Each slot's restore record (RestoreRecord.h), preallocated so that the
/// signal path only calls unlink(2); empty: none.
char recordPath[maxGuarded][512];
/// Each slot's device was changed since a handled signal last reset it.
std::atomic<bool> changedSince[maxGuarded];
/// What each slot's record says was changed (bit 0: clocks, bit 1: power
/// limit): a change of the other kind writes the record again.
std::atomic<int> recorded[maxGuarded];
/// The process that guards them. A child forked from it (a data-loader
/// worker, say) inherits the table and the signal handler, but the settings
/// are its parent's to restore: a SIGTERM to the worker must not undo the
/// parent's plan.
std::atomic<pid_t> owner{0};
std::mutex installing;

bool resetDevice(Device &d) {
  // Empty, and left empty by the backends while a signal handler restores
  // (inSignalRestore): no allocation on that path.
  std::string err;
  bool clock = !d.clockChanged || d.resetSmClock(err);
  bool power = !d.powerLimitChanged || d.resetPowerLimit(err);
  return clock && power;
}

/// After a successful reset the record goes (async-signal-safe); after a
/// failed one it stays for the next er_init or `energy-prof restore`.
void dropRecord(int slot, bool restored) {
  if (restored && recordPath[slot][0])
    unlink(recordPath[slot]);
  recordPath[slot][0] = 0;
}

/// The signals whose default action ends the process: on each, the
/// guarded settings are restored first.
constexpr int fatalSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGABRT,
                                SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGPIPE,
                                SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};
constexpr int maxSignal = 65;
/// What each signal did before we took it over (the application's handler,
/// or the default action), so that it still happens after the restore.
struct sigaction previous[maxSignal];

volatile sig_atomic_t restoringFromSignal = 0;

/// takeChainedSignal's record (lock-free: set in the handler).
std::atomic<int> chainedSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

/// How many times a signal handler reset the guarded devices
/// (signalResetCount).
std::atomic<unsigned long long> signalResets{0};
static_assert(std::atomic<unsigned long long>::is_always_lock_free);

/// Set while a handler resets the devices: a second signal meanwhile (on
/// this thread, its handler nested in ours, or on another) does not reset
/// them again from the middle of a driver call.
std::atomic<int> resetting{0};
static_assert(std::atomic<int>::is_always_lock_free);

/// Resets every guarded device. `release`: the process is about to end (a
/// default action follows), so the devices leave the table and their
/// records go once reset. Otherwise the program's own handler runs next and
/// the program may go on: the devices stay guarded with their records (the
/// process still holds them: a change the program makes next, from any
/// thread, stays recorded), and the guard's end, or a later fatal signal,
/// restores them again and drops the records.
void resetGuarded(bool release) {
  if (getpid() != owner.load()) // async-signal-safe
    return;
  if (resetting.exchange(1))
    return;
  // Signal handlers call this (ours and run-plan's): backends report a
  // failed reset with write(2), not strings.
  restoringFromSignal = 1;
  bool any = false;
  for (int i = 0; i < maxGuarded; ++i) {
    Device *d = release ? guarded[i].exchange(nullptr) : guarded[i].load();
    // Kept, a device the program has not changed since is left as it is
    // (nothing to reset; its runs keep their clock).
    if (!d || (!changedSince[i].exchange(false) && !release))
      continue;
    any = true;
    bool restored = resetDevice(*d);
    if (release)
      dropRecord(i, restored);
    else if (!restored)
      changedSince[i].store(true); // the next signal tries again
  }
  if (any)
    signalResets.fetch_add(1);
  restoringFromSignal = 0;
  resetting.store(0);
}

extern "C" void restoreAndChain(int sig, siginfo_t *info, void *ctx) {
  const struct sigaction &old = previous[sig];
  bool handled = (old.sa_flags & SA_SIGINFO)
                     ? old.sa_sigaction != nullptr
                     : old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN &&
                           old.sa_handler;
  resetGuarded(/*release=*/!handled);
  if (handled) {
    // Only the signals that ask a process to stop (a timer's SIGALRM or a
    // debug dump's SIGUSR1, handled, are the program's business).
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
      chainedSignal.store(sig);
    if (old.sa_flags & SA_SIGINFO)
      old.sa_sigaction(sig, info, ctx); // the application's handler
    else
      old.sa_handler(sig);
    return;
  }
  // The default action, with the exit status the program would have had.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// Takes over the fatal signals, except where the application ignores one
/// (a SIGINT set to ignored stays ignored); its own handlers run after the
/// restore. Run at every new guard, so that a handler the application
/// installed since the last one is chained too.
void install() {
  for (int sig : fatalSignals) {
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN)
      continue;
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == restoreAndChain)
      continue; // ours already
    previous[sig] = old;
    struct sigaction sa = {};
    sa.sa_sigaction = restoreAndChain;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}
} // namespace

bool inSignalRestore() { return restoringFromSignal != 0; }

int takeChainedSignal() { return chainedSignal.exchange(0); }

void restoreGuardedDevices() { resetGuarded(/*release=*/true); }

unsigned long long signalResetCount() { return signalResets.load(); }

ClockGuard::ClockGuard(Device &d) : dev(d), pid(getpid()) {
  {
    std::lock_guard<std::mutex> lock(installing);
    install();
  }
  owner.store(pid);
  for (int i = 0; i < maxGuarded; ++i) {
    Device *expected = nullptr;
    if (!guarded[i].compare_exchange_strong(expected, &d))
      continue;
    // At the first change that succeeds: a record of the device for
    // whoever finds this process gone (SIGKILL, power loss). A device that
    // cannot be reopened by name gets none; one never changed, none either.
    recordPath[i][0] = 0;
    slot = i;
    changedSince[i].store(false);
    recorded[i].store(0);
    d.onChanged = [i](Device &changed) {
      changedSince[i].store(true);
      int what = int(changed.clockChanged) | int(changed.powerLimitChanged)
                                                 << 1;
      // Written again where the process changed something more, or where
      // the file went (a /tmp cleaner, another tool): a SIGKILL now must
      // still find it.
      if (recordPath[i][0] && recorded[i].load() == what &&
          access(recordPath[i], F_OK) == 0)
        return;
      std::string path = recordPath[i], err;
      if (writeRestoreRecord(changed, path, err) &&
          path.size() < sizeof recordPath[i]) {
        std::memcpy(recordPath[i], path.c_str(), path.size() + 1);
        recorded[i].store(what);
        return;
      }
      // Said once per process: the change stands, but only the exit paths
      // this process runs itself will restore it.
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        std::fprintf(stderr,
                     "energy_rt: warning: %s: no restore record written "
                     "(%s): killed with SIGKILL, this process would leave its "
                     "clocks changed where neither er_init nor `energy-prof "
                     "restore` finds them%s\n",
                     changed.identity().c_str(),
                     err.empty() ? "the path is too long" : err.c_str(),
                     changed.simulated()
                         ? ""
                         : " (reset them by hand: nvidia-smi -rgc and -pl)");
    };
    break;
  }
}

void ClockGuard::atDefaults() {
  if (slot >= 0)
    changedSince[slot].store(false);
}

ClockGuard::~ClockGuard() {
  if (getpid() != pid)
    return; // a forked child's copy: the parent restores its own settings
  int mine = -1;
  for (int i = 0; i < maxGuarded; ++i) {
    Device *expected = &dev;
    if (guarded[i].compare_exchange_strong(expected, nullptr)) {
      mine = i;
      break;
    }
  }
  dev.onChanged = nullptr;
  bool restored = resetDevice(dev);
  if (mine >= 0)
    dropRecord(mine, restored);
  if (restored) { // a later guard records, and restores, its own changes
    dev.clockChanged = dev.powerLimitChanged = false;
    dev.priorPowerLimitW = 0;
  } else { // each setting whose reset succeeded (tried again) is forgotten
    std::string err;
    if (dev.clockChanged && dev.resetSmClock(err))
      dev.clockChanged = false;
    if (dev.powerLimitChanged && dev.resetPowerLimit(err)) {
      dev.powerLimitChanged = false;
      dev.priorPowerLimitW = 0;
    }
  }
  dev.claim.release(); // the device is free for another process now
}

} // namespace rt
} // namespace energy
