//===- RestoreRecord.cpp - restore records on disk ------------------------===//

#include "runtime/RestoreRecord.h"

#include "runtime/AtomicFile.h"
#include "runtime/Device.h"
#include "runtime/Nvml.h"
#include "runtime/SimDevice.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace energy {
namespace rt {

std::string restoreRecordDir() {
  std::string dir;
  if (const char *d = std::getenv("ENERGY_RT_STATE_DIR"); d && *d)
    dir = d;
  else if (const char *x = std::getenv("XDG_RUNTIME_DIR"); x && *x)
    dir = std::string(x) + "/energy-rt";
  else
    dir = "/tmp/energy-rt-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0700); // exists already: fine
  return dir;
}

namespace {
/// The first line of a file, or "".
std::string firstLine(const char *path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Process `pid`'s start time in clock ticks after boot (field 22 of
/// /proc/PID/stat, after the parenthesized command name), or "".
std::string startTimeOf(long pid) {
  std::string stat =
      firstLine(("/proc/" + std::to_string(pid) + "/stat").c_str());
  size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return "";
  std::istringstream is(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && (is >> field); ++i)
    if (i == 22)
      return field;
  return "";
}

std::string ownPidNamespace() {
  char buf[64];
  ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

std::string bootId() { return firstLine("/proc/sys/kernel/random/boot_id"); }
} // namespace

std::string processIdentity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  long pid = long(getpid());
  std::string id = host;
  for (auto [key, value] :
       {std::pair<const char *, std::string>{"boot", bootId()},
        {"pidns", ownPidNamespace()},
        {"pid", std::to_string(pid)},
        {"start", startTimeOf(pid)}})
    if (!value.empty())
      id += std::string(id.empty() ? "" : " ") + key + " " + value;
  return id;
}

bool writeRestoreRecord(const Device &dev, std::string &path,
                        std::string &err) {
  std::string name = dev.reopenName();
  if (name.empty()) {
    err = dev.identity() + " cannot be reopened by name";
    return false;
  }
  static std::atomic<unsigned> serial{0};
  if (path.empty())
    path = restoreRecordDir() + "/" + std::to_string(getpid()) + "-" +
           std::to_string(serial++) + ".record";
  std::string text = "energy-rt restore record 1\npid " +
                     std::to_string(getpid()) + "\ndevice " + name + "\n";
  if (!dev.clockMirror().empty())
    text += "clock_file " + dev.clockMirror() + "\n";
  if (!dev.powerMirror().empty())
    text += "power_file " + dev.powerMirror() + "\n";
  text += "clock_changed " + std::to_string(int(dev.clockChanged)) +
          "\npower_changed " + std::to_string(int(dev.powerLimitChanged)) +
          "\n";
  if (dev.powerLimitChanged && dev.priorPowerLimitW > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "power_prior_W %.17g\n",
                  dev.priorPowerLimitW);
    text += buf;
  }
  for (auto [key, value] : {std::pair<const char *, std::string>{
                                "start_time", startTimeOf(long(getpid()))},
                            {"boot_id", bootId()},
                            {"pid_ns", ownPidNamespace()}})
    if (!value.empty())
      text += std::string(key) + " " + value + "\n";
  return AtomicFile::writeWhole(path, text, err);
}

namespace {
bool parseRecord(const std::string &path, RestoreRecord &r, std::string &err) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != "energy-rt restore record 1") {
    err = path + ": not a restore record (version 1)";
    return false;
  }
  r = RestoreRecord();
  r.path = path;
  while (std::getline(in, line)) {
    std::istringstream is(line);
    std::string key, value;
    is >> key;
    std::getline(is >> std::ws, value);
    if (key == "pid")
      r.pid = std::strtol(value.c_str(), nullptr, 10);
    else if (key == "device")
      r.device = value;
    else if (key == "clock_file")
      r.clockFile = value;
    else if (key == "power_file")
      r.powerFile = value;
    else if (key == "clock_changed")
      r.clockChanged = value == "0" ? 0 : 1;
    else if (key == "power_changed")
      r.powerChanged = value == "0" ? 0 : 1;
    else if (key == "power_prior_W") {
      double w = std::strtod(value.c_str(), nullptr);
      r.powerPriorW = std::isfinite(w) && w > 0 && w < 1e6 ? w : 0;
    } else if (key == "start_time")
      r.startTime = value;
    else if (key == "boot_id")
      r.bootId = value;
    else if (key == "pid_ns")
      r.pidNamespace = value;
  }
  if (r.pid <= 0 || r.device.empty()) {
    err = path + ": a restore record needs its pid and device";
    return false;
  }
  return true;
}
} // namespace

