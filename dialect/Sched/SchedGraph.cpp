//===- SchedGraph.cpp - A sched.schedule as a calculus::Schedule ----------===//

#include "dialect/Sched/SchedGraph.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {
struct Entry {
  enum Kind : uint8_t { Device, Task } kind;
  uint32_t index; ///< first task index (a measured collective has one per part)
  uint32_t count;
  Operation *op;
};

/// A task's time and dynamic energy, with their variances, from its
/// signature; `s` its devices' static power (what a sigma_E without
/// sigma_d leaves to var_d, toSignature).
void setCost(calculus::ScheduleTask &task, SignatureAttr sig, double s) {
  calculus::Signature c = toSignature(sig, s);
  task.duration = c.T;
  task.d = c.d;
  task.varT = c.varT;
  task.varD = c.varD;
}
} // namespace

std::string SchedGraph::describeCycle(ArrayRef<uint32_t> cycle) const {
  // `cycle` runs from a task to the task it depends on, ..., ending with the
  // task the first one depends on; print in execution order ("x -> y": y
  // waits for x), starting from that last task and closing the loop.
  if (cycle.empty())
    return "";
  auto name = [&](uint32_t t) {
    return "@" + SymbolTable::getSymbolName(taskOps[t]).str();
  };
  std::string out = name(cycle.back());
  for (uint32_t t : cycle)
    out += " -> " + name(t);
  return out;
}

LogicalResult SchedGraph::startTimes(ScheduleOp op,
                                     std::vector<double> &start) const {
  std::vector<uint32_t> cycle;
  if (!calculus::computeStartTimes(schedule, start, cycle))
    return op.emitOpError("cannot be timed: dependencies and stream order "
                          "form a cycle: ")
           << describeCycle(cycle);
  // Each task's end must be a number: starts and durations near the
  // largest double (1e308 s) add up to infinity, said at the task.
  for (uint32_t t = 0; t < start.size(); ++t) {
    double end = start[t] + schedule.tasks[t].duration;
    if (!std::isfinite(start[t]))
      return taskOps[t]->emitOpError(
          "starts past the largest time a double holds: the ends and "
          "delays before it add up to more than 1.8e308 s");
    if (!std::isfinite(end))
      return taskOps[t]->emitOpError("ends past the largest time a double "
                                     "holds: it starts at ")
             << start[t] << " s and runs " << schedule.tasks[t].duration
             << " s";
  }
  return success();
}

namespace {
/// SchedGraph::build in named steps: name every device and task, then
/// translate each task and collective (its devices, dependencies, fixed
/// start and cost).
class GraphBuilder {
public:
  using Need = SchedGraph::Need;
  GraphBuilder(SchedGraph &graph, Need need) : g(graph), need(need) {}

  /// Pass 1: every device and task by name; a measured collective takes one
  /// task index per part.
  LogicalResult nameOps(Block &body) {
    size_t numOps = body.getOperations().size();
    names.reserve(numOps);
    g.taskOps.reserve(numOps);
    for (Operation &child : body) {
      if (auto dev = dyn_cast<sched::DeviceOp>(child)) {
        names[dev.getSymNameAttr()] = {Entry::Device,
                                       uint32_t(g.deviceOps.size()), 1, dev};
        g.deviceOps.push_back(dev);
        g.schedule.devices.push_back({dev.getStaticPower().convertToDouble()});
      } else if (isa<TaskOp, CollectiveOp>(child)) {
        uint32_t parts = 1;
        if (auto coll = dyn_cast<CollectiveOp>(child);
            coll && coll.getDurationsAttr())
          parts = coll.getDevices().size();
        names[SymbolTable::getSymbolName(&child)] = {
            Entry::Task, uint32_t(g.taskOps.size()), parts, &child};
        for (uint32_t i = 0; i < parts; ++i)
          g.taskOps.push_back(&child);
      } else if (isa<PipelineOp, ServeOp>(child)) {
        if (need != Need::Structure)
          return child.emitOpError(
              "is a generator; run --sched-expand before timing or lowering");
      } else {
        return child.emitOpError("cannot appear in a sched.schedule");
      }
    }
    return success();
  }

