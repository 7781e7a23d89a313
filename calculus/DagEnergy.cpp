//===- DagEnergy.cpp - A configuration's energy by interval accounting ----===//

#include "calculus/DagInternal.h"

#include <limits>
#include <map>

namespace energy {
namespace calculus {

namespace dag {
double quantize(double t, double q) {
  if (q <= 0)
    return t;
  // A quantum below t's last digit (or one whose ratio overflows: 1e-308
  // on a 10 s task) floors nothing.
  double k = t / q;
  if (!(k < 9007199254740992.0))
    return t;
  return std::floor(k + 1e-9) * q;
}
} // namespace dag

namespace {
/// Interval accounting for a schedule with its durations and energies set,
/// timed by list scheduling; the makespan counts from the schedule's start
/// (the earliest start: the earliest release of a task without
/// predecessors, stream order included), as the lowering does.
double timedEnergy(Schedule &timed, double *makespan) {
  // From the schedule's start, as the frontier's graph counts them (a
  // plan at max-slowdown=0 beside releases of hours otherwise missed its
  // own fastest point by the rounding of the absolute times).
  countFromStart(timed);
  std::vector<double> start;
  std::vector<uint32_t> cycle;
  // A schedule that cannot be timed (a cycle: callers refuse it first) has
  // no energy; NaN, not a read past the start times.
  if (!computeStartTimes(timed, start, cycle)) {
    if (makespan)
      *makespan = std::numeric_limits<double>::quiet_NaN();
    return std::numeric_limits<double>::quiet_NaN();
  }
  return intervalAccountingEnergy(timed, start, makespan);
}
} // namespace

double dagEnergyWithSwitches(const Schedule &sched,
                             const std::vector<std::vector<Option>> &options,
                             const std::vector<uint32_t> &choice,
                             const std::vector<std::vector<int64_t>> &clocks,
                             const std::vector<SwitchCost> &deviceCost,
                             double quantum, double *makespan,
                             uint32_t *switches) {
  size_t n = sched.tasks.size();
  // Which tasks a switch precedes, in program order per lane. The schedule
  // is one period of a job that repeats it: a lane whose last clock is not
  // its first switches back before its first task, every period.
  std::vector<char> switchBefore(n, 0);
  std::map<std::pair<uint32_t, uint32_t>, int64_t> laneClock;
  std::map<std::pair<uint32_t, uint32_t>, size_t> laneFirst;
  uint32_t count = 0;
  for (size_t t = 0; t < n; ++t) {
    const ScheduleTask &task = sched.tasks[t];
    int64_t clock = clocks[t][choice[t]];
    if (clock < 0 || task.devices.size() != 1)
      continue;
    auto [it, first] =
        laneClock.try_emplace({task.devices[0], task.stream}, clock);
    if (first)
      laneFirst[it->first] = t;
    if (!first && it->second != clock) {
      ++count;
      switchBefore[t] = deviceCost[task.devices[0]].declared;
    }
    it->second = clock;
  }
  for (const auto &[lane, t] : laneFirst)
    if (laneClock[lane] != clocks[t][choice[t]]) {
      ++count;
      switchBefore[t] = deviceCost[lane.first].declared;
    }
  Schedule timed;
  timed.devices = sched.devices;
  std::vector<uint32_t> index(n);
  for (size_t t = 0; t < n; ++t) {
    const ScheduleTask &task = sched.tasks[t];
    if (switchBefore[t]) {
      const SwitchCost &c = deviceCost[task.devices[0]];
      ScheduleTask sw;
      sw.devices = task.devices;
      sw.stream = task.stream;
      sw.duration = c.T;
      sw.d = c.d;
      // Not before the task's release (the device is not the job's
      // before), and done by its recorded start (a start the plan re-timed
      // is where the task runs, its switch just before it): as
      // --energy-emit-dvfs writes it.
      sw.release = std::max(task.release, task.fixedStart - c.T);
      timed.tasks.push_back(std::move(sw));
    }
    index[t] = uint32_t(timed.tasks.size());
    ScheduleTask copy = task;
    const Option &o = options[t][choice[t]];
    copy.duration = dag::quantize(o.T, quantum);
    copy.d = o.d;
    timed.tasks.push_back(std::move(copy));
  }
  for (ScheduleTask &task : timed.tasks)
    for (Dependency &dep : task.deps)
      dep.pred = index[dep.pred];
  if (switches)
    *switches = count;
  return timedEnergy(timed, makespan);
}

double dagEnergy(const Schedule &sched,
                 const std::vector<std::vector<Option>> &options,
                 const std::vector<uint32_t> &choice, double quantum,
                 double *makespan) {
  Schedule timed = sched;
  for (size_t t = 0; t < timed.tasks.size(); ++t) {
    const Option &o = options[t][choice[t]];
    timed.tasks[t].duration = dag::quantize(o.T, quantum);
    timed.tasks[t].d = o.d;
  }
  return timedEnergy(timed, makespan);
}

} // namespace calculus
} // namespace energy
