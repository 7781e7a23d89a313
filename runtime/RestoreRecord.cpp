//===- RestoreRecord.cpp - restore records on disk ------------------------===//

#include "runtime/RestoreRecord.h"

#include "runtime/AtomicFile.h"
#include "runtime/Device.h"
#include "runtime/Nvml.h"
#include "runtime/SimDevice.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
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

bool writeRestoreRecord(const Device &dev, std::string &path,
                        std::string &err) {
  std::string name = dev.reopenName();
  if (name.empty()) {
    err = dev.identity() + " cannot be reopened by name";
    return false;
  }
  static std::atomic<unsigned> serial{0};
  std::string dir = restoreRecordDir();
  path = dir + "/" + std::to_string(getpid()) + "-" + std::to_string(serial++) +
         ".record";
  std::string text = "energy-rt restore record 1\npid " +
                     std::to_string(getpid()) + "\ndevice " + name + "\n";
  if (!dev.clockMirror().empty())
    text += "clock_file " + dev.clockMirror() + "\n";
  if (!dev.powerMirror().empty())
    text += "power_file " + dev.powerMirror() + "\n";
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

bool processAlive(long pid) {
  return pid > 0 && (kill(pid_t(pid), 0) == 0 || errno == EPERM);
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

bool heldByAnotherProcess(const Device &dev, std::string &err) {
  std::string name = dev.reopenName(), mirror = dev.clockMirror();
  if (name.empty() || (dev.simulated() && mirror.empty()))
    return false;
  std::string ignored; // unreadable records: restoreStale reports them
  for (const RestoreRecord &r : listRestoreRecords(ignored)) {
    if (r.pid == long(getpid()) ||
        !sameDevice(name, mirror, r.device, r.clockFile) ||
        !processAlive(r.pid))
      continue;
    err = dev.identity() + ": process " + std::to_string(r.pid) +
          " is changing its clocks or power limit (its restore record " +
          r.path +
          "); a second process changing them would undo its settings "
          "(a clock sweep measured at another clock, a plan reset by the "
          "other's restore): run one at a time";
    return true;
  }
  return false;
}

bool restoreFromRecord(const RestoreRecord &r, std::string &err) {
  std::unique_ptr<Device> dev;
  if (r.device.rfind("sim:", 0) == 0) {
    SimParams p;
    if (!simParamsFor(r.device.substr(4), p)) {
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
  if (!dev->resetSmClock(err) || !dev->resetPowerLimit(err))
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
      sim && (!reads(r.clockFile, sim->currentSmClock()) ||
              !reads(r.powerFile, std::lround(sim->params().tdp))))
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
    if (o.pid != r.pid && processAlive(o.pid) &&
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

std::vector<RestoreOutcome> restoreStale(std::string &err) {
  std::vector<RestoreRecord> records = listRestoreRecords(err);
  std::vector<RestoreOutcome> outcomes;
  for (const RestoreRecord &r : records) {
    RestoreOutcome o{RestoreOutcome::Restored, r, 0, ""};
    if (processAlive(r.pid))
      o.kind = RestoreOutcome::Held;
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
  case RestoreOutcome::Taken:
    return "dropped " + r.path + ": " + r.device + " of process " + pid +
           ", which is gone, is held by process " + std::to_string(o.holder) +
           " now";
  case RestoreOutcome::SimulatorGone:
    return r.device + ": dropped " + r.path +
           " (the simulated device's state files' directory no longer "
           "exists)";
  case RestoreOutcome::Restored:
    return r.device +
           ": restored the default clocks and power limit (left changed by "
           "process " +
           pid + ", which is gone; record " + r.path + ")";
  case RestoreOutcome::Failed:
    return "could not restore " + r.device + " of process " + pid + ": " +
           o.why;
  }
  return "";
}

} // namespace rt
} // namespace energy
