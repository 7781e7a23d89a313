//===- FrontierSupport.cpp - What --energy-frontier and --energy-plan share
//===//

#include "passes/FrontierSupport.h"

#include "runtime/Progress.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace energy;
using namespace energy::sched;

std::vector<double> energy::optionCaps(const Choices &c) {
  std::set<double> caps;
  for (const auto &points : c.opPoints)
    for (OpPointAttr op : points)
      if (op && op.getPowerCap())
        caps.insert(op.getPowerCap()->value);
  return {caps.begin(), caps.end()};
}

std::set<StringRef> energy::cappedDevices(const Choices &c) {
  std::set<StringRef> capped;
  for (size_t t = 0; t < c.opPoints.size(); ++t)
    if (llvm::any_of(c.opPoints[t],
                     [](OpPointAttr op) { return op && op.getPowerCap(); }))
      for (uint32_t d : c.graph.schedule.tasks[t].devices)
        capped.insert(sched::DeviceOp(c.graph.deviceOps[d]).getSymName());
  return capped;
}

std::vector<uint32_t> energy::choiceAtCap(const Choices &c, double cap,
                                          size_t &lacking) {
  std::vector<uint32_t> choice(c.current);
  for (size_t t = 0; t < c.options.size(); ++t) {
    bool anyCap = false;
    std::optional<uint32_t> best;
    auto mhz = [&](uint32_t k) {
      return c.opPoints[t][k].getSmMhz().value_or(0);
    };
    for (uint32_t j = 0; j < c.opPoints[t].size(); ++j) {
      OpPointAttr op = c.opPoints[t][j];
      if (!op || !op.getPowerCap())
        continue;
      anyCap = true;
      if (std::abs(op.getPowerCap()->value - cap) > 1e-9 * cap)
        continue;
      if (!best || mhz(j) > mhz(*best) ||
          (mhz(j) == mhz(*best) && c.options[t][j].T < c.options[t][*best].T))
        best = j;
    }
    if (best) {
      choice[t] = *best;
    } else if (anyCap) {
      lacking = t;
      return {};
    }
  }
  return choice;
}

void energy::runAtChoice(const Choices &c, const std::vector<uint32_t> &choice,
                         bool evenPlanned) {
  for (auto [t, j] : llvm::enumerate(choice)) {
    auto task = dyn_cast<TaskOp>(c.graph.taskOps[t]);
    SignatureAttr sig = c.sigs[t][j];
    if (!task || !sig || j == c.current[t] ||
        (!evenPlanned &&
         (task.getStart() ||
          task->hasAttr(EnergyDialect::DvfsAttrHelper::getNameStr()))))
      continue;
    task.setSigAttr(sig);
    if (task.getDuration())
      task.setDuration(sig.time());
  }
}

