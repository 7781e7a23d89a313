//===- Plan.h - DVFS plans as data, and applying them safely ----*- C++ -*-===//
//
// The plan file (docs/PLAN.md, written by `energy-translate --export-plan`)
// read and checked without MLIR, and the controller behind
// `energy-prof run-plan plan.json -- CMD`: it checks every clock and power
// cap against the devices before touching anything, applies them only with
// explicit opt-in, runs the command, and restores the driver defaults on
// every exit path (normal exit, errors, SIGINT/SIGTERM/SIGHUP).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_PLAN_PLAN_H
#define RUNTIME_PLAN_PLAN_H

#include "runtime/Device.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace energy {
namespace rt {

/// Whether `name` can name a line of a clock plan (plan-clocks writes
/// "name sm_mhz" lines, er_plan_load reads them, '#' begins a comment): not
/// empty, and no whitespace, '#' or control character.
inline bool clockPlanLineName(const std::string &name) {
  if (name.empty())
    return false;
  for (unsigned char c : name)
    if (c <= ' ' || c == '#' || c == 0x7f)
      return false;
  return true;
}

/// One clock-run of a device: from the start of its first task on, the
/// device runs at `smMhz` (none: the driver's default clock).
struct PlanRun {
  std::optional<int> smMhz;
  std::string first;
  double start = 0; ///< s from the iteration's start
  unsigned tasks = 0;
  std::string path; ///< its JSON path in the plan file, for errors
};

struct PlanDevice {
  std::string name;
  /// The device kind the plan was made for (sched.device's kind; "" in
  /// files written before it was recorded).
  std::string kind;
  std::vector<PlanRun> runs;
  /// Every task in planned start order with its clock (none: default).
  std::vector<std::pair<std::string, std::optional<int>>> taskClocks;
  /// Each of those tasks' DB key ("db_key"; "" where it has none).
  std::vector<std::string> taskKeys;
  /// Each of those tasks' region of the job and its begin in the
  /// iteration ("region", "occurrence": a trace's region task; "" and -1
  /// where it has none).
  std::vector<std::pair<std::string, int64_t>> taskRegions;
  /// Per region, how many begins it has in the iteration (the largest
  /// "begins" of its tasks, or "regions_without_tasks": a trace's region
  /// that ran no GPU work; absent: not said).
  std::map<std::string, int64_t> regionBegins;
  std::optional<double> powerCapW;
  unsigned tasks = 0;
  std::string path; ///< its JSON path in the plan file, for errors
};

struct Plan {
  std::string schedule;
  double T = 0, E = 0;                 ///< the planned iteration
  double baselineT = 0, baselineE = 0; ///< before planning
  std::vector<PlanDevice> devices;
  /// The file it was read from and its text ("" when built in memory), so
  /// that a check made later (a device's clocks at run time) points at the
  /// value it refuses.
  std::string file, text;

  /// "FILE:LINE:COL: PATH: " for the value at the JSON path `path` (with
  /// `key` appended when given); "" for a plan built in memory.
  std::string at(const std::string &path, const std::string &key = "") const;
};

/// Parses and checks a version-1 plan. With several schedules in the file,
/// `schedule` names the one to read (an error lists them if it is empty).
/// Errors name the file and the JSON path of the offending value.
bool parsePlan(const std::string &text, const std::string &file,
               const std::string &schedule, Plan &out, std::string &err);

struct RunPlanOptions {
  enum class Mode {
    Lock,     ///< one clock per device for the whole run
    Timeline, ///< open-loop: each run's clock at its planned start, every
              ///< iteration (period = the plan's T)
  };
  std::optional<Mode> mode; ///< unset: Lock, an error if a device switches
  bool allowChanges = false;
  bool dryRun = false;
  double startDelay = 0;   ///< s between starting the command and iteration 0
  unsigned iterations = 0; ///< Timeline: stop switching after N (0: never)
  std::vector<std::string> command;
};

/// Applies `plan` to `devices` (one per plan device, in plan order) while
/// `opts.command` runs, and restores the defaults afterwards. Writes what it
/// does to `log`. Returns the command's exit status (128 + signal when a
/// signal ended it), or -1 with `err` when nothing was run.
int runPlan(const Plan &plan, const std::vector<Device *> &devices,
            const RunPlanOptions &opts, llvm::raw_ostream &log,
            std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_PLAN_PLAN_H
