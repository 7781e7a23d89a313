//===- SchedGraph.cpp - A sched.schedule as a calculus::Schedule ----------===//

#include "dialect/Sched/SchedGraph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {
struct Entry {
  enum Kind : uint8_t { Device, Task } kind;
  uint32_t index;
  Operation *op;
};
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

FailureOr<SchedGraph> SchedGraph::build(ScheduleOp op, Need need) {
  SchedGraph g;
  DenseMap<StringAttr, Entry> names;
  Block &body = op.getBody().front();
  // Pass 1: name every device and task.
  for (Operation &child : body) {
    if (auto dev = dyn_cast<sched::DeviceOp>(child)) {
      names[dev.getSymNameAttr()] = {Entry::Device,
                                     uint32_t(g.deviceOps.size()), dev};
      g.deviceOps.push_back(dev);
      g.schedule.devices.push_back({dev.getStaticPower().convertToDouble()});
    } else if (isa<TaskOp, CollectiveOp>(child)) {
      names[SymbolTable::getSymbolName(&child)] = {
          Entry::Task, uint32_t(g.taskOps.size()), &child};
      g.taskOps.push_back(&child);
    } else if (isa<PipelineOp>(child)) {
      if (need == Need::Signatures)
        return child.emitOpError(
            "is a generator; run --sched-expand before timing or lowering");
    } else {
      return child.emitOpError("cannot appear in a sched.schedule");
    }
  }
  auto device = [&](Operation *user, FlatSymbolRefAttr sym) -> FailureOr<uint32_t> {
    auto it = names.find(sym.getAttr());
    if (it == names.end())
      return user->emitOpError("runs on unknown device ")
             << sym << "; declare it with sched.device";
    if (it->second.kind != Entry::Device)
      return (user->emitOpError("runs on ") << sym << ", which is a task")
                 .attachNote(it->second.op->getLoc())
             << "defined here";
    return it->second.index;
  };
  auto taskIndex = [&](Operation *user, Attribute attr) -> FailureOr<uint32_t> {
    auto sym = cast<FlatSymbolRefAttr>(attr);
    auto it = names.find(sym.getAttr());
    if (it == names.end())
      return user->emitOpError("depends on unknown task ") << sym;
    if (it->second.kind != Entry::Task)
      return user->emitOpError("depends on ")
             << sym << ", which is a device, not a task";
    return it->second.index;
  };

  // Pass 2: the tasks.
  g.schedule.tasks.resize(g.taskOps.size());
  for (uint32_t t = 0; t < g.taskOps.size(); ++t) {
    Operation *taskOp = g.taskOps[t];
    calculus::ScheduleTask &task = g.schedule.tasks[t];
    IntegerAttr stream;
    ArrayAttr after, with;
    FloatAttr lag, start;
    SignatureAttr sig;
    if (auto op = dyn_cast<TaskOp>(taskOp)) {
      FailureOr<uint32_t> dev = device(op, op.getDeviceAttr());
      if (failed(dev))
        return failure();
      task.devices.push_back(*dev);
      stream = op.getStreamAttr();
      after = op.getAfterAttr();
      with = op.getWithAttr();
      lag = op.getLagAttr();
      start = op.getStartAttr();
      sig = op.getSigAttr();
    } else {
      auto coll = cast<CollectiveOp>(taskOp);
      for (Attribute d : coll.getDevices()) {
        FailureOr<uint32_t> dev = device(coll, cast<FlatSymbolRefAttr>(d));
        if (failed(dev))
          return failure();
        task.devices.push_back(*dev);
      }
      stream = coll.getStreamAttr();
      after = coll.getAfterAttr();
      with = coll.getWithAttr();
      lag = coll.getLagAttr();
      start = coll.getStartAttr();
      sig = coll.getSigAttr();
    }
    task.stream = stream ? uint32_t(stream.getInt()) : 0;
    if (after)
      for (Attribute a : after) {
        FailureOr<uint32_t> p = taskIndex(taskOp, a);
        if (failed(p))
          return failure();
        task.deps.push_back({*p});
      }
    if (with)
      for (Attribute a : with) {
        FailureOr<uint32_t> p = taskIndex(taskOp, a);
        if (failed(p))
          return failure();
        task.deps.push_back({*p, true, lag ? lag.getValueAsDouble() : 0});
      }
    if (start)
      task.fixedStart = start.getValueAsDouble();
    if (sig) {
      task.duration = sig.time();
      task.d = sig.dynamicEnergy();
      task.varT = sig.sigmaTime() * sig.sigmaTime();
      task.varD = sig.sigmaDynamic() * sig.sigmaDynamic();
    } else if (need == Need::Signatures) {
      return taskOp->emitOpError("@")
             << SymbolTable::getSymbolName(taskOp).getValue()
             << " has no signature: give it `sig <T = ..., d = ...>` or fill "
                "it from a signature database";
    }
  }
  return g;
}