  /// Pass 2: the tasks, in index order.
  LogicalResult addTasks() {
    g.schedule.tasks.resize(g.taskOps.size());
    for (uint32_t t = 0; t < g.taskOps.size();) {
      Operation *taskOp = g.taskOps[t];
      if (auto task = dyn_cast<TaskOp>(taskOp)) {
        if (failed(addTask(task, g.schedule.tasks[t])))
          return failure();
        ++t;
      } else if (failed(addCollective(cast<CollectiveOp>(taskOp), t))) {
        return failure();
      }
    }
    return success();
  }

private:
  SchedGraph &g;
  Need need;
  DenseMap<StringAttr, Entry> names;

  FailureOr<uint32_t> device(Operation *user, FlatSymbolRefAttr sym) {
    auto it = names.find(sym.getAttr());
    if (it == names.end())
      return user->emitOpError("runs on unknown device ")
             << sym << "; declare it with sched.device";
    if (it->second.kind != Entry::Device)
      return (user->emitOpError("runs on ") << sym << ", which is a task")
                 .attachNote(it->second.op->getLoc())
             << "defined here";
    return it->second.index;
  }

  LogicalResult addDeps(Operation *user, ArrayAttr refs, bool startToStart,
                        double lag, std::vector<calculus::Dependency> &deps,
                        double varLag = 0) {
    if (!refs)
      return success();
    for (Attribute a : refs) {
      auto sym = cast<FlatSymbolRefAttr>(a);
      auto it = names.find(sym.getAttr());
      if (it == names.end())
        return user->emitOpError("depends on unknown task ") << sym;
      if (it->second.kind != Entry::Task)
        return user->emitOpError("depends on ")
               << sym << ", which is a device, not a task";
      for (uint32_t i = 0; i < it->second.count; ++i)
        deps.push_back({it->second.index + i, startToStart, lag, varLag});
    }
    return success();
  }

  static LogicalResult missingSignature(Operation *taskOp) {
    // A task that names its DB entry (`db "KEY"`) is priced by the fill
    // alone (--dynamic-power never prices it).
    if (auto task = dyn_cast<TaskOp>(taskOp); task && task.getDbAttr())
      return taskOp->emitOpError("@")
             << SymbolTable::getSymbolName(taskOp).getValue()
             << " has no signature: fill it from the signature database "
                "holding its key '"
             << task.getDbAttr().getValue()
             << "' (--energy-fill-signatures=db=DB.json)";
    auto diag = taskOp->emitOpError("@")
                << SymbolTable::getSymbolName(taskOp).getValue()
                << " has no signature: give it `sig <T = ..., d = ...>`, fill "
                   "it from a signature database (--energy-fill-signatures), "
                   "or, for a trace imported with --import-kineto, price its "
                   "events with --dynamic-power W";
    // An operating set alone: what a plan chooses from, not what the task
    // runs now (the baseline a plan's saving is counted against).
    if (auto task = dyn_cast<TaskOp>(taskOp); task && task.getOptionsAttr())
      diag << " (its `options` are what a plan chooses from; `sig` is what "
              "it runs now, the baseline -- e.g. its highest clock's "
              "option)";
    return diag;
  }

  LogicalResult checkOwnStaticPower(TaskOp op, uint32_t dev) {
    double sdev = g.schedule.devices[dev].staticPower;
    const char *fix = "drop `s`, or set it on the device";
    if (failed(sched::checkOwnStaticPower(op, op.getSigAttr(), sdev,
                                          "its signature", fix)))
      return failure();
    if (ArrayAttr options = op.getOptionsAttr())
      for (auto [i, a] : llvm::enumerate(options))
        if (failed(sched::checkOwnStaticPower(op, cast<OptionAttr>(a).getSig(),
                                              sdev, "option #" + Twine(i),
                                              fix)))
          return failure();
    return success();
  }