std::vector<RestoreRecord> listRestoreRecords(std::string &err) {
  std::vector<RestoreRecord> out;
  std::string dir = restoreRecordDir();
  DIR *d = opendir(dir.c_str());
  if (!d) {
    int e = errno;
    const char *given = std::getenv("ENERGY_RT_STATE_DIR");
    err = "the restore-record folder " + dir +
          (given && *given ? " (ENERGY_RT_STATE_DIR)" : "") + ": " +
          std::strerror(e) +
          (e == ENOENT || e == ENOTDIR
               ? ": no clock change can be recorded there, so a process "
                 "killed with SIGKILL would leave its clocks changed"
               : "");
    return out;
  }
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 8 || name.compare(name.size() - 7, 7, ".record") != 0)
      continue;
    RestoreRecord r;
    std::string why;
    if (parseRecord(dir + "/" + name, r, why))
      out.push_back(std::move(r));
    else
      err += (err.empty() ? "" : "; ") + why;
  }
  closedir(d);
  return out;
}

Holder holderOf(const RestoreRecord &r) {
  if (!r.bootId.empty()) {
    std::string boot = bootId();
    if (!boot.empty() && boot != r.bootId)
      return Holder::Gone; // another boot's process
  }
  if (!r.pidNamespace.empty()) {
    std::string ns = ownPidNamespace();
    if (!ns.empty() && ns != r.pidNamespace)
      return Holder::Unknown; // its pid means another process here
  }
  if (!(r.pid > 0 && (kill(pid_t(r.pid), 0) == 0 || errno == EPERM)))
    return Holder::Gone;
  if (!r.startTime.empty()) {
    std::string now = startTimeOf(r.pid);
    if (!now.empty() && now != r.startTime)
      return Holder::Gone; // a new process reused the pid
  }
  return Holder::Alive;
}

namespace {
/// A mirror file's path as one spelling (relative or through links alike).
std::string canonicalPath(const std::string &file) {
  if (file.empty())
    return file;
  char buf[PATH_MAX];
  if (realpath(file.c_str(), buf))
    return buf;
  // Not there (yet): its directory's real path and its name.
  size_t slash = file.rfind('/');
  std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
  if (realpath(dir.empty() ? "/" : dir.c_str(), buf))
    return std::string(buf) + "/" +
           (slash == std::string::npos ? file : file.substr(slash + 1));
  return file;
}

/// Whether two records hold one device: a GPU by its NVML index; a
/// simulated device by the file mirroring its clock (simulators without
/// one are each their process's own).
bool sameDevice(const std::string &deviceA, const std::string &clockA,
                const std::string &deviceB, const std::string &clockB) {
  if (deviceA != deviceB)
    return false;
  if (deviceA.rfind("sim:", 0) != 0)
    return true;
  return !clockA.empty() && !clockB.empty() &&
         canonicalPath(clockA) == canonicalPath(clockB);
}
} // namespace

void DeviceClaim::release() {
  int f = fd.exchange(-1);
  if (f >= 0)
    ::close(f); // the lock goes with the last descriptor
}