FailureOr<Choices> Choices::build(ScheduleOp sched, bool deviceCaps) {
  FailureOr<SchedGraph> g =
      SchedGraph::build(sched, SchedGraph::Need::Signatures);
  if (failed(g))
    return failure();
  Choices c{std::move(*g), {}, {}, {}, {}, {}, 0};
  const calculus::Schedule &s = c.graph.schedule;
  size_t n = s.tasks.size();
  c.options.resize(n);
  c.opPoints.resize(n);
  c.sigs.resize(n);
  c.current.resize(n, 0);
  for (size_t t = 0; t < n; ++t) {
    const calculus::ScheduleTask &task = s.tasks[t];
    double sdev = 0;
    for (uint32_t d : task.devices)
      sdev += s.devices[d].staticPower;
    auto taskOp = dyn_cast<TaskOp>(c.graph.taskOps[t]);
    SignatureAttr own = taskOp ? taskOp.getSigAttr() : SignatureAttr();
    // A power cap set on the task's device (--energy-power-cap) holds for
    // every task there: only the options measured at that cap, or, where
    // the options carry no cap, those whose mean power fits under it.
    std::optional<double> deviceCap;
    if (deviceCaps && task.devices.size() == 1)
      if (auto cap =
              c.graph.deviceOps[task.devices[0]]->getAttrOfType<OpPointAttr>(
                  EnergyDialect::PowerCapAttrHelper::getNameStr()))
        if (auto w = cap.getPowerCap())
          deviceCap = w->value;
    auto fits = [&](OpPointAttr point, double T, double d) {
      if (!deviceCap)
        return true;
      if (point && point.getPowerCap())
        return std::abs(point.getPowerCap()->value - *deviceCap) <=
               1e-9 * *deviceCap;
      return T > 0 && sdev + d / T <= *deviceCap * (1 + 1e-9);
    };
    bool found = false;
    size_t dropped = 0;
    double leastPower = std::numeric_limits<double>::infinity();
    std::set<double> otherCaps; // caps the dropped options were measured at
    if (taskOp && taskOp.getOptionsAttr()) {
      for (Attribute a : taskOp.getOptionsAttr()) {
        auto opt = cast<OptionAttr>(a);
        SignatureAttr sig = opt.getSig();
        if (!fits(opt.getOpPoint(), sig.time(), sig.dynamicEnergy())) {
          ++dropped;
          if (opt.getOpPoint() && opt.getOpPoint().getPowerCap())
            otherCaps.insert(opt.getOpPoint().getPowerCap()->value);
          else if (sig.time() > 0)
            leastPower =
                std::min(leastPower, sdev + sig.dynamicEnergy() / sig.time());
          continue;
        }
        if (own && sig.time() == own.time() &&
            sig.dynamicEnergy() == own.dynamicEnergy()) {
          c.current[t] = c.options[t].size();
          found = true;
        }
        c.options[t].push_back({sig.time(), sig.dynamicEnergy(), sdev});
        c.opPoints[t].push_back(opt.getOpPoint());
        c.sigs[t].push_back(sig);
      }
      if (dropped && c.options[t].empty()) {
        std::string why;
        if (!otherCaps.empty()) {
          why = "its options were measured at ";
          for (auto it = otherCaps.begin(); it != otherCaps.end(); ++it)
            why += (it == otherCaps.begin() ? "" : ", ") +
                   formatQuantity(*it, Dimension::Power, 4);
          why += " (choose one of those, e.g. --energy-power-cap without "
                 "table=, or characterize at this cap)";
        }
        if (std::isfinite(leastPower))
          why += (why.empty() ? "" : "; ") +
                 std::string("its options without a cap draw ") +
                 formatQuantity(leastPower, Dimension::Power, 4) +
                 " or more on average";
        return taskOp.emitOpError("no operating point fits its device's "
                                  "power cap of ")
               << formatQuantity(*deviceCap, Dimension::Power, 4)
               << " (--energy-power-cap): " << why;
      }
    }
    c.droppedByCap += dropped;
    if (!found && !c.options[t].empty() && dropped) {
      // The task's own signature does not fit the cap (it is one of the
      // dropped options or none of them): it runs at its first fitting one.
      c.current[t] = 0;
      c.movedByCap.push_back(uint32_t(t));
      continue;
    }
    if (!found && deviceCap && task.duration > 0 &&
        sdev + task.d / task.duration > *deviceCap * (1 + 1e-9))
      c.graph.taskOps[t]->emitWarning("draws ")
          << formatQuantity(sdev + task.d / task.duration, Dimension::Power, 4)
          << " on average, above its device's power cap of "
          << formatQuantity(*deviceCap, Dimension::Power, 4)
          << " (--energy-power-cap): its signature does not hold under that "
             "cap";
    if (!found) {
      // The task's own signature is one more option (its only one when
      // it has no operating set).
      c.current[t] = c.options[t].size();
      c.options[t].push_back({task.duration, task.d, sdev});
      c.opPoints[t].push_back(OpPointAttr());
      c.sigs[t].push_back(own);
    }
  }
  return c;
}

