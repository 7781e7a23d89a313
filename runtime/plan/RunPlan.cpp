//===- RunPlan.cpp - applying a plan around a command, restoring after ----===//
//
// Order of work: check every clock and cap against the devices (nothing is
// touched on an error), then -- only with allowChanges -- take a ClockGuard
// per device, set the caps and the first clocks, start the command, follow
// the timeline (Timeline mode), wait, and let the guards restore the
// defaults. While the command runs, the first SIGINT/SIGTERM/SIGHUP is
// forwarded to it (its exit then takes the normal restore path); a second
// one restores the devices at once and re-raises.
//
//===----------------------------------------------------------------------===//

#include "runtime/RestoreRecord.h"
#include "runtime/db/SignatureDb.h"
#include "runtime/plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <memory>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace energy {
namespace rt {

namespace {
std::atomic<pid_t> runningChild{0};
std::atomic<int> signalsSeen{0};

extern "C" void forwardOrRestore(int sig) {
  pid_t child = runningChild.load();
  if (child > 0 && signalsSeen.fetch_add(1) == 0) {
    ::kill(child, sig);
    return;
  }
  restoreGuardedDevices();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

constexpr int handledSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// Installs forwardOrRestore for the command's lifetime; the previous
/// handlers come back on destruction.
class SignalForwarding {
public:
  SignalForwarding() {
    struct sigaction sa = {};
    sa.sa_handler = forwardOrRestore;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(handledSignals); ++i)
      sigaction(handledSignals[i], &sa, &previous[i]);
  }
  ~SignalForwarding() {
    for (size_t i = 0; i < std::size(handledSignals); ++i)
      sigaction(handledSignals[i], &previous[i], nullptr);
  }

private:
  struct sigaction previous[std::size(handledSignals)];
};

std::string clockText(std::optional<int> mhz) {
  return mhz ? std::to_string(*mhz) + " MHz" : std::string("default");
}

std::string watts(double w) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g W", w);
  return buf;
}

/// One clock change of the timeline: `offset` s into each iteration.
struct Event {
  double offset;
  size_t device;
  std::optional<int> mhz;
};

bool checkDevices(const Plan &plan, const std::vector<Device *> &devices,
                  std::string &err) {
  if (devices.size() != plan.devices.size()) {
    err = "the plan has " + std::to_string(plan.devices.size()) +
          " devices but " + std::to_string(devices.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    const PlanDevice &pd = plan.devices[i];
    std::vector<int> supported = devices[i]->supportedSmClocks();
    for (const PlanRun &run : pd.runs)
      if (run.smMhz &&
          !std::count(supported.begin(), supported.end(), *run.smMhz)) {
        err = plan.at(run.path, "sm_mhz") + "device '" + pd.name + "' (" +
              devices[i]->identity() + "): the plan's " +
              std::to_string(*run.smMhz) + " MHz (from task '" + run.first +
              "') is not a supported SM clock; it supports " +
              describeClocks(supported);
        return false;
      }
    if (pd.powerCapW) {
      PowerLimits lim;
      if (!devices[i]->powerLimits(lim, err)) {
        err = "device '" + pd.name + "': " + err;
        return false;
      }
      if (*pd.powerCapW < lim.minW || *pd.powerCapW > lim.maxW) {
        err = plan.at(pd.path, "power_cap_W") + "device '" + pd.name +
              "': power cap " + watts(*pd.powerCapW) + " outside [" +
              watts(lim.minW) + ", " + watts(lim.maxW) + "]";
        return false;
      }
    }
  }
  return true;
}

/// Sets a clock (none: back to the default) and tracks what is commanded.
bool applyClock(Device &dev, std::optional<int> mhz, std::string &err) {
  return mhz ? dev.setSmClock(*mhz, err) : dev.resetSmClock(err);
}

/// Lock mode holds one clock per device: refuses a plan that switches.
bool checkLockable(const Plan &plan, const RunPlanOptions &opts,
                   std::string &err) {
  if (opts.mode.value_or(RunPlanOptions::Mode::Lock) !=
      RunPlanOptions::Mode::Lock)
    return true;
  for (const PlanDevice &pd : plan.devices) {
    size_t distinct = 0;
    for (size_t k = 0; k < pd.runs.size(); ++k) {
      bool seen = false;
      for (size_t j = 0; j < k; ++j)
        seen |= pd.runs[j].smMhz == pd.runs[k].smMhz;
      distinct += !seen;
    }
    if (distinct > 1) {
      err = "device '" + pd.name + "' switches between " +
            std::to_string(distinct) + " clocks (" +
            std::to_string(pd.runs.size()) +
            " runs per iteration); a single lock cannot apply it: use "
            "--mode=timeline (open-loop switches at the planned times)";
      return false;
    }
  }
  return true;
}

/// Every device's clock runs as one timeline, in time order.
std::vector<Event> timelineEvents(const Plan &plan) {
  std::vector<Event> events;
  for (size_t i = 0; i < plan.devices.size(); ++i)
    for (const PlanRun &run : plan.devices[i].runs)
      events.push_back({run.start, i, run.smMhz});
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return a.offset < b.offset || (a.offset == b.offset && a.device < b.device);
  });
  return events;
}

