//===- RestoreRecord.h - surviving SIGKILL and power loss ------*- C++ -*-===//
//
// Before a ClockGuard lets anyone change a device's clocks or power limit,
// it writes a small record of the device (how to reopen it) and of its own
// process into the restore-record folder; it deletes the record once it has
// restored the defaults (normal exit, error return, any catchable fatal
// signal). A record whose process is gone -- killed with SIGKILL, a crash
// that could not be caught, a power loss -- is stale: the next er_init and
// `energy-prof restore` reopen its device and reset its clocks and power
// limit -- what the process changed of them: the clocks to their defaults,
// the power limit to the one in force before its first change (a cap an
// administrator set stays). Folder: $ENERGY_RT_STATE_DIR, else
// $XDG_RUNTIME_DIR/energy-rt, else /tmp/energy-rt-<uid>. The format (text,
// one "key value" per line) is owned here:
//
//   energy-rt restore record 1
//   pid 12345
//   device cuda:0            (or sim:a100-sxm4)
//   clock_file PATH          (simulated devices: their mirrored clock)
//   power_file PATH          (simulated devices: their mirrored limit)
//   clock_changed 1          (what to restore; both where absent)
//   power_changed 1
//   power_prior_W 500        (the limit to restore; absent: the default)
//   start_time 123456        (the process's, in clock ticks after boot)
//   boot_id UUID             (/proc/sys/kernel/random/boot_id)
//   pid_ns pid:[4026531836]  (the PID namespace its pid is counted in)
//
// The last three tell a live holder from a gone one: a pid counted in
// another PID namespace (a container's) cannot be checked from here, a
// pid from another boot is gone, and a live pid with another start time is
// a new process that reused the number.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_RESTORERECORD_H
#define RUNTIME_RESTORERECORD_H

#include <string>
#include <vector>

namespace energy {
namespace rt {

class Device;

/// This process, unlike any other on any machine: "HOST boot BOOT_ID pidns
/// NS pid PID start TICKS" (what the kernel knows of it; a field it does
/// not say is left out).
std::string processIdentity();

struct RestoreRecord {
  std::string path;
  long pid = 0;
  std::string device;
  std::string clockFile, powerFile;
  int clockChanged = -1, powerChanged = -1;    ///< -1: not said (restore both)
  double powerPriorW = 0;                      ///< 0: restore the default
  std::string startTime, bootId, pidNamespace; ///< empty: not said
};

/// The folder (created on first use, mode 0700).
std::string restoreRecordDir();

/// Writes the record of `dev` for this process (what it changed so far);
/// `path` gets its file, or names the record to write again (the process
/// changed something more, or the file went). False (and no record) when
/// the device cannot be reopened by name or the folder cannot be written.
bool writeRestoreRecord(const Device &dev, std::string &path, std::string &err);

/// Every record in the folder (unreadable ones are reported in `err` and
/// skipped).
std::vector<RestoreRecord> listRestoreRecords(std::string &err);

/// Whether a record's process still runs: Unknown where its pid is counted
/// in another PID namespace (it cannot be checked from here).
enum class Holder { Alive, Gone, Unknown };
Holder holderOf(const RestoreRecord &r);

/// Whether another live process holds `dev` -- it is changing that
/// device's clocks or power limit now (a GPU by its NVML index; a simulated
/// device by the state file that mirrors its clock: simulators without one
/// are each process's own). Then `err` says which process and why a second
/// must not change them too (each would undo the other's settings: a clock
/// sweep measured at the wrong clock, a restore that resets the other's
/// plan). Otherwise this process claims it (Device::claim: a lock in
/// $ENERGY_RT_LOCK_DIR, else /tmp/energy-rt-locks-<uid>, whatever the
/// restore-record folder, so jobs of one user in different sessions see
/// each other), so that a second process checking at the same moment is
/// refused.
bool heldByAnotherProcess(const Device &dev, std::string &err);

/// Whether another process holds `dev`'s claim now (it is changing its
/// clocks or power limit): a poll for processes that only measure. False
/// where this process holds it or nobody ever claimed the device. `fd`:
/// the caller's descriptor of the lock file, opened on first use (-1).
bool claimedElsewhere(const Device &dev, int &fd);

/// What became of one record when the stale ones were restored.
struct RestoreOutcome {
  enum Kind {
    Held,          // its process still runs: left alone
    Unverifiable,  // its process is another PID namespace's: left alone
                   // (restoreStale's `force` restores it)
    Taken,         // its process is gone, a live one holds the device now:
                   // dropped, not restored (the restore would undo the live
                   // one's settings, and it restores them itself)
    SimulatorGone, // a simulated device whose mirror files' directory no
                   // longer exists (a test's temporary directory): dropped
    Restored,      // its device reset to the defaults, the record deleted
    Failed         // the reset failed (`why`); the record stays
  } kind;
  RestoreRecord record;
  long holder = 0; // Taken: the live process that holds the device
  std::string why; // Failed: what went wrong
};

/// Goes through every record once: restores each stale one (dead process;
/// with `force`, also those of other PID namespaces) and says what became
/// of every record. `err` gets the unreadable ones.
std::vector<RestoreOutcome> restoreStale(std::string &err, bool force = false);

/// One line (no newline) saying what became of a record, naming its device
/// and process.
std::string describe(const RestoreOutcome &o);

/// Reopens the record's device, restores what its process changed (clocks
/// to their defaults, the power limit to its prior value) and deletes the
/// record.
bool restoreFromRecord(const RestoreRecord &r, std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_RESTORERECORD_H