  LogicalResult addTask(TaskOp op, calculus::ScheduleTask &task) {
    FailureOr<uint32_t> dev = device(op, op.getDeviceAttr());
    if (failed(dev) || failed(checkOwnStaticPower(op, *dev)))
      return failure();
    task.devices.push_back(*dev);
    task.stream = op.getStreamAttr() ? uint32_t(op.getStream().value()) : 0;
    double lag = op.getLagAttr() ? op.getLagAttr().getValueAsDouble() : 0;
    double delay = op.getDelayAttr() ? op.getDelayAttr().getValueAsDouble() : 0;
    double delaySigma =
        op.getDelaySigmaAttr() ? op.getDelaySigmaAttr().getValueAsDouble() : 0;
    if (failed(addDeps(op, op.getAfterAttr(), false, delay, task.deps,
                       delaySigma * delaySigma)) ||
        failed(addDeps(op, op.getWithAttr(), true, lag, task.deps)))
      return failure();
    if (std::optional<double> start = op.getStart())
      task.fixedStart = *start;
    if (auto release = op.getReleaseAttr())
      task.release = release.getValueAsDouble();
    if (SignatureAttr sig = op.getSigAttr()) {
      setCost(task, sig, g.schedule.devices[task.devices.front()].staticPower);
    } else if (need == Need::Signatures) {
      return missingSignature(op);
    } else if (std::optional<double> dur = op.getDuration()) {
      task.duration = *dur;
    } else if (need == Need::Durations) {
      return op.emitOpError("@")
             << op.getSymName()
             << " has no duration: give it `for <time>` or a signature";
    }
    return success();
  }

  /// A collective at task index `t`, which it advances past its tasks: one,
  /// or one per part for a measured collective (`durations`).
  LogicalResult addCollective(CollectiveOp coll, uint32_t &t) {
    SmallVector<uint32_t> devs;
    for (Attribute d : coll.getDevices()) {
      FailureOr<uint32_t> dev = device(coll, cast<FlatSymbolRefAttr>(d));
      if (failed(dev))
        return failure();
      devs.push_back(*dev);
    }
    // Its devices' static powers, together, are what it is charged.
    double sdevs = 0;
    for (uint32_t d : devs)
      sdevs += g.schedule.devices[d].staticPower;
    if (failed(sched::checkOwnStaticPower(
            coll, coll.getSigAttr(), sdevs, "its signature",
            "drop `s` (its devices' static powers, together, are charged)")))
      return failure();
    uint32_t stream =
        coll.getStreamAttr() ? uint32_t(coll.getStream().value()) : 0;
    double lag = coll.getLagAttr() ? coll.getLagAttr().getValueAsDouble() : 0;
    std::vector<calculus::Dependency> deps;
    if (failed(addDeps(coll, coll.getAfterAttr(), false, 0, deps)) ||
        failed(addDeps(coll, coll.getWithAttr(), true, lag, deps)))
      return failure();
    if (ArrayAttr durations = coll.getDurationsAttr()) {
      ArrayAttr energies = coll.getEnergiesAttr(),
                starts = coll.getStartsAttr(), streams = coll.getStreamsAttr();
      if (!energies && need == Need::Signatures)
        return coll.emitOpError("@")
               << coll.getSymName()
               << " is a measured collective without per-device `energies`";
      ArrayAttr partAfter = coll.getPartAfterAttr();
      for (uint32_t i = 0; i < devs.size(); ++i) {
        calculus::ScheduleTask &part = g.schedule.tasks[t + i];
        part.devices = {devs[i]};
        part.stream =
            streams ? uint32_t(cast<IntegerAttr>(streams[i]).getInt()) : stream;
        part.deps = deps;
        if (partAfter && failed(addDeps(coll, cast<ArrayAttr>(partAfter[i]),
                                        false, 0, part.deps)))
          return failure();
        part.duration = cast<FloatAttr>(durations[i]).getValueAsDouble();
        if (energies)
          part.d = cast<FloatAttr>(energies[i]).getValueAsDouble();
        if (starts)
          part.fixedStart = cast<FloatAttr>(starts[i]).getValueAsDouble();
        else if (auto start = coll.getStartAttr())
          part.fixedStart = start.getValueAsDouble();
      }
      t += devs.size();
      return success();
    }
    calculus::ScheduleTask &task = g.schedule.tasks[t];
    task.devices.assign(devs.begin(), devs.end());
    task.stream = stream;
    task.deps = std::move(deps);
    if (auto start = coll.getStartAttr())
      task.fixedStart = start.getValueAsDouble();
    if (SignatureAttr sig = coll.getSigAttr()) {
      setCost(task, sig, sdevs);
    } else if (need != Need::Structure) {
      return missingSignature(coll);
    }
    ++t;
    return success();
  }
};
} // namespace