/// A name as the plan file holds it, a control character escaped (\0A): one
/// line per message whatever a hand-edited name holds.
std::string shown(llvm::StringRef name) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::printEscapedString(name, os);
  return out;
}

/// What the run will do, per device (and each switch, in a timeline's dry
/// run).
void logPlan(const Plan &plan, const std::vector<Device *> &devices,
             RunPlanOptions::Mode mode, bool dryRun, llvm::raw_ostream &log) {
  using Mode = RunPlanOptions::Mode;
  log << "run-plan: schedule '" << shown(plan.schedule) << "', "
      << (mode == Mode::Lock ? "lock" : "timeline") << " mode, plan "
      << llvm::format("%.6g s / %.6g J per iteration", plan.T, plan.E) << "\n";
  for (size_t i = 0; i < devices.size(); ++i) {
    const PlanDevice &pd = plan.devices[i];
    log << "  " << shown(pd.name) << " -> " << devices[i]->identity() << ": ";
    if (mode == Mode::Lock)
      log << "SM clock "
          << clockText(pd.runs.empty() ? std::nullopt : pd.runs[0].smMhz);
    else
      log << pd.runs.size() << " clock run" << (pd.runs.size() == 1 ? "" : "s")
          << " per iteration";
    if (pd.powerCapW)
      log << ", power cap " << watts(*pd.powerCapW);
    log << "\n";
    if (mode == Mode::Timeline && dryRun)
      for (const PlanRun &run : pd.runs)
        log << llvm::formatv("    at {0,10:F6} s  {1,-9} from {2} ({3} "
                             "task{4})\n",
                             run.start, clockText(run.smMhz), shown(run.first),
                             run.tasks, run.tasks == 1 ? "" : "s");
  }
}

/// Each device's power cap and first clock (`commanded`: what each device
/// was last set to).
bool applyFirst(const Plan &plan, const std::vector<Device *> &devices,
                std::vector<std::optional<int>> &commanded, std::string &err) {
  commanded.assign(devices.size(), std::nullopt);
  for (size_t i = 0; i < devices.size(); ++i) {
    const PlanDevice &pd = plan.devices[i];
    if (pd.powerCapW && !devices[i]->setPowerLimit(*pd.powerCapW, err)) {
      err = "device '" + pd.name + "': " + err;
      return false;
    }
    if (!pd.runs.empty()) {
      commanded[i] = pd.runs[0].smMhz;
      if (!applyClock(*devices[i], commanded[i], err)) {
        err = "device '" + pd.name + "': " + err;
        return false;
      }
    }
  }
  return true;
}

/// Starts the command with an empty signal mask. A signal between the
/// start and knowing the child's pid would find no child to forward to:
/// they are blocked over the fork, the pid recorded, then pending ones let
/// through. The command gets SIGTERM if run-plan dies first (SIGKILL, the
/// OOM killer: PR_SET_PDEATHSIG), so it never runs on without the guard
/// that restores its devices -- whose settings another process would then
/// restore under it. exec's failure comes back through a close-on-exec
/// pipe.
bool spawnCommand(const std::vector<std::string> &command, pid_t &child,
                  std::string &err) {
  std::vector<char *> argv;
  for (const std::string &a : command)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    err = std::string("cannot run '") + command[0] +
          "': pipe: " + std::strerror(errno);
    return false;
  }
  sigset_t handled, previousMask;
  sigemptyset(&handled);
  for (int sig : handledSignals)
    sigaddset(&handled, sig);
  ::sigprocmask(SIG_BLOCK, &handled, &previousMask);
  pid_t parent = ::getpid();
  child = ::fork();
  if (child == 0) {
    ::close(report[0]);
    // The handlers run-plan installed are its own; the command starts
    // with the default dispositions and nothing blocked.
    for (int sig : handledSignals)
      ::signal(sig, SIG_DFL);
    sigset_t empty;
    sigemptyset(&empty);
    ::sigprocmask(SIG_SETMASK, &empty, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) // run-plan died before the line above
      ::_exit(127);
    ::execvp(argv[0], argv.data());
    int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  int forkErrno = errno;
  ::close(report[1]);
  if (child > 0)
    runningChild = child;
  ::sigprocmask(SIG_SETMASK, &previousMask, nullptr);
  if (child < 0) {
    ::close(report[0]);
    err = "cannot run '" + command[0] + "': fork: " + std::strerror(forkErrno);
    return false;
  }
  int execErrno = 0;
  ssize_t got;
  do
    got = ::read(report[0], &execErrno, sizeof execErrno);
  while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got == ssize_t(sizeof execErrno)) {
    int status;
    ::waitpid(child, &status, 0);
    runningChild = 0;
    err = "cannot run '" + command[0] + "': " + std::strerror(execErrno);
    return false;
  }
  return true;
}