namespace {
/// The lock file of a device: its name, or for a simulated device the
/// canonical path of its mirror (hashed: FNV-1a), in one folder per user.
std::string claimPath(const std::string &name, const std::string &mirror) {
  const char *given = std::getenv("ENERGY_RT_LOCK_DIR");
  std::string dir = given && *given
                        ? std::string(given)
                        : "/tmp/energy-rt-locks-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0700);
  std::string key = name;
  if (!mirror.empty()) {
    uint64_t h = 1469598103934665603ull;
    for (char c : canonicalPath(mirror))
      h = (h ^ uint8_t(c)) * 1099511628211ull;
    char buf[24];
    std::snprintf(buf, sizeof buf, "-%016llx", (unsigned long long)h);
    key += buf;
  }
  for (char &c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
      c = '_';
  return dir + "/" + key + ".lock";
}
} // namespace

bool claimedElsewhere(const Device &dev, int &fd) {
  if (dev.claim.fd >= 0)
    return false; // ours: nobody else can hold it
  if (fd < 0) {
    std::string name = dev.reopenName();
    if (name.empty())
      return false;
    fd = ::open(claimPath(name, dev.clockMirror()).c_str(),
                O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
      return false; // never claimed yet: looked for again at the next poll
  }
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0)
    return errno == EWOULDBLOCK;
  ::flock(fd, LOCK_UN);
  return false;
}

bool heldByAnotherProcess(const Device &dev, std::string &err) {
  std::string name = dev.reopenName(), mirror = dev.clockMirror();
  if (name.empty() || (dev.simulated() && mirror.empty()))
    return false;
  // The claim first: of two processes that check at once, one gets it.
  if (dev.claim.fd < 0) {
    std::string path = claimPath(name, mirror);
    int fd =
        ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    // A measuring process's poll (claimedElsewhere) holds a shared lock for
    // microseconds: tried again over ~20 ms before it counts as a holder.
    for (int i = 0; fd >= 0 && i < 10 && ::flock(fd, LOCK_EX | LOCK_NB) != 0 &&
                    errno == EWOULDBLOCK;
         ++i)
      ::usleep(2000);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      bool busy = errno == EWOULDBLOCK;
      ::close(fd);
      fd = -1;
      if (busy) {
        err = dev.identity() +
              ": another process is changing its clocks or power limit "
              "(it holds " +
              path +
              "); a second process changing them would undo its settings "
              "(a clock sweep measured at another clock, a plan reset by the "
              "other's restore): run one at a time";
        return true;
      }
    }
    if (fd < 0) { // the records alone decide then: said once
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        std::fprintf(stderr,
                     "energy_rt: warning: %s: cannot claim it through %s "
                     "(%s%s): two processes that check at the same moment "
                     "could both change its settings\n",
                     dev.identity().c_str(), path.c_str(), std::strerror(errno),
                     std::getenv("ENERGY_RT_LOCK_DIR") ? "; ENERGY_RT_LOCK_DIR"
                                                       : "");
    }
    dev.claim.fd = fd;
  }
  std::string ignored; // unreadable records: restoreStale reports them
  for (const RestoreRecord &r : listRestoreRecords(ignored)) {
    if ((r.pid == long(getpid()) && holderOf(r) == Holder::Alive) ||
        !sameDevice(name, mirror, r.device, r.clockFile))
      continue;
    Holder h = holderOf(r);
    if (h == Holder::Gone)
      continue;
    err = dev.identity() + ": process " + std::to_string(r.pid) +
          (h == Holder::Unknown ? " of another PID namespace (" +
                                      r.pidNamespace + ") may be changing"
                                : " is changing") +
          " its clocks or power limit (its restore record " + r.path +
          "); a second process changing them would undo its settings "
          "(a clock sweep measured at another clock, a plan reset by the "
          "other's restore): run one at a time" +
          (h == Holder::Unknown ? "; once that process is gone, `energy-prof "
                                  "restore --force` restores the device"
                                : "");
    dev.claim.release();
    return true;
  }
  return false;
}

bool restoreFromRecord(const RestoreRecord &r, std::string &err) {
  std::unique_ptr<Device> dev;
  if (r.device.rfind("sim:", 0) == 0) {
    SimGpu p;
    if (!simGpuFor(r.device.substr(4), p)) {
      err = r.path + ": unknown simulated device '" + r.device + "'";
      return false;
    }
    auto sim = std::make_unique<SimDevice>(p, 1);
    sim->clockStateFile = r.clockFile;
    sim->powerLimitStateFile = r.powerFile;
    dev = std::move(sim);
  } else if (r.device.rfind("cuda:", 0) == 0) {
    dev = openNvmlDevice(unsigned(std::atoi(r.device.c_str() + 5)), err);
    if (!dev)
      return false;
  } else {
    err = r.path + ": unknown device '" + r.device + "'";
    return false;
  }
  bool clock = r.clockChanged != 0, power = r.powerChanged != 0;
  if (power)
    dev->priorPowerLimitW = r.powerPriorW;
  if ((clock && !dev->resetSmClock(err)) ||
      (power && !dev->resetPowerLimit(err)))
    return false;
  // A simulated device's "hardware" is its mirror files: the restore holds
  // only if they now read the defaults.
  auto reads = [&](const std::string &file, long want) {
    if (file.empty())
      return true;
    std::ifstream in(file);
    long got = -1;
    if (in >> got && got == want)
      return true;
    err = r.path + ": could not write the default " + std::to_string(want) +
          " into " + file;
    return false;
  };
  if (auto *sim = dynamic_cast<SimDevice *>(dev.get());
      sim &&
      ((clock && !reads(r.clockFile, sim->currentSmClock())) ||
       (power && !reads(r.powerFile,
                        std::lround(r.powerPriorW > 0 ? r.powerPriorW
                                                      : sim->params().tdp)))))
    return false;
  if (unlink(r.path.c_str()) != 0 && errno != ENOENT) {
    err = r.path + ": restored, but the record stays: " + std::strerror(errno);
    return false;
  }
  return true;
}