FailureOr<SchedGraph> SchedGraph::build(ScheduleOp op, Need need) {
  SchedGraph g;
  GraphBuilder builder(g, need);
  if (failed(builder.nameOps(op.getBody().front())) ||
      failed(builder.addTasks()))
    return failure();
  return g;
}

void SchedGraph::writeStarts(ArrayRef<double> start, bool onlyRecorded) const {
  Builder b(taskOps.empty() ? nullptr : taskOps.front()->getContext());
  for (uint32_t t = 0; t < taskOps.size();) {
    auto coll = dyn_cast<CollectiveOp>(taskOps[t]);
    if (coll && coll.getDurationsAttr()) {
      size_t parts = coll.getDevices().size();
      if (!onlyRecorded || coll.getStartsAttr())
        coll.setStartsAttr(b.getF64ArrayAttr(start.slice(t, parts)));
      t += parts;
      continue;
    }
    if (auto task = dyn_cast<TaskOp>(taskOps[t])) {
      if (!onlyRecorded || task.getStart())
        task.setStart(start[t]);
    } else if (!onlyRecorded || coll.getStartAttr()) {
      coll.setStartAttr(b.getF64FloatAttr(start[t]));
    }
    ++t;
  }
}

bool SchedGraph::recordsStarts(ScheduleOp op) {
  for (Operation &inner : op.getBody().front()) {
    if (auto task = dyn_cast<TaskOp>(inner); task && task.getStart())
      return true;
    if (auto coll = dyn_cast<CollectiveOp>(inner);
        coll && (coll.getStartAttr() || coll.getStartsAttr()))
      return true;
  }
  return false;
}

FailureOr<SchedGraph> SchedGraph::buildAsPlanned(ScheduleOp op,
                                                 std::vector<double> &start) {
  FailureOr<SchedGraph> g = build(op, Need::Signatures);
  if (failed(g) || failed(g->startTimes(op, start)))
    return failure();
  return g;
}

LogicalResult energy::sched::checkOwnStaticPower(Operation *op,
                                                 SignatureAttr sig,
                                                 double expected,
                                                 const Twine &what,
                                                 StringRef fix) {
  std::optional<double> s = sig ? sig.staticPower() : std::nullopt;
  if (!s || std::abs(*s - expected) <= 1e-9 * std::max(1.0, expected))
    return success();
  return op->emitOpError() << what << " gives s = "
                           << formatQuantity(*s, Dimension::Power)
                           << ", but a schedule charges its static power ("
                           << formatQuantity(expected, Dimension::Power)
                           << " here) over the whole makespan; " << fix;
}

SignatureAttr energy::sched::switchCostOf(DeviceOp dev) {
  // Its kind (#energy.sig) is the dialect verifier's to check.
  return dev->getAttrOfType<SignatureAttr>(
      EnergyDialect::SwitchAttrHelper::getNameStr());
}