/// What following the timeline did.
struct Followed {
  int status = 0;        ///< the command's wait status
  size_t applied = 0;    ///< clock switches made
  double worstLate = 0;  ///< s
  std::string switchErr; ///< the first failed switch
};

/// Waits for the command; in Timeline mode switches each device's clock at
/// the planned offsets of every iteration meanwhile.
Followed followTimeline(const Plan &plan, const std::vector<Device *> &devices,
                        const RunPlanOptions &opts, RunPlanOptions::Mode mode,
                        const std::vector<Event> &events,
                        std::vector<std::optional<int>> &commanded, pid_t child,
                        const std::function<double()> &elapsed,
                        std::string &err) {
  Followed f;
  size_t next = 0;
  unsigned iteration = 0;
  for (;;) {
    pid_t r = ::waitpid(child, &f.status,
                        mode == RunPlanOptions::Mode::Timeline ? WNOHANG : 0);
    if (r == child)
      break;
    if (r < 0 && errno != EINTR) {
      err = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (mode != RunPlanOptions::Mode::Timeline || events.empty())
      continue;
    if (opts.iterations && iteration >= opts.iterations) {
      // Done switching: keep waiting for the command only.
      if (::waitpid(child, &f.status, 0) == child)
        break;
      continue;
    }
    double due = opts.startDelay + iteration * plan.T + events[next].offset;
    double now = elapsed();
    if (now < due) {
      std::this_thread::sleep_for(
          std::chrono::duration<double>(std::min(due - now, 0.005)));
      continue;
    }
    const Event &e = events[next];
    if (commanded[e.device] != e.mhz) {
      std::string why;
      if (!applyClock(*devices[e.device], e.mhz, why) && f.switchErr.empty())
        f.switchErr = plan.devices[e.device].name + ": " + why;
      commanded[e.device] = e.mhz;
      ++f.applied;
      f.worstLate = std::max(f.worstLate, now - due);
    }
    if (++next == events.size()) {
      next = 0;
      ++iteration;
    }
  }
  return f;
}

/// The command's exit, the switches made, and each GPU's measured energy.
void logOutcome(const Plan &plan, const std::vector<Device *> &devices,
                const RunPlanOptions &opts, RunPlanOptions::Mode mode,
                const Followed &f, int exitCode, double wall,
                const std::vector<uint64_t> &counterBefore,
                llvm::raw_ostream &log) {
  log << llvm::formatv("run-plan: command exited with {0} after {1:F3} s",
                       exitCode, wall);
  if (mode == RunPlanOptions::Mode::Timeline) {
    double begun = wall < opts.startDelay
                       ? 0
                       : std::floor((wall - opts.startDelay) / plan.T) + 1;
    if (opts.iterations)
      begun = std::min(begun, double(opts.iterations));
    log << llvm::formatv("; {0} clock switches in {1} iteration(s) begun, "
                         "worst lateness {2:F3} ms",
                         f.applied, uint64_t(begun), f.worstLate * 1e3);
  }
  log << "\n";
  if (!f.switchErr.empty())
    log << "run-plan: warning: a clock switch failed: " << f.switchErr << "\n";
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i]->simulated())
      continue; // virtual time: nothing was measured while the command ran
    double joules =
        (devices[i]->energyCounterMilliJoules() - counterBefore[i]) / 1e3;
    log << llvm::formatv("  {0}: {1:F1} J measured, {2:F1} W average\n",
                         shown(plan.devices[i].name), joules,
                         wall > 0 ? joules / wall : 0.0);
  }
}
} // namespace

