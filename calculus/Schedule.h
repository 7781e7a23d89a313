//===- Schedule.h - Scheduled DAGs, timing and lowering ---------*- C++ -*-===//
//
// A schedule is a DAG of tasks placed on devices and streams (CALCULUS.md
// section 6, the paper's section 3.3.4). This file holds the MLIR-free parts:
//  - timing: start times by list scheduling over dependencies and stream
//    order;
//  - lowering: per device, the timeline becomes a tree of seq/par/idle, and
//    devices compose with multi, every device held for the whole makespan;
//  - interval accounting, the independent check of the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_SCHEDULE_H
#define CALCULUS_SCHEDULE_H

#include "calculus/Signature.h"

#include <cstdint>
#include <string>
#include <vector>

namespace energy {
namespace calculus {

/// Two instants closer than this are the same instant: times that come
/// from unit conversions (imported traces in microseconds) carry rounding of
/// a few ulps, which must not create overlaps or idle slivers.
inline double timeTolerance(double t) {
  return 1e-12 * (t < 0 ? -t : t) + 1e-15;
}

/// Two makespans of a frontier closer than this are one time: the same
/// durations summed along other paths or in another order differ in their
/// last bits. Relative only: options a femtosecond apart are other times
/// (an absolute term merged them, claiming a configuration that exists at
/// neither).
inline double sameMakespan(double t) { return 1e-12 * (t < 0 ? -t : t); }

struct ScheduleDevice {
  double staticPower = 0; ///< W
};

/// A dependency edge into a task.
struct Dependency {
  uint32_t pred;
  /// Finish-to-start (the default): the task starts no earlier than `lag`
  /// after the predecessor ends (a point-to-point transfer's latency); or
  /// start-to-start: no earlier than `lag` after the predecessor starts (a
  /// gradient all-reduce launched while the backward pass that feeds it is
  /// still running).
  bool startToStart = false;
  double lag = 0;
  /// The lag's variance from one run to the next (a transfer's jitter),
  /// s^2; only the sampled makespan (sampleMakespan) reads it.
  double varLag = 0;
};

struct ScheduleTask {
  /// One device for a task; several for a collective. A collective's dynamic
  /// energy is split evenly over its devices.
  std::vector<uint32_t> devices;
  uint32_t stream = 0;
  double duration = 0; ///< T, s
  double d = 0;        ///< dynamic energy, J (total over its devices)
  double varT = 0, varD = 0;
  /// Recorded start (an imported trace's measured time, or a timing's):
  /// the task never starts before it -- a release at that time -- and with
  /// the recorded durations list scheduling reproduces it exactly. Planner
  /// and lowering read it the same way, so a plan that slows a task delays
  /// what follows, and slack before a recorded start is free. Negative when
  /// none.
  double fixedStart = -1;
  /// Earliest start whatever the dependencies (a request's arrival), s.
  double release = 0;
  std::vector<Dependency> deps;
};

struct Schedule {
  std::vector<ScheduleDevice> devices;
  std::vector<ScheduleTask> tasks; ///< in program order
};

/// Counts the schedule's releases and recorded starts from its start -- the
/// earliest release or recorded start of a task without predecessors
/// (dependencies or an earlier task on one of its streams), where its
/// makespan counts from -- and returns that origin (0 leaves it as it was).
/// Timed from there, a microsecond makespan beside releases of hours is not
/// the difference of two large times, rounded at their magnitude.
double countFromStart(Schedule &sched);

/// Start times by list scheduling: each task starts when its dependencies,
/// its release time and its recorded start (ScheduleTask::fixedStart) allow
/// and its stream on each of its devices is free, streams executing in
/// program order. A task ready within rounding of its recorded start starts
/// exactly there.
/// On a dependency cycle returns false and fills `cycle` with the task ids
/// along it.
bool computeStartTimes(const Schedule &sched, std::vector<double> &start,
                       std::vector<uint32_t> &cycle);

/// The makespan when durations and lags vary (CALCULUS.md section 6): the
/// point makespan, and the mean and standard deviation of the makespan of
/// list scheduling (computeStartTimes) with every task's duration and every
/// dependency's lag drawn independently, normal with the task's T and var_T
/// (the lag's and var_lag), the Gaussian model Clark's moments assume too.
/// The expectation of a maximum exceeds the maximum of the expectations
/// wherever several paths are near critical; no closed form exists for a
/// DAG (Hagstrom 1988: #P-hard), and Clark's moments over the per-device
/// lowering treat the devices' lanes, which all end at the makespan, as
/// independent. Monte Carlo with the point schedule's critical path as a
/// control variate (its length's mean and variance are known exactly):
/// only what the other paths add is sampled, so a chain is exact and the
/// estimate stays at or above the point makespan wherever the makespan is
/// at least the critical path's sampled length. Seeded: the same schedule
/// gives the same numbers.
struct MakespanDistribution {
  double makespan = 0;  ///< the point prediction, s
  double mean = 0;      ///< E[makespan], s (= makespan when nothing varies)
  double sigma = 0;     ///< its standard deviation, s
  double stdError = 0;  ///< the Monte Carlo error of `mean`, s
  uint32_t samples = 0; ///< 0 when nothing varies (exact)
};

/// Samples used for `tasks` tasks: 4,000, fewer for large schedules so
/// that the work stays near 1e7 task visits (at least 16).
uint32_t makespanSamples(size_t tasks);

/// False on a dependency cycle (see computeStartTimes).
bool sampleMakespan(const Schedule &sched, uint32_t samples, uint64_t seed,
                    MakespanDistribution &out);

/// Finds a dependency cycle (explicit dependencies only); empty if none.
std::vector<uint32_t> findDependencyCycle(const Schedule &sched);

/// The lowered expression, a flat arena: node 0 is the root.
struct LoweredNode {
  enum Kind : uint8_t { Element, Idle, Seq, Par, Multi };
  Kind kind;
  uint32_t device = 0;                      ///< Element, Idle: the device
  uint32_t task = 0;                        ///< Element: the task
  double duration = 0;                      ///< Idle: its length
  uint32_t firstChild = 0, numChildren = 0; ///< into LoweredTree::children
};

struct LoweredTree {
  std::vector<LoweredNode> nodes;
  std::vector<uint32_t> children;
  double makespan = 0;
  double origin = 0; ///< the common start of every device
};

/// Lowers a timed schedule (CALCULUS.md section 6). Per device, tasks are
/// grouped into busy clusters (maximal sets of overlapping intervals);
/// gaps between clusters and to the common start/end become idle elements.
/// A cluster with one task is that element; otherwise it is a par with one
/// operand per lane -- a stream's tasks in the cluster, in order, with idle
/// elements before and between them (later starters get an idle prefix) --
/// which covers partial overlaps exactly. Tasks that overlap on one stream
/// (possible in imported traces) spill into extra lanes. Devices compose
/// with multi. Returns the tree; every task appears exactly once per device
/// it runs on.
LoweredTree lowerSchedule(const Schedule &sched,
                          const std::vector<double> &start);

/// The element signature of task `t`'s share on device `dev`.
Signature taskShare(const Schedule &sched, uint32_t t, uint32_t dev);

/// Composes a lowered tree with the calculus.
Signature evaluateLowered(const Schedule &sched, const LoweredTree &tree,
                          CompositionError &err);

/// Interval accounting (CALCULUS.md section 6): sum over devices of
/// s_dev * makespan plus the sum of every task's dynamic energy.
/// The makespan (from the earliest start to the latest end) goes to
/// `makespan` when given.
double intervalAccountingEnergy(const Schedule &sched,
                                const std::vector<double> &start,
                                double *makespan = nullptr);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_SCHEDULE_H