/// The live process (other than r's) whose record holds r's device, or 0.
static long liveHolderOf(const RestoreRecord &r,
                         const std::vector<RestoreRecord> &records) {
  for (const RestoreRecord &o : records)
    if (o.path != r.path && holderOf(o) != Holder::Gone &&
        sameDevice(r.device, r.clockFile, o.device, o.clockFile))
      return o.pid;
  return 0;
}

/// Deletes a simulated device's record whose mirror files' directory no
/// longer exists; true if it did.
static bool dropIfSimulatorGone(const RestoreRecord &r) {
  if (r.device.rfind("sim:", 0) != 0 ||
      (r.clockFile.empty() && r.powerFile.empty()))
    return false;
  auto gone = [](const std::string &file) {
    if (file.empty())
      return true;
    size_t slash = file.rfind('/');
    std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
    struct stat st;
    return ::stat(dir.empty() ? "/" : dir.c_str(), &st) != 0;
  };
  if (!gone(r.clockFile) || !gone(r.powerFile))
    return false;
  return unlink(r.path.c_str()) == 0 || errno == ENOENT;
}

std::vector<RestoreOutcome> restoreStale(std::string &err, bool force) {
  std::vector<RestoreRecord> records = listRestoreRecords(err);
  std::vector<RestoreOutcome> outcomes;
  for (const RestoreRecord &r : records) {
    RestoreOutcome o{RestoreOutcome::Restored, r, 0, ""};
    Holder h = holderOf(r);
    if (h == Holder::Alive)
      o.kind = RestoreOutcome::Held;
    else if (h == Holder::Unknown && !force)
      o.kind = RestoreOutcome::Unverifiable;
    else if ((o.holder = liveHolderOf(r, records))) {
      o.kind = RestoreOutcome::Taken;
      if (unlink(r.path.c_str()) != 0 && errno != ENOENT) {
        o.kind = RestoreOutcome::Failed;
        o.why = "held by process " + std::to_string(o.holder) +
                " now, but its record stays: " + std::strerror(errno);
      }
    } else if (dropIfSimulatorGone(r))
      o.kind = RestoreOutcome::SimulatorGone;
    else if (!restoreFromRecord(r, o.why))
      o.kind = RestoreOutcome::Failed;
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

std::string describe(const RestoreOutcome &o) {
  const RestoreRecord &r = o.record;
  std::string pid = std::to_string(r.pid);
  switch (o.kind) {
  case RestoreOutcome::Held:
    return r.device + ": held by process " + pid +
           ", which still runs: left alone";
  case RestoreOutcome::Unverifiable:
    return r.device + ": held by process " + pid +
           " of another PID namespace (" + r.pidNamespace +
           ", a container's), which cannot be checked from here: left alone "
           "(once it is gone, `energy-prof restore --force` restores the "
           "device; record " +
           r.path + ")";
  case RestoreOutcome::Taken:
    return "dropped " + r.path + ": " + r.device + " of process " + pid +
           ", which is gone, is held by process " + std::to_string(o.holder) +
           " now";
  case RestoreOutcome::SimulatorGone:
    return r.device + ": dropped " + r.path +
           " (the simulated device's state files' directory no longer "
           "exists)";
  case RestoreOutcome::Restored: {
    std::string what;
    if (r.clockChanged != 0)
      what = "the default clocks";
    if (r.powerChanged != 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g W", r.powerPriorW);
      what += std::string(what.empty() ? "" : " and ") +
              (r.powerPriorW > 0
                   ? "the power limit it had (" + std::string(buf) + ")"
                   : "the default power limit");
    }
    return r.device + ": restored " + (what.empty() ? "nothing" : what) +
           " (left changed by process " + pid + ", which is gone; record " +
           r.path + ")";
  }
  case RestoreOutcome::Failed:
    return "could not restore " + r.device + " of process " + pid + ": " +
           o.why;
  }
  return "";
}

} // namespace rt
} // namespace energy