int runPlan(const Plan &plan, const std::vector<Device *> &devices,
            const RunPlanOptions &opts, llvm::raw_ostream &log,
            std::string &err) {
  if (!checkDevices(plan, devices, err))
    return -1;
  if (opts.command.empty() && !opts.dryRun) {
    err = "no command to run (run-plan plan.json [options] -- CMD ARGS...)";
    return -1;
  }
  if (!checkLockable(plan, opts, err))
    return -1;
  RunPlanOptions::Mode mode = opts.mode.value_or(RunPlanOptions::Mode::Lock);
  std::vector<Event> events = timelineEvents(plan);
  // Open-loop switches closer than a clock change takes (an NVML call is
  // milliseconds: 2.25 ms measured on an H200) cannot be followed: a plan
  // of T_s = 1 us made millions of switches a second. Refused, naming the
  // shortest interval.
  if (mode == RunPlanOptions::Mode::Timeline) {
    const double kMinSwitchS = 0.01;
    // The shortest interval and the run it ends at (device, first task).
    double shortest = std::numeric_limits<double>::infinity();
    const PlanDevice *where = nullptr;
    const PlanRun *at = nullptr;
    for (const PlanDevice &d : plan.devices) {
      const std::vector<PlanRun> &runs = d.runs;
      for (size_t k = 0; k < runs.size() && runs.size() > 1; ++k) {
        // Run k starts a switch after run k - 1's; run 0 after the last
        // one's, wrapped into the next iteration.
        double gap = k ? runs[k].start - runs[k - 1].start
                       : plan.T - runs.back().start + runs.front().start;
        if (gap < shortest) {
          shortest = gap;
          where = &d;
          at = &runs[k];
        }
      }
    }
    if (shortest < kMinSwitchS) {
      char num[32];
      std::snprintf(num, sizeof num, "%g", shortest);
      std::string buf =
          llvm::formatv("the plan switches {0}'s clock {1} s after its last "
                        "switch (at task '{2}'); timeline mode follows "
                        "switches at least {3} s apart (a clock change takes "
                        "milliseconds): plan with a longer quantum, or "
                        "follow it inside the job (er_plan_load)",
                        where->name, num, at->first, kMinSwitchS)
              .str();
      // A dry run shows the plan anyway (it changes nothing), saying so.
      if (!opts.dryRun) {
        err = buf;
        return -1;
      }
      log << "run-plan: warning: " << buf << "\n";
    }
  }
  logPlan(plan, devices, mode, opts.dryRun, log);
  // A plan made for one kind of GPU and run on another: its clocks may
  // exist there (checked above) but its times and energies are the other
  // GPU's. Said, not refused (a renamed kind, a simulated stand-in). GPU
  // models compared: "H100-SXM5" is the "NVIDIA H100 80GB HBM3" NVML names.
  for (size_t i = 0; i < devices.size(); ++i) {
    const PlanDevice &pd = plan.devices[i];
    std::string a = gpuModelOf(devices[i]->identity()), b = gpuModelOf(pd.kind);
    if (!a.empty() && !b.empty() && a != b)
      log << "run-plan: warning: device '" << shown(pd.name)
          << "' was planned for " << shown(pd.kind) << " but runs on " << devices[i]->identity()
          << ": the plan's times and energies are the other GPU's\n";
  }
  if (opts.dryRun) {
    log << "run-plan: dry run, nothing changed\n";
    return 0;
  }
  if (!opts.allowChanges) {
    err = "run-plan changes SM clocks and power limits; pass "
          "--allow-clock-changes to apply the plan (the defaults are "
          "restored on exit) or --dry-run to print what it would do";
    return -1;
  }

  for (Device *d : devices)
    if (heldByAnotherProcess(*d, err))
      return -1;
  // From here every device is guarded: any return restores it.
  std::vector<std::unique_ptr<ClockGuard>> guards;
  for (Device *d : devices)
    guards.push_back(std::make_unique<ClockGuard>(*d));
  std::vector<std::optional<int>> commanded;
  if (!applyFirst(plan, devices, commanded, err))
    return -1;
  std::vector<uint64_t> counterBefore;
  for (Device *d : devices)
    counterBefore.push_back(d->energyCounterMilliJoules());

  SignalForwarding forwarding;
  signalsSeen = 0;
  using Clock = std::chrono::steady_clock;
  Clock::time_point started = Clock::now();
  pid_t child = 0;
  if (!spawnCommand(opts.command, child, err))
    return -1;
  std::function<double()> elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - started).count();
  };
  Followed f = followTimeline(plan, devices, opts, mode, events, commanded,
                              child, elapsed, err);
  runningChild = 0;
  double wall = elapsed();

  int exitCode = WIFEXITED(f.status)     ? WEXITSTATUS(f.status)
                 : WIFSIGNALED(f.status) ? 128 + WTERMSIG(f.status)
                                         : 1;
  logOutcome(plan, devices, opts, mode, f, exitCode, wall, counterBefore, log);
  guards.clear(); // restore now, before reporting it
  log << "run-plan: restored default clocks and power limits on "
      << devices.size() << " device(s)\n";
  return exitCode;
}

} // namespace rt
} // namespace energy