FailureOr<std::vector<calculus::DagPoint>> energy::computeFrontier(
    ScheduleOp sched, const Choices &c, double step, double quantum,
    uint64_t crashBudget, uint64_t classSweepAbove, uint64_t convexAbove,
    bool keepChoices, calculus::DagFrontierResult &method, double fillDeadline,
    double fillSlowdown, uint64_t annealBudget) {
  calculus::DagFrontierSettings settings;
  settings.annealVisits = annealBudget;
  settings.fillDeadline = fillDeadline;
  settings.fillSlowdown = fillSlowdown;
  settings.step = step;
  settings.quantum = quantum;
  settings.keepChoices = keepChoices;
  settings.crashWorkBudget = crashBudget;
  settings.classSweepAbove = classSweepAbove;
  settings.convexAbove = convexAbove;
  // Progress on a terminal (runtime/Progress.h): phase, share of it done,
  // points found so far.
  progress::Line line("frontier of @" + sched.getSymName().str() + " (" +
                      std::to_string(c.graph.schedule.tasks.size()) +
                      " tasks)");
  std::string phase;
  if (progress::enabled())
    settings.progress = [&](const char *name, double fraction, size_t points,
                            double makespan) {
      std::string detail = std::to_string(points) + " points";
      if (std::isfinite(makespan))
        detail += ", at " + formatQuantity(makespan, Dimension::Time);
      if (phase != name) {
        phase = name;
        line.phase(phase, detail);
      } else {
        line.update(fraction, detail);
      }
    };
  // A quantum above a task's option times floors them to 0 (as
  // calculus/DagEnergy.cpp's quantize does): the search then cannot tell
  // those options apart, and a plan re-timed with the real times may find
  // nothing within its limit. Said, not refused: Perseus's convention.
  if (quantum > 0) {
    size_t zeroed = 0;
    double shortest = std::numeric_limits<double>::infinity();
    for (const auto &set : c.options)
      for (const calculus::Option &o : set)
        if (o.T > 0 && std::floor(o.T / quantum + 1e-9) < 1) {
          ++zeroed;
          shortest = std::min(shortest, o.T);
        }
    if (zeroed)
      mlir::emitWarning(sched.getLoc(), "frontier: quantum ")
          << formatQuantity(quantum, Dimension::Time) << " floors " << zeroed
          << " option times to 0 (the shortest is "
          << formatQuantity(shortest, Dimension::Time)
          << "): the search cannot tell those options apart; choose a "
             "quantum below the tasks' times";
  }
  std::vector<calculus::DagPoint> front;
  std::string err;
  bool ok = calculus::dagFrontier(c.graph.schedule, c.options, settings, front,
                                  err, &method);
  line.done();
  if (!ok)
    return sched.emitOpError("frontier: ") << err;
  // Every point's energy or time overflowed (a task of ~1e308 s): no
  // frontier, and nothing a plan could choose from.
  if (front.empty())
    return sched.emitOpError("frontier: no finite point (the schedule's "
                             "times or energies overflow a double)");
  Builder b(sched.getContext());
  std::string combos = method.combinations == UINT64_MAX
                           ? std::string(">= 2^64")
                           : std::to_string(method.combinations);
  std::string gap =
      std::isfinite(method.worstGap)
          ? llvm::formatv("every point within {0:F2}% of the optimum at its "
                          "time ({1}; worst at {2})",
                          100 * method.worstGap,
                          method.convexBound ? "convex-relaxation bound"
                                             : "Lagrangian bound",
                          formatQuantity(method.worstGapAt, Dimension::Time, 6))
                .str()
          : std::string("optimality not certified");
  std::string how =
      method.seriesParallel ? "exact: series-parallel decomposition over " +
                                  combos + " combinations"
      : method.exact ? "exact: all " + combos + " combinations enumerated"
      : method.classSweep
          ? "heuristic (class sweep over the schedule's repeated structure) "
            "over " +
                combos + " combinations; " + gap
          : "heuristic (crash and deadline sweeps) over " + combos +
                " combinations; " + gap;
  // Its times and energies are those of the floored option times (a plan
  // re-times its point with the real ones): said, so that "exact" is read
  // as exact for the quantized problem.
  if (quantum > 0)
    how += "; on option times floored to the quantum " +
           formatQuantity(quantum, Dimension::Time, 6);
  if (method.truncated) {
    using Why = calculus::DagFrontierResult::Truncation;
    std::string cause =
        method.truncation == Why::StepGuard
            ? std::string("the crash sweep reached its step guard")
        : method.truncation == Why::AboveFastest
            ? std::string("the sweeps ended above the fastest makespan")
            : llvm::formatv("the crash sweep's work budget (crash-budget={0}) "
                            "ran out",
                            crashBudget)
                  .str();
    std::string missing = llvm::formatv(
        "truncated: {0} at makespan {1}; between {2} (the fastest "
        "configuration) and {1} only {3} (docs/FRONTIER.md)",
        cause, formatQuantity(method.gapTo, Dimension::Time, 6),
        formatQuantity(method.gapFrom, Dimension::Time, 6),
        method.convexBound
            ? "the convex relaxation's rounded schedules and price points"
            : "price points");
    how += "; " + missing;
    // At the schedule's location only: the op itself may hold millions of
    // tasks.
    mlir::emitWarning(sched.getLoc(), "frontier ") << missing;
  }
  sched->setAttr(EnergyDialect::FrontierMethodAttrHelper::getNameStr(),
                 b.getStringAttr(how));
  return front;
}
