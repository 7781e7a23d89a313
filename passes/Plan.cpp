//===- Plan.cpp - --energy-plan -------------------------------------------===//
//
// A thin pass: the frontier is calculus/DagFrontier.h (passes/
// FrontierSupport.h reads the operating sets); calculus::choosePlanPoint
// picks the point for the objective within the limit, and this file writes
// it back (each task's signature and operating point, `energy.plan`).
// energy-translate --export-plan writes the plan file.
//
//===----------------------------------------------------------------------===//

#include "calculus/DagFrontier.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/FrontierSupport.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

namespace energy {
#define GEN_PASS_DEF_ENERGYPLAN
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

/// Options that tie exactly -- the same time, dynamic energy, static power
/// and spreads (a region doing no GPU work measures 0 at every clock) --
/// are one configuration to the frontier, which keeps the first; among a
/// task's ties the plan takes the clock its (device, stream) lane runs
/// before it (else the one after it), so a tie costs no clock switch.
static void keepClocksThroughTies(const Choices &c,
                                  std::vector<uint32_t> &choice) {
  const calculus::Schedule &s = c.graph.schedule;
  if (choice.size() != s.tasks.size())
    return;
  auto ties = [&](size_t t, uint32_t a, uint32_t b) {
    const calculus::Option &x = c.options[t][a], &y = c.options[t][b];
    if (x.T != y.T || x.d != y.d || x.s != y.s)
      return false;
    SignatureAttr sa = c.sigs[t][a], sb = c.sigs[t][b];
    return !sa || !sb ||
           (sa.sigmaTime() == sb.sigmaTime() &&
            sa.sigmaDynamic() == sb.sigmaDynamic());
  };
  auto follow = [&](size_t t, OpPointAttr want) {
    if (!want || c.opPoints[t][choice[t]] == want)
      return;
    for (uint32_t k = 0; k < c.options[t].size(); ++k)
      if (c.opPoints[t][k] == want && ties(t, choice[t], k)) {
        choice[t] = k;
        return;
      }
  };
  // Program order on a lane is index order.
  std::map<std::pair<uint32_t, uint32_t>, OpPointAttr> last;
  auto laneOf = [&](size_t t) {
    return std::make_pair(s.tasks[t].devices.empty() ? UINT32_MAX
                                                     : s.tasks[t].devices[0],
                          s.tasks[t].stream);
  };
  for (size_t t = s.tasks.size(); t-- > 0;) { // the clock after it
    follow(t, last[laneOf(t)]);
    last[laneOf(t)] = c.opPoints[t][choice[t]];
  }
  last.clear();
  for (size_t t = 0; t < s.tasks.size(); ++t) { // before it, where there is one
    follow(t, last[laneOf(t)]);
    last[laneOf(t)] = c.opPoints[t][choice[t]];
  }
}

namespace {

struct EnergyPlanPass : public energy::impl::EnergyPlanBase<EnergyPlanPass> {
  using EnergyPlanBase::EnergyPlanBase;

  void runOnOperation() override {
    energy::warnNestedSchedules(getOperation(), "energy-plan");
    if (!calculus::parsePlanObjective(objective)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: objective must be energy, edp, "
                      "ed2p or zeus; got '")
          << objective << "'";
      return signalPassFailure();
    }
    // Zeus's cost takes its knob and MAXPOWER; given to another objective
    // they would be ignored.
    if (objective == "zeus" &&
        !(eta >= 0 && eta <= 1 && maxPower > 0 && std::isfinite(maxPower))) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: objective=zeus needs eta in [0, 1] and "
                      "max-power=W > 0 (the job's GPUs' highest power limits "
                      "summed); got eta=")
          << formatNumber(eta) << " max-power=" << formatNumber(maxPower);
      return signalPassFailure();
    }
    if (objective != "zeus" && (maxPower != 0 || eta != 0.5)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: eta and max-power are Zeus's cost: give "
                      "them with objective=zeus");
      return signalPassFailure();
    }
    for (auto [name, value] :
         {std::pair<const char *, double>{"deadline", deadline},
          {"max-slowdown", maxSlowdown}})
      if (!(value >= 0) || !std::isfinite(value)) {
        mlir::emitError(moduleErrorLoc(getOperation()), "energy-plan: ")
            << name << "=" << formatNumber(value)
            << " must be finite and non-negative ("
            << (std::string(name) == "deadline" ? "seconds" : "percent") << ")";
        return signalPassFailure();
      }
    // A deadline of 0 s is none that a schedule could meet, not "no
    // deadline" (the option's default): refused rather than read as one.
    if (deadline.hasValue() && deadline == 0) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: deadline=0 is no makespan a schedule can "
                      "meet; give a positive deadline (seconds), or "
                      "max-slowdown=PCT (0: the fastest makespan)");
      return signalPassFailure();
    }
    // edp and ed2p trade time for energy: with no limit given, the limit is
    // the fastest makespan (max-slowdown=0) and there is nothing to trade.
    if (objective != "energy" && !(deadline > 0) && !(maxSlowdown > 0))
      mlir::emitWarning(moduleErrorLoc(getOperation()),
                        "energy-plan: objective=")
          << objective
          << " without deadline= or max-slowdown= plans at the fastest "
             "makespan (max-slowdown=0), where it has no time to trade; give "
             "a limit (e.g. max-slowdown=100)";
    // The caps are compared within one limit: without one it is the
    // fastest makespan of any cap, which only the fastest cap meets.
    if (choosePowerCap && !(deadline > 0) && !(maxSlowdown > 0))
      mlir::emitWarning(moduleErrorLoc(getOperation()),
                        "energy-plan: choose-power-cap without deadline= or "
                        "max-slowdown= plans at the fastest makespan of any "
                        "cap (max-slowdown=0), which only the fastest cap "
                        "meets; give a limit (e.g. max-slowdown=10)");
    // Zeus and Perseus take the slowdown as a fraction (0.05 for 5 %); here
    // it is a percentage, which a value below 1 may have mistaken.
    if (maxSlowdown > 0 && maxSlowdown < 1)
      mlir::emitRemark(moduleErrorLoc(getOperation()),
                       "energy-plan: max-slowdown=")
          << formatNumber(maxSlowdown) << " is " << formatNumber(maxSlowdown)
          << " % over the fastest makespan (a percentage, not a fraction: "
             "for 5 % write max-slowdown=5)";
    if (deadline > 0 && maxSlowdown > 0) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: give deadline or max-slowdown, not both");
      return signalPassFailure();
    }
    if (limitOn != "expected" && limitOn != "point") {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: limit-on must be expected or point; got '")
          << limitOn << "'";
      return signalPassFailure();
    }
    if (!(quantum >= 0) || !(step >= 0) || !std::isfinite(quantum) ||
        !std::isfinite(step)) {
      mlir::emitError(moduleErrorLoc(getOperation()),
                      "energy-plan: quantum and step must be finite and "
                      "non-negative (s)");
      return signalPassFailure();
    }
    auto schedules = llvm::to_vector(getOperation().getOps<ScheduleOp>());
    if (schedules.empty())
      mlir::emitWarning(moduleErrorLoc(getOperation()),
                        "energy-plan: no sched.schedule in the module; nothing "
                        "was planned");
    for (ScheduleOp sched : schedules)
      if (failed(choosePowerCap ? planAcrossCaps(sched) : planSchedule(sched)))
        return signalPassFailure();
  }

  /// choose-power-cap=true: the job's power cap chosen with its clocks. A
  /// device runs under one cap, and the job's devices under the same one
  /// (as --energy-power-cap sets it), so the best plan over both is the
  /// best over the caps of the clocks planned under each: the clocks are
  /// planned at every cap the tasks' options were measured at, against
  /// one limit -- deadline=, or max-slowdown= over the fastest makespan
  /// of any cap -- and the cap whose plan scores best is kept. Choosing the
  /// cap first (--energy-power-cap) judges each cap by the job at its
  /// highest clocks, which the clocks planned under another cap may beat.
  LogicalResult planAcrossCaps(ScheduleOp sched) {
    if (sched.hasNoWork()) // said, as without the option
      return planSchedule(sched);
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    StringRef choiceName =
        EnergyDialect::PowerCapChoiceAttrHelper::getNameStr();
    StringRef capName = EnergyDialect::PowerCapAttrHelper::getNameStr();
    sched->removeAttr(choiceName);
    FailureOr<Choices> all = Choices::build(sched, /*deviceCaps=*/false);
    if (failed(all))
      return failure();
    std::vector<double> caps = optionCaps(*all);
    if (caps.empty())
      return sched.emitError("energy-plan: choose-power-cap: no task of @")
             << sched.getSymName()
             << " has options measured at a power cap (fill the operating "
                "sets from a DB characterized with --power-limits)";
    // The schedule as it stands (its tasks' own signatures, no cap).
    double beforeT = 0;
    double beforeE = calculus::dagEnergy(all->graph.schedule, all->options,
                                         all->current, 0, &beforeT);
    std::set<StringRef> capped = cappedDevices(*all);
    auto setCap = [&](ScheduleOp s, double cap) {
      auto attr = OpPointAttr::get(ctx, std::nullopt, std::nullopt, Real{cap},
                                   std::nullopt);
      for (sched::DeviceOp dev : s.getBody().getOps<sched::DeviceOp>())
        if (capped.count(dev.getSymName()))
          dev->setAttr(capName, attr);
        else
          dev->removeAttr(capName);
    };
    // Each cap's row: the job under it at its highest clocks, its fastest
    // configuration, then its plan.
    struct Row {
      double cap = 0;
      std::vector<uint32_t> choice;
      double jobT = 0, jobE = 0, fastest = 0;
      bool planned = false;
      /// No configuration of the job runs under the cap (a task with no
      /// option at it, or none that fits): no bound is missing for it.
      bool none = false;
      double T = 0, E = 0, bound = 0;
      std::string why; ///< not planned: why
    };
    std::vector<Row> rows;
    std::vector<std::string> lackingCaps;
    for (double cap : caps) {
      Row r;
      r.cap = cap;
      size_t lacking = 0;
      r.choice = choiceAtCap(*all, cap, lacking);
      if (r.choice.empty()) {
        std::string task =
            SymbolTable::getSymbolName(all->graph.taskOps[lacking]).str();
        r.why = "@" + task + " has no option at this cap";
        r.none = true;
        lackingCaps.push_back(formatQuantity(cap, Dimension::Power, 4) + " (@" +
                              task + ")");
      }
      rows.push_back(std::move(r));
    }
    if (!lackingCaps.empty())
      mlir::emitWarning(sched.getLoc(), "energy-plan: choose-power-cap: ")
          << "caps left out, without an option of every task: "
          << llvm::join(lackingCaps, ", ");
    // A copy of the schedule under a cap, each task at its option of it
    // with the highest clock -- planned ones and those with recorded
    // starts too, as the plan re-times the schedule and rewrites their
    // clocks -- built, planned or evaluated without a word: `why` gets
    // the first error.
    auto underCap = [&](const Row &r, std::string &why,
                        llvm::function_ref<LogicalResult(ScheduleOp)> fn) {
      ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error && why.empty())
          why = d.str();
        return success();
      });
      OpBuilder ob(sched);
      ob.setInsertionPointAfter(sched);
      auto copy = cast<ScheduleOp>(ob.clone(*sched.getOperation()));
      setCap(copy, r.cap);
      // The copy's options in the original's order (`r.choice` indexes
      // them), every cap's.
      FailureOr<Choices> every = Choices::build(copy, /*deviceCaps=*/false);
      LogicalResult ok = failure();
      if (succeeded(every)) {
        runAtChoice(*every, r.choice, /*evenPlanned=*/true);
        ok = fn(copy);
      }
      copy->erase();
      if (failed(ok) && why.empty())
        why = "no plan";
      return ok;
    };
    for (Row &r : rows) {
      if (!r.why.empty())
        continue;
      (void)underCap(r, r.why, [&](ScheduleOp copy) -> LogicalResult {
        // The original's options build (above), so a copy's that do not
        // fit its cap: no configuration runs under it.
        FailureOr<Choices> c = Choices::build(copy);
        if (failed(c)) {
          r.none = true;
          return failure();
        }
        r.jobE = calculus::dagEnergy(c->graph.schedule, c->options, c->current,
                                     0, &r.jobT);
        calculus::DagPoint fastest = allFastest(*c);
        calculus::dagEnergy(c->graph.schedule, c->options, fastest.choice, 0,
                            &r.fastest);
        if (limitOn == "expected" && varies(*c))
          r.fastest = std::max(r.fastest, expectedMakespan(*c, fastest));
        return success();
      });
    }
    // Each cap left out, as a note of the pass's error.
    auto withRows = [&](InFlightDiagnostic d) {
      for (const Row &r : llvm::reverse(rows)) // highest first
        if (!r.planned)
          d.attachNote(sched.getLoc())
              << formatQuantity(r.cap, Dimension::Power, 4) << ": " << r.why;
      return d;
    };
    double reference = std::numeric_limits<double>::infinity();
    for (const Row &r : rows)
      if (r.why.empty())
        reference = std::min(reference, r.fastest);
    if (!std::isfinite(reference))
      return withRows(
          sched.emitError("energy-plan: choose-power-cap: no power cap of @")
          << sched.getSymName() << " can be planned");
    double limit =
        deadline > 0 ? double(deadline) : reference * (1 + maxSlowdown / 100);
    // Every cap planned against that one limit, as a deadline, without its
    // summary (the chosen cap's is printed below).
    capLimit = limit;
    llvm::scope_exit clearLimit([&] {
      capLimit.reset();
      capTrial = false;
      capBefore.reset();
    });
    capTrial = true;
    calculus::PlanObjective objective = planObjective();
    Row *best = nullptr;
    double bestScore = std::numeric_limits<double>::infinity();
    bool boundHolds = true; // every cap planned or past the limit
    for (Row &r : rows) {
      if (!r.why.empty()) {
        boundHolds = boundHolds && r.none;
        continue;
      }
      if (r.fastest > limit * (1 + 1e-12)) {
        r.why = "its fastest makespan, " +
                formatQuantity(r.fastest, Dimension::Time, 5) +
                ", is past the limit";
        continue;
      }
      if (failed(underCap(r, r.why, [&](ScheduleOp copy) -> LogicalResult {
            if (failed(planSchedule(copy)))
              return failure();
            r.bound = planAsRun(copy, r.T, r.E);
            return success();
          }))) {
        boundHolds = false;
        continue;
      }
      r.planned = true;
      double score = calculus::planScore(objective, r.T, r.E);
      if (score < bestScore) {
        bestScore = score;
        best = &r;
      }
    }
    if (!best)
      return withRows(
          sched.emitError("energy-plan: choose-power-cap: no power cap of @")
          << sched.getSymName() << " has a plan within the limit "
          << formatQuantity(limit, Dimension::Time, 6));
    // The chosen cap planned again on the schedule itself, its warnings
    // said.
    setCap(sched, best->cap);
    runAtChoice(*all, best->choice, /*evenPlanned=*/true);
    capTrial = false;
    capBefore = Before{beforeT, beforeE, reference};
    if (failed(planSchedule(sched)))
      return failure();
    // The plan as written on the schedule (the same as the copy's).
    planAsRun(sched, best->T, best->E);
    double bound = std::numeric_limits<double>::infinity();
    for (const Row &r : rows)
      if (r.planned)
        bound = std::min(bound, r.bound);
    llvm::SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("power_cap_W", b.getF64FloatAttr(best->cap)),
        b.getNamedAttr("T_s", b.getF64FloatAttr(best->jobT)),
        b.getNamedAttr("E_J", b.getF64FloatAttr(best->jobE)),
        b.getNamedAttr("objective",
                       b.getStringAttr("clocks-planned-at-each-cap")),
        b.getNamedAttr("rows", b.getStringAttr("the tasks' options")),
        b.getNamedAttr("limit_T_s", b.getF64FloatAttr(limit)),
        b.getNamedAttr("planned_T_s", b.getF64FloatAttr(best->T)),
        b.getNamedAttr("planned_E_J", b.getF64FloatAttr(best->E)),
        b.getNamedAttr("before_T_s", b.getF64FloatAttr(beforeT)),
        b.getNamedAttr("before_E_J", b.getF64FloatAttr(beforeE))};
    if (!(deadline > 0))
      fields.push_back(
          b.getNamedAttr("max_slowdown_pct", b.getF64FloatAttr(maxSlowdown)));
    // Where every cap was planned or ruled out (no option of some task, its
    // fastest past the limit): no configuration within the limit at any
    // cap uses less than the least of their certificates, and a plan at
    // that bound is the least energy over every cap and clock.
    if (boundHolds) {
      fields.push_back(
          b.getNamedAttr("lower_bound_J", b.getF64FloatAttr(bound)));
      fields.push_back(b.getNamedAttr(
          "exact", b.getBoolAttr(best->E <= bound * (1 + 1e-9))));
    }
    sched->setAttr(choiceName, b.getDictionaryAttr(fields));
    if (summary) {
      auto q = [](double v, Dimension d) { return formatQuantity(v, d, 5); };
      llvm::raw_ostream &os = llvm::errs();
      os << "@" << sched.getSymName() << " power cap and clocks (objective "
         << this->objective << ", limit " << q(limit, Dimension::Time)
         << "; each cap: the job at its highest clocks, then its clocks "
            "planned)\n";
      for (const Row &r : llvm::reverse(rows)) {
        os << "  " << q(r.cap, Dimension::Power);
        if (r.jobT > 0)
          os << "  job " << q(r.jobT, Dimension::Time) << "  "
             << q(r.jobE, Dimension::Energy);
        if (r.planned)
          os << "  plan " << q(r.T, Dimension::Time) << "  "
             << q(r.E, Dimension::Energy);
        else
          os << "  not planned: " << r.why;
        if (&r == best)
          os << "  <- chosen"
             << (beforeE > 0 ? llvm::formatv(": {0:F2}% {1} energy than the "
                                             "schedule as it stood ({2}, {3})",
                                             100 * std::fabs(1 - r.E / beforeE),
                                             r.E <= beforeE ? "less" : "more",
                                             q(beforeT, Dimension::Time),
                                             q(beforeE, Dimension::Energy))
                                   .str()
                             : std::string());
        os << "\n";
      }
    }
    return success();
  }

  /// A planned schedule's `energy.plan` as it will run (with its clock
  /// switches where they cost): T, E; returns its certificate.
  static double planAsRun(ScheduleOp sched, double &T, double &E) {
    DictionaryAttr plan = sched->getAttrOfType<DictionaryAttr>(
        EnergyDialect::PlanAttrHelper::getNameStr());
    auto field = [&](StringRef name, StringRef otherwise) {
      auto v = plan.getAs<FloatAttr>(name);
      return (v ? v : plan.getAs<FloatAttr>(otherwise)).getValueAsDouble();
    };
    T = field("T_with_switches_s", "T_s");
    E = field("E_with_switches_J", "E_J");
    return field("lower_bound_J", "lower_bound_J");
  }

  /// choose-power-cap: the limit every cap is planned against (as a
  /// deadline), and whether the plan under way is a cap's trial (no
  /// summary) rather than the chosen cap's.
  std::optional<double> capLimit;
  bool capTrial = false;
  /// The chosen cap's plan counts from the schedule as it stood (before any
  /// cap), and its fastest makespan is that of any cap.
  struct Before {
    double T, E, fastest;
  };
  std::optional<Before> capBefore;
  /// The deadline and slowdown a plan is made against: the options', or
  /// choose-power-cap's limit.
  double deadlineGiven() const {
    return capLimit ? *capLimit : double(deadline);
  }
  double slowdownGiven() const { return capLimit ? 0.0 : double(maxSlowdown); }

  /// The objective with its parameters (checked in runOnOperation).
  calculus::PlanObjective planObjective() const {
    calculus::PlanObjective o = *calculus::parsePlanObjective(objective);
    o.eta = eta;
    o.maxPower = maxPower;
    return o;
  }

  /// A plan's figures, from the frontier to the summary.
  struct Outcome {
    double baseT = 0, baseE = 0; ///< every task at its current signature
    /// Some tasks' own signatures draw more than their power cap: the
    /// baseline runs them at their first option within it.
    bool movedByCap = false;
    /// choose-power-cap: the baseline is the schedule as it stood, before
    /// the chosen cap.
    bool beforeCap = false;
    double fastest = 0, limit = 0;
    const calculus::DagPoint *best = nullptr; ///< the chosen frontier point
    /// The chosen point as it will run: with its clock switches where the
    /// devices declare what a switch costs (`switching`).
    double T = 0, E = 0;
    /// The chosen point as it will run without its clock switches (the
    /// frontier point's own figures, re-timed where a quantum floored them).
    double pointT = 0, pointE = 0;
    uint32_t switches = 0;
    bool switching = false;
    double saving = 0; ///< % less energy than the baseline
    /// With a quantum: the all-fastest fallback was chosen because no
    /// frontier point meets the limit re-timed (not because it scores best).
    bool fellBack = false;
    /// Some frontier point meets the limit as it will run (with its clock
    /// switches, its real option times).
    bool frontierMeets = false;
    /// With a quantum: the chosen candidate is the all-fastest fallback.
    bool isFallback = false;
    /// With a quantum: the chosen candidate is the configuration improved
    /// at the limit on the real times (no frontier point).
    bool improvedOnRealTimes = false;
    /// limit-on=expected where times or delays vary: the fastest
    /// configuration's expected makespan (0: nothing varies), and the point
    /// makespan the plan was chosen under (the limit less its jitter).
    double fastestExpected = 0, pointLimit = 0;
    double lowerBound = 0; ///< the certificate at the limit
    double gapPct = -1;    ///< the plan above it, %; -1: no bound
    /// The plan's expected makespan over the dependencies where its tasks'
    /// times or delays vary (CALCULUS.md section 6); 0: nothing varies.
    double expectedT = 0;
  };

  LogicalResult planSchedule(ScheduleOp sched) {
    if (sched.hasNoWork()) {
      mlir::emitWarning(sched.getLoc(), "energy-plan: @")
          << sched.getSymName() << " has no tasks: nothing was planned";
      return success();
    }
    FailureOr<Choices> c = Choices::build(sched);
    if (failed(c))
      return failure();
    // A schedule that cannot be timed (its dependencies and stream order
    // form a cycle) has no makespan to plan against: said at the schedule,
    // as --sched-timing says it.
    {
      std::vector<double> start;
      if (failed(c->graph.startTimes(sched, start)))
        return failure();
    }
    // (Under choose-power-cap the cap was the choice: its summary says.)
    if (!capLimit && llvm::all_of(c->options, [](const auto &set) {
          return set.size() < 2;
        }))
      mlir::emitWarning(sched.getLoc(), "energy-plan: no task of @")
          << sched.getSymName()
          << (c->droppedByCap
                  ? " has more than one option within its device's power cap "
                    "(its options at other caps left out)"
                  : " has an operating set with more than one option")
          << ": the plan is the schedule as it is";
    if (!c->movedByCap.empty()) {
      std::string names;
      for (size_t i = 0; i < c->movedByCap.size() && i < 4; ++i)
        names += (i ? ", @" : "@") + c->graph.taskOps[c->movedByCap[i]]
                                         ->getAttrOfType<StringAttr>(
                                             SymbolTable::getSymbolAttrName())
                                         .getValue()
                                         .str();
      if (c->movedByCap.size() > 4)
        names += ", ...";
      mlir::emitWarning(sched.getLoc(), "energy-plan: ")
          << c->movedByCap.size()
          << " task(s) have their own signature outside their device's "
             "power cap (measured at another cap, or drawing more than it "
             "on average: "
          << names
          << "): the baseline and the plan run them at their first option "
             "within the cap";
    }
    // The frontier searches the option times floored to `quantum`
    // (Perseus's convention); the plan's figures -- baseline, fastest,
    // limit and the plan itself -- are as the schedule will run, with the
    // real option times. The frontier's certificate still bounds the real
    // energy: flooring shortens every configuration, so a configuration
    // within the limit is within it floored too, and uses at least its
    // floored energy.
    Outcome o;
    o.movedByCap = !c->movedByCap.empty();
    o.baseE = calculus::dagEnergy(c->graph.schedule, c->options, c->current, 0,
                                  &o.baseT);
    // A cap chosen from a table of the job's measured rows: the baseline
    // the plan counts from is the tasks' options under that cap, which may
    // not be how the job ran there (options measured without a cap fit it
    // by their mean power only). Said where the two differ by over 5 %.
    if (auto choice = sched->getAttrOfType<DictionaryAttr>(
            EnergyDialect::PowerCapChoiceAttrHelper::getNameStr())) {
      auto rows = choice.getAs<StringAttr>("rows");
      auto rowT = choice.getAs<FloatAttr>("T_s");
      if (rows && rowT && rows.getValue() != "the tasks' options" &&
          std::fabs(o.baseT - rowT.getValueAsDouble()) >
              0.05 * rowT.getValueAsDouble())
        mlir::emitWarning(sched.getLoc(), "energy-plan: the baseline under ")
            << "the chosen power cap runs "
            << formatQuantity(o.baseT, Dimension::Time, 5)
            << " where the table's row at that cap says "
            << formatQuantity(rowT.getValueAsDouble(), Dimension::Time, 5)
            << ": the tasks' options were not measured under the cap (fill "
               "them from a DB characterized with --power-limits), so the "
               "plan's saving is counted from a job that did not run";
    }
    // The all-fastest configuration: every task at its fastest option. No
    // configuration is faster (a longest path only grows with its tasks'
    // times), so its makespan is the fastest.
    calculus::DagPoint fastest = allFastest(*c);
    calculus::dagEnergy(c->graph.schedule, c->options, fastest.choice, 0,
                        &o.fastest);
    fastest.E = calculus::dagEnergy(c->graph.schedule, c->options,
                                    fastest.choice, quantum, &fastest.T);
    // limit-on=expected: where times or delays vary, the limit holds the
    // expected makespan (what a measurement averages), and a slowdown is
    // over the fastest configuration's expected makespan. The frontier is
    // a frontier of point makespans, so the plan is chosen under a point
    // limit lowered by the jitter the chosen plan adds, until its expected
    // makespan meets the limit (a few rounds: the jitter changes little
    // between neighbouring plans).
    bool onExpected = limitOn == "expected" && varies(*c);
    // Where devices declare what a clock switch costs, a frontier point
    // (chosen without its switches) may meet the limit only before them,
    // while the all-fastest configuration -- no switch where every task's
    // fastest option is one clock -- still meets it: a candidate too.
    bool declaresSwitches =
        llvm::any_of(c->graph.deviceOps,
                     [](sched::DeviceOp d) { return bool(switchCostOf(d)); });
    o.fastestExpected = onExpected ? expectedMakespan(*c, fastest) : 0;
    double fastestMean = std::max(o.fastest, o.fastestExpected);
    o.limit = deadlineGiven() > 0 ? deadlineGiven()
                                  : fastestMean * (1 + slowdownGiven() / 100);
    // A frontier filled and annealed at a point limit, with the all-fastest
    // configuration after its `size` points: with a quantum the frontier's
    // points may all run past the limit once re-timed (a point filled into
    // floored slack), and it meets any limit at or above the fastest
    // makespan; where the limit holds the expected makespan it is the
    // fallback too (the frontier keeps one configuration per point
    // makespan, not the one that jitters least).
    struct Front {
      std::vector<calculus::DagPoint> points;
      calculus::DagFrontierResult method;
      size_t size = 0;
      Attribute how; ///< its energy.frontier_method
      /// The index of the configuration improved on the real times (a
      /// quantum), none where it was not added.
      size_t realAt = std::numeric_limits<size_t>::max();
    };
    bool built = false;
    auto build = [&](double pointLimit,
                     bool asGiven) -> FailureOr<std::shared_ptr<Front>> {
      auto f = std::make_shared<Front>();
      // A second frontier's warnings repeat the first's: errors only.
      std::optional<ScopedDiagnosticHandler> quiet;
      if (built)
        quiet.emplace(&getContext(), [](Diagnostic &d) {
          return success(d.getSeverity() != DiagnosticSeverity::Error);
        });
      built = true;
      // Without a spread: the frontier filled and annealed at the caller's
      // limit as given.
      auto points = computeFrontier(
          sched, *c, step, quantum, crashBudget, classSweepAbove, convexAbove,
          true, f->method, asGiven ? deadlineGiven() : pointLimit,
          asGiven && !(deadlineGiven() > 0) ? slowdownGiven() / 100 : -1.0,
          annealBudget);
      if (failed(points))
        return failure();
      f->points = std::move(*points);
      for (calculus::DagPoint &p : f->points)
        keepClocksThroughTies(*c, p.choice);
      f->size = f->points.size();
      f->how =
          sched->getAttr(EnergyDialect::FrontierMethodAttrHelper::getNameStr());
      if (quantum > 0 || onExpected || declaresSwitches)
        f->points.push_back(fastest);
      // With switch costs, the baseline too: it may switch less than the
      // all-fastest configuration (a pass fastest below the top clock) and
      // meet a limit that every point does not with its switches.
      if (declaresSwitches && c->current != fastest.choice) {
        calculus::DagPoint base;
        base.choice = c->current;
        base.E = calculus::dagEnergy(c->graph.schedule, c->options, base.choice,
                                     quantum, &base.T);
        f->points.push_back(std::move(base));
      }
      // With a quantum the frontier is filled and annealed at the limit on
      // floored times: re-timed, that point may run past the limit and
      // the best point that fits stop short of it (GPT-3/A40, 24
      // microbatches, 1 ms, at 12.458 s: 20,768 J against 20,608 J planned
      // without the quantum). That point, filled and annealed again at the
      // limit on the real times, is a candidate too (no frontier point).
      if (quantum > 0 && annealBudget > 0)
        if (std::optional<calculus::DagPoint> real =
                improvedOnRealTimes(*c, *f, fastest, pointLimit)) {
          keepClocksThroughTies(*c, real->choice);
          f->realAt = f->points.size();
          f->points.push_back(std::move(*real));
        }
      return f;
    };
    // A plan: the point chosen on a frontier under a point limit.
    struct Attempt {
      Outcome o; ///< o.best points into `front`
      std::shared_ptr<Front> front;
    };
    // Under a point limit below the caller's, no candidate may fit (clock
    // switches lengthen them all): nullopt, and the search moves up; at
    // the caller's limit that is the pass's error.
    auto attempt = [&](std::shared_ptr<Front> f,
                       double pointLimit) -> FailureOr<std::optional<Attempt>> {
      Attempt a{o, f};
      a.o.pointLimit = pointLimit;
      bool none = false;
      if (failed(choose(sched, *c, f->points, f->size, pointLimit, a.o, false,
                        pointLimit < o.limit ? &none : nullptr)))
        return failure();
      if (none)
        return std::optional<Attempt>();
      a.o.expectedT = expectedAsRun(*c, a.o);
      return std::optional<Attempt>(std::move(a));
    };
    auto meets = [&](const Attempt &a) {
      return !onExpected || within(a.o.expectedT, o.limit);
    };
    calculus::PlanObjective objectiveKind = planObjective();
    auto score = [&](const Attempt &a) {
      return calculus::planScore(objectiveKind, a.o.T, a.o.E);
    };
    // The point limit x is searched for the largest whose plan's expected
    // makespan g(x) meets the limit L (g(x) >= T, the plan's point
    // makespan, and g grows with x but not strictly): from x = L less the
    // fastest configuration's jitter, down by a plan's excess (its
    // successor must be that much faster), up by a plan's slack (or to L
    // where nothing fits under x), halving a bracket, over the first
    // frontier's points; then the frontier is filled and annealed again at
    // the x found, and the best plan that meets L is kept. Two frontiers at
    // most.
    double x = std::max(o.limit - (fastestMean - o.fastest),
                        std::min(o.fastest, o.limit));
    bool asGiven = x == o.limit;
    FailureOr<std::shared_ptr<Front>> first = build(x, asGiven);
    if (failed(first))
      return failure();
    FailureOr<std::optional<Attempt>> tried = attempt(*first, x);
    if (failed(tried))
      return failure();
    if (!*tried) { // nothing fits under x: the caller's limit
      x = o.limit;
      tried = attempt(*first, x);
      if (failed(tried))
        return failure();
    }
    std::optional<Attempt> last = std::move(*tried);
    std::optional<Attempt> kept;
    auto keep = [&](Attempt &a) {
      if (meets(a) && (!kept || score(a) < score(*kept)))
        kept = a;
    };
    double meetsAt = -1, failsAt = std::numeric_limits<double>::infinity();
    double stride = 1; // doubles with every plan in a row past the limit
    constexpr int rounds = 16;
    for (int round = 1;; ++round) {
      double at = last->o.pointLimit, g = last->o.expectedT;
      if (meets(*last))
        meetsAt = std::max(meetsAt, at);
      else
        failsAt = std::min(failsAt, std::min(at, last->o.T));
      keep(*last);
      if (!onExpected || round > rounds || g <= 0)
        break;
      double next;
      if (g > o.limit) {
        next = std::min(at, last->o.T) - stride * (g - o.limit);
        stride *= 2;
      } else {
        next = at + (o.limit - g);
        stride = 1;
      }
      if (meetsAt >= 0 && failsAt < std::numeric_limits<double>::infinity() &&
          !(next > meetsAt && next < failsAt))
        next = (meetsAt + failsAt) / 2;
      next = std::clamp(next, std::min(o.fastest, o.limit), o.limit);
      // Nothing left to search, or a plan that meets the limit within
      // 0.01 % of it of the best known.
      if (next >= failsAt || next <= meetsAt ||
          (kept && (std::fabs(next - at) <= 1e-4 * o.limit ||
                    failsAt - meetsAt <= 1e-4 * o.limit)))
        break;
      tried = attempt(*first, next);
      if (failed(tried))
        return failure();
      if (!*tried) // nothing fits under `next`, nor lower
        break;
      last = std::move(*tried);
    }
    if (kept && kept->o.pointLimit != x) {
      FailureOr<std::shared_ptr<Front>> again =
          build(kept->o.pointLimit, false);
      if (failed(again))
        return failure();
      FailureOr<std::optional<Attempt>> filled =
          attempt(*again, kept->o.pointLimit);
      if (failed(filled))
        return failure();
      if (*filled)
        keep(**filled);
    }
    Attempt chosen = kept ? *kept : *last;
    o = chosen.o;
    sched->setAttr(EnergyDialect::FrontierMethodAttrHelper::getNameStr(),
                   chosen.front->how);
    std::vector<calculus::DagPoint> &front = chosen.front->points;
    calculus::DagFrontierResult &method = chosen.front->method;
    size_t frontierSize = chosen.front->size;
    // No plan met the limit: the all-fastest configuration where it
    // averages less, as it will run (it meets any limit a slowdown gives
    // where it has no clock switches).
    if (onExpected && !within(o.expectedT, o.limit)) {
      Outcome alt = o;
      if (failed(choose(sched, *c, front, frontierSize, o.limit, alt,
                        /*onlyFallback=*/true)))
        return failure();
      alt.expectedT = expectedAsRun(*c, alt);
      alt.pointLimit = alt.T;
      if (alt.expectedT < o.expectedT)
        o = alt;
    }
    if (onExpected && !within(o.expectedT, o.limit))
      mlir::emitWarning(sched.getLoc(), "energy-plan: the plan's expected "
                                        "makespan ")
          << formatQuantity(o.expectedT, Dimension::Time, 6)
          << " runs past the limit "
          << formatQuantity(o.limit, Dimension::Time, 6)
          << " (its point makespan " << formatQuantity(o.T, Dimension::Time, 6)
          << " meets it): no configuration was found whose expected makespan "
             "meets it";
    o.isFallback = size_t(o.best - front.data()) >= frontierSize;
    if (o.isFallback && declaresSwitches && o.best->choice == c->current) {
      InFlightDiagnostic w = mlir::emitWarning(sched.getLoc(), "energy-plan: ");
      if (!o.frontierMeets)
        w << "no frontier point meets the limit "
          << formatQuantity(o.limit, Dimension::Time, 6)
          << " with its clock switches; ";
      else
        w << "the frontier points within the limit cost more with their "
             "clock switches than the baseline; ";
      w << "the plan keeps every task at its current option (the baseline, "
        << formatQuantity(o.T, Dimension::Time, 6) << " and "
        << formatQuantity(o.E, Dimension::Energy, 6) << " with its switches)";
      if (!o.frontierMeets)
        w << ": allow more slowdown to save energy";
    }
    // After the frontier: the all-fastest configuration, then (a quantum)
    // the configuration improved on the real times.
    o.improvedOnRealTimes =
        size_t(o.best - front.data()) == chosen.front->realAt;
    if (o.fellBack)
      mlir::emitWarning(sched.getLoc(), "energy-plan: every frontier point "
                                        "runs past the limit once re-timed "
                                        "with the real option times; the plan "
                                        "is the all-fastest configuration: "
                                        "use a smaller quantum, or none");
    writeBack(*c, *o.best);
    // Under choose-power-cap the plan counts from the schedule as it stood,
    // before any cap, and the fastest makespan is that of any cap.
    if (capBefore && !capTrial) {
      o.baseT = capBefore->T;
      o.baseE = capBefore->E;
      o.fastest = capBefore->fastest;
      o.movedByCap = false;
      o.beforeCap = true;
    }
    // What the plan saves as it will run: with its clock switches.
    o.saving = o.baseE > 0 ? 100 * (1 - o.E / o.baseE) : 0;
    if (std::fabs(o.saving) <
        5e-13) // equal energies print as 0.00%, not -0.00%
      o.saving = 0;
    // The certificate at the limit, not at the plan's own time: no
    // configuration within the limit uses less than this (the bound is
    // non-increasing in the makespan). Exact frontiers: their least energy
    // within the limit (the plan itself when the objective is energy and
    // no quantum floors the times).
    if (method.exact) {
      o.lowerBound = std::numeric_limits<double>::infinity();
      for (const calculus::DagPoint &p :
           ArrayRef(front).take_front(frontierSize))
        if (within(p.T, o.limit))
          o.lowerBound = std::min(o.lowerBound, p.E);
    } else {
      o.lowerBound = method.lowerBoundAt(o.limit);
    }
    if (!std::isfinite(o.lowerBound))
      o.lowerBound = 0;
    // The gap is the plan's as it runs, its clock switches included (the
    // bound leaves them out: it holds for the switched energy too).
    o.lowerBound = std::min(o.lowerBound, o.E);
    o.gapPct =
        o.lowerBound > 0 ? 100 * (o.E - o.lowerBound) / o.lowerBound : -1;
    recordPlan(sched, method, frontierSize, o);
    if (summary && !capTrial)
      printSummary(sched, ArrayRef(front).take_front(frontierSize), o);
    return success();
  }

  /// The frontier's least-energy point that fits `limit` on the real
  /// option times (of the 64 slowest within it on floored ones; else the
  /// all-fastest configuration), improved there on the real times
  /// (calculus::improveAtDeadline).
  template <typename Front>
  std::optional<calculus::DagPoint>
  improvedOnRealTimes(const Choices &c, const Front &f,
                      const calculus::DagPoint &fastest, double limit) {
    const calculus::Schedule &s = c.graph.schedule;
    const std::vector<uint32_t> *from = &fastest.choice;
    size_t tries = 0;
    for (size_t i = f.size; i-- > 0 && tries < 64;) {
      const calculus::DagPoint &p = f.points[i];
      if (p.choice.empty() || !within(p.T, limit))
        continue;
      ++tries;
      double T = 0;
      calculus::dagEnergy(s, c.options, p.choice, 0, &T);
      if (within(T, limit)) {
        from = &p.choice;
        break;
      }
    }
    calculus::DagFrontierSettings settings;
    settings.annealVisits = annealBudget;
    calculus::DagPoint out;
    std::string err;
    if (!calculus::improveAtDeadline(s, c.options, *from, limit, settings, out,
                                     err))
      return std::nullopt;
    return out;
  }

  /// Picks the frontier point for the objective within the limit. Devices
  /// that declare what a clock switch costs (`energy.switch`) have every
  /// candidate weighed with its switches, as --energy-emit-dvfs will insert
  /// them (a point whose switches push it past the limit, or cost more
  /// than its clocks save, loses).
  /// `front`: the frontier's `frontierPoints` points, then (with a
  /// quantum, a limit on the expected makespan, or clock switches that
  /// cost) the all-fastest fallback, then (with a quantum) a configuration
  /// improved at the limit on the real times.
  LogicalResult choose(ScheduleOp sched, const Choices &c,
                       const std::vector<calculus::DagPoint> &front,
                       size_t frontierPoints, double limit, Outcome &o,
                       bool onlyFallback = false, bool *none = nullptr) {
    const calculus::Schedule &s = c.graph.schedule;
    std::vector<calculus::SwitchCost> switchCost(s.devices.size());
    for (size_t dv = 0; dv < c.graph.deviceOps.size(); ++dv) {
      if (SignatureAttr sig = switchCostOf(c.graph.deviceOps[dv])) {
        switchCost[dv] = {true, sig.time(), sig.dynamicEnergy()};
        o.switching = true;
      }
    }
    std::vector<std::vector<int64_t>> clocks;
    if (o.switching) {
      DenseMap<Attribute, int64_t> ids;
      clocks.resize(c.opPoints.size());
      for (size_t t = 0; t < c.opPoints.size(); ++t)
        for (OpPointAttr op : c.opPoints[t])
          clocks[t].push_back(
              op ? ids.try_emplace(op, int64_t(ids.size())).first->second : -1);
    }
    // The baseline as it runs too: its tasks' clocks switch where they
    // differ along a lane (a plan of the same configuration saves 0 %, not
    // the switches' cost).
    if (o.switching)
      o.baseE = calculus::dagEnergyWithSwitches(
          s, c.options, c.current, clocks, switchCost, 0, &o.baseT, nullptr);
    struct Scored {
      double T, E;
      uint32_t switches = 0;
    };
    // As the point will run: its real option times (a frontier searched
    // on floored ones is re-timed) and its clock switches.
    auto withSwitches = [&](const calculus::DagPoint &p) -> Scored {
      Scored r{p.T, p.E};
      if (o.switching)
        r.E = calculus::dagEnergyWithSwitches(s, c.options, p.choice, clocks,
                                              switchCost, 0, &r.T, &r.switches);
      else if (quantum > 0)
        r.E = calculus::dagEnergy(s, c.options, p.choice, 0, &r.T);
      return r;
    };
    // Each candidate's cost as it will run, kept for the one chosen (with
    // clock switches it is a re-timing of the schedule).
    std::vector<Scored> costs(front.size());
    bool frontierMeets = false;
    std::optional<size_t> chosen = calculus::choosePlanPoint(
        front, planObjective(), limit, [&](const calculus::DagPoint &p) {
          size_t i = size_t(&p - front.data());
          Scored &cost = costs[i];
          if (onlyFallback && i < frontierPoints) // not a candidate
            cost = {std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
          else
            cost = withSwitches(p);
          if (i < frontierPoints && within(cost.T, limit))
            frontierMeets = true;
          return std::make_pair(cost.T, cost.E);
        });
    if (!chosen && none) {
      *none = true;
      return success();
    }
    if (!chosen) {
      // Enough digits that the two never print alike (a limit pasted from
      // a rounded summary can sit just below the fastest makespan).
      int digits = 6;
      while (digits < 17 &&
             formatQuantity(limit, Dimension::Time, digits) ==
                 formatQuantity(o.fastest, Dimension::Time, digits))
        ++digits;
      return sched.emitOpError("energy-plan: no frontier point meets the "
                               "deadline ")
             << formatQuantity(limit, Dimension::Time, digits)
             << (o.switching ? " with its clock switches" : "")
             << "; the fastest makespan is "
             << formatQuantity(o.fastest, Dimension::Time, digits);
    }
    o.best = &front[*chosen];
    // (The all-fastest candidate is there for a quantum; where the limit
    // holds the expected makespan it is there without one too.)
    o.frontierMeets = frontierMeets;
    o.fellBack = quantum > 0 && *chosen == frontierPoints && !frontierMeets &&
                 !onlyFallback;
    o.pointT = o.best->T;
    o.pointE = o.best->E;
    if (quantum > 0)
      o.pointE =
          calculus::dagEnergy(s, c.options, o.best->choice, 0, &o.pointT);
    o.T = costs[*chosen].T;
    o.E = costs[*chosen].E;
    o.switches = costs[*chosen].switches;
    return success();
  }

  /// Whether a makespan keeps a limit (to 1e-12 relative, as
  /// calculus::choosePlanPoint reads it).
  static bool within(double T, double limit) {
    return T <= limit * (1 + 1e-12);
  }

  /// The all-fastest configuration: every task at its fastest option. No
  /// configuration is faster (a longest path only grows with its tasks'
  /// times).
  static calculus::DagPoint allFastest(const Choices &c) {
    calculus::DagPoint fastest;
    fastest.choice.assign(c.options.size(), 0);
    for (size_t t = 0; t < c.options.size(); ++t)
      for (uint32_t j = 1; j < c.options[t].size(); ++j)
        if (c.options[t][j].T < c.options[t][fastest.choice[t]].T)
          fastest.choice[t] = j;
    return fastest;
  }

  /// Whether any task's time or any dependency's delay varies (the
  /// expected makespan then differs from the point one).
  static bool varies(const Choices &c) {
    for (const calculus::ScheduleTask &t : c.graph.schedule.tasks) {
      if (t.varT > 0)
        return true;
      for (const calculus::Dependency &d : t.deps)
        if (d.varLag > 0)
          return true;
    }
    for (const auto &options : c.sigs)
      for (SignatureAttr sig : options)
        if (sig && sig.sigmaTime() > 0)
          return true;
    return false;
  }

  /// The chosen plan's expected makespan as it will run, with its clock
  /// switches (deterministic); 0 where nothing varies.
  static double expectedAsRun(const Choices &c, const Outcome &o) {
    double sampled = expectedMakespan(c, *o.best);
    return sampled > 0 ? sampled + (o.T - o.pointT) : 0;
  }

  /// The chosen configuration's expected makespan where its durations or
  /// delays vary (the jitter of several near-critical paths lengthens the
  /// average iteration past the point makespan the limit holds); 0 where
  /// nothing varies. Without clock switches (they are deterministic).
  static double expectedMakespan(const Choices &c,
                                 const calculus::DagPoint &best) {
    calculus::Schedule s = c.graph.schedule;
    for (size_t t = 0; t < s.tasks.size(); ++t)
      if (SignatureAttr sig = c.sigs[t][best.choice[t]]) {
        s.tasks[t].duration = sig.time();
        s.tasks[t].varT = sig.sigmaTime() * sig.sigmaTime();
      }
    // From the schedule's start, as the lowering samples it.
    calculus::countFromStart(s);
    calculus::MakespanDistribution dist;
    if (!calculus::sampleMakespan(s, calculus::makespanSamples(s.tasks.size()),
                                  /*seed=*/1, dist) ||
        dist.samples == 0)
      return 0;
    return dist.mean;
  }

  /// Writes the chosen options back: each task's signature and operating
  /// point.
  void writeBack(const Choices &c, const calculus::DagPoint &best) {
    const calculus::Schedule &s = c.graph.schedule;
    // Options at several power caps on one device: the plan may give its
    // tasks different caps, which no device runs (a limit takes effect
    // over hundreds of milliseconds; a plan file holds one per device):
    // said, with the way to choose one.
    std::map<uint32_t, std::set<double>> capsOf;
    for (size_t t = 0; t < s.tasks.size(); ++t)
      if (OpPointAttr op = c.opPoints[t][best.choice[t]])
        if (op.getPowerCap() && s.tasks[t].devices.size() == 1)
          capsOf[s.tasks[t].devices[0]].insert(op.getPowerCap()->value);
    for (const auto &[dev, caps] : capsOf)
      if (caps.size() > 1) {
        std::string list;
        for (double w : caps)
          list += (list.empty() ? "" : ", ") +
                  formatQuantity(w, Dimension::Power, 4);
        c.graph.deviceOps[dev]->emitWarning("energy-plan: the plan gives ")
            << "the tasks of this device different power caps (" << list
            << "): a device runs under one (a plan file holds one per "
               "device, and --export-plan refuses this plan): plan with "
               "choose-power-cap=true (the cap and the clocks together), or "
               "choose the cap first with --energy-power-cap (from the "
               "tasks' options, or a table of the job's "
               "power_limit,time,energy), then plan the clocks under it";
      }
    for (size_t t = 0; t < s.tasks.size(); ++t) {
      auto taskOp = dyn_cast<TaskOp>(c.graph.taskOps[t]);
      if (!taskOp)
        continue;
      uint32_t j = best.choice[t];
      if (SignatureAttr sig = c.sigs[t][j]) {
        taskOp.setSigAttr(sig);
        // The task now takes its option's time. A recorded start is a
        // release (the task never starts before it), read the same way by
        // the planner and the lowering; it is re-timed below.
        if (taskOp.getDuration())
          taskOp.setDuration(sig.time());
      }
      if (OpPointAttr op = c.opPoints[t][j]) {
        taskOp->setAttr(EnergyDialect::DvfsAttrHelper::getNameStr(), op);
        // The option's own gradient in the model's shared parameters (the
        // fill's energy.option_grads; one option per operating point).
        auto grads = taskOp->getAttrOfType<ArrayAttr>(
            EnergyDialect::OptionGradsAttrHelper::getNameStr());
        ArrayAttr options = taskOp.getOptionsAttr();
        if (grads && options && grads.size() == options.size())
          for (auto [k, o] : llvm::enumerate(options))
            if (cast<OptionAttr>(o).getOpPoint() == op)
              taskOp->setAttr(EnergyDialect::GradAttrHelper::getNameStr(),
                              grads[k]);
      }
    }
    // Recorded starts (--sched-timing's, a trace's) are releases; with the
    // options' times they may now overlap on a stream (the verifier refuses
    // that): each becomes the start the plan runs it at, never earlier.
    calculus::Schedule timed = s;
    for (size_t t = 0; t < timed.tasks.size(); ++t)
      if (SignatureAttr sig = c.sigs[t][best.choice[t]])
        timed.tasks[t].duration = sig.time();
    std::vector<double> start;
    std::vector<uint32_t> cycle;
    if (!calculus::computeStartTimes(timed, start, cycle))
      return;
    if (!c.graph.taskOps.empty() &&
        SchedGraph::recordsStarts(
            c.graph.taskOps.front()->getParentOfType<ScheduleOp>()))
      c.graph.writeStarts(start, /*onlyRecorded=*/true);
    warnCoRunningClocks(c, best, timed, start);
  }

  /// A device has one SM clock at a time, but each task's options are
  /// chosen on their own: tasks that overlap on two streams of one device
  /// may get two clocks, which no device runs (the plan's figures assume
  /// both). Said, with the first such pair; not yet planned jointly.
  void warnCoRunningClocks(const Choices &c, const calculus::DagPoint &best,
                           const calculus::Schedule &timed,
                           const std::vector<double> &start) {
    std::vector<std::vector<uint32_t>> byDevice(timed.devices.size());
    for (size_t t = 0; t < timed.tasks.size(); ++t)
      if (c.opPoints[t][best.choice[t]] &&
          c.opPoints[t][best.choice[t]].getSmMhz())
        for (uint32_t d : timed.tasks[t].devices)
          byDevice[d].push_back(uint32_t(t));
    auto mhzOf = [&](uint32_t t) {
      return *c.opPoints[t][best.choice[t]].getSmMhz();
    };
    size_t pairs = 0;
    std::pair<uint32_t, uint32_t> first;
    for (std::vector<uint32_t> &tasks : byDevice) {
      llvm::sort(tasks,
                 [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
      // The task reaching furthest so far: any later one starting before
      // it ends overlaps it.
      int64_t reach = -1;
      for (uint32_t t : tasks) {
        double end = start[t] + timed.tasks[t].duration;
        if (reach >= 0) {
          double reachEnd =
              start[reach] + timed.tasks[uint32_t(reach)].duration;
          double tol = calculus::timeTolerance(reachEnd);
          if (start[t] < reachEnd - tol && mhzOf(t) != mhzOf(uint32_t(reach)) &&
              pairs++ == 0)
            first = {uint32_t(reach), t};
          if (end > reachEnd)
            reach = t;
        } else {
          reach = t;
        }
      }
    }
    if (!pairs)
      return;
    auto name = [&](uint32_t t) {
      return SymbolTable::getSymbolName(c.graph.taskOps[t]).getValue();
    };
    mlir::emitWarning(c.graph.taskOps[first.second]->getLoc(), "energy-plan: @")
        << name(first.second) << " runs at " << mhzOf(first.second)
        << " MHz while @" << name(first.first) << " runs at "
        << mhzOf(first.first) << " MHz on the same device (" << pairs
        << " such overlap(s)): a device has one SM clock at a time, and the "
           "plan chose each task's option on its own; its figures assume "
           "both clocks";
  }

  /// `energy.plan` on the schedule (docs/PLAN.md).
  void recordPlan(ScheduleOp sched, const calculus::DagFrontierResult &method,
                  size_t frontierPoints, const Outcome &o) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    NamedAttribute fields[] = {
        b.getNamedAttr("exact", b.getBoolAttr(method.exact)),
        b.getNamedAttr("lower_bound_J", b.getF64FloatAttr(o.lowerBound)),
        b.getNamedAttr("gap_pct", b.getF64FloatAttr(o.gapPct)),
        b.getNamedAttr("baseline_T_s", b.getF64FloatAttr(o.baseT)),
        b.getNamedAttr("baseline_E_J", b.getF64FloatAttr(o.baseE)),
        b.getNamedAttr("T_s", b.getF64FloatAttr(o.pointT)),
        b.getNamedAttr("E_J", b.getF64FloatAttr(o.pointE)),
        b.getNamedAttr("saving_pct", b.getF64FloatAttr(o.saving)),
        b.getNamedAttr("fastest_T_s", b.getF64FloatAttr(o.fastest)),
        b.getNamedAttr("limit_T_s", b.getF64FloatAttr(o.limit)),
        b.getNamedAttr("frontier_points", b.getI64IntegerAttr(frontierPoints)),
        b.getNamedAttr("objective", b.getStringAttr(objective)),
    };
    NamedAttrList planFields(fields);
    if (objective == "zeus") { // Zeus's knob and MAXPOWER, as given
      planFields.set("eta", b.getF64FloatAttr(eta));
      planFields.set("max_power_W", b.getF64FloatAttr(maxPower));
    }
    if (o.expectedT > 0)
      planFields.set("expected_T_s", b.getF64FloatAttr(o.expectedT));
    if (o.expectedT > 0 || o.fastestExpected > 0) {
      planFields.set("limit_on", b.getStringAttr(limitOn));
      if (limitOn == "expected") {
        planFields.set("point_limit_T_s", b.getF64FloatAttr(o.pointLimit));
        if (o.fastestExpected > 0)
          planFields.set("fastest_expected_T_s",
                         b.getF64FloatAttr(o.fastestExpected));
      }
    }
    if (o.switching) {
      planFields.set("switches", b.getI64IntegerAttr(o.switches));
      planFields.set("T_with_switches_s", b.getF64FloatAttr(o.T));
      planFields.set("E_with_switches_J", b.getF64FloatAttr(o.E));
    }
    if (quantum > 0) {
      // The frontier's own figures for the chosen point, on floored times
      // (none for the all-fastest fallback, which is no frontier point).
      planFields.set("quantum_s", b.getF64FloatAttr(quantum));
      if (!o.isFallback) {
        planFields.set("frontier_T_s", b.getF64FloatAttr(o.best->T));
        planFields.set("frontier_E_J", b.getF64FloatAttr(o.best->E));
      }
      if (o.improvedOnRealTimes)
        planFields.set("improved_on_real_times", b.getBoolAttr(true));
    }
    if (method.truncated) // the range the crash sweep did not reach, s
      planFields.set("frontier_truncated",
                     b.getF64ArrayAttr({method.gapFrom, method.gapTo}));
    sched->setAttr(EnergyDialect::PlanAttrHelper::getNameStr(),
                   planFields.getDictionary(ctx));
  }

  /// `summary=true`: the plan on standard error.
  void printSummary(ScheduleOp sched, ArrayRef<calculus::DagPoint> front,
                    const Outcome &o) {
    auto q = [](double v, Dimension d) { return formatQuantity(v, d, 5); };
    llvm::raw_ostream &os = llvm::errs();
    os << "@" << sched.getSymName() << " plan (" << front.size()
       << " frontier point" << (front.size() == 1 ? "" : "s") << ", objective "
       << objective << ")\n";
    os << "  frontier  "
       << cast<StringAttr>(
              sched->getAttr(
                  EnergyDialect::FrontierMethodAttrHelper::getNameStr()))
              .getValue()
       << "\n";
    if (quantum > 0)
      os << "  quantum   " << q(quantum, Dimension::Time)
         << ": the frontier and its bound floor option times to it; the "
            "figures here are as the plan will run (real option times)\n";
    os << "  fastest   " << q(o.fastest, Dimension::Time) << "  energy-minimal "
       << q(front.back().T, Dimension::Time) << " at "
       << q(front.back().E, Dimension::Energy)
       << (quantum > 0 ? " (floored)" : "") << "\n";
    os << "  baseline  " << q(o.baseT, Dimension::Time) << "  "
       << q(o.baseE, Dimension::Energy)
       << (o.beforeCap    ? "  (every task at its current signature, "
                            "before the power cap chosen below)\n"
           : o.movedByCap ? "  (every task at its current signature, or "
                            "within its device's power cap at its first "
                            "option that fits)\n"
                          : "  (every task at its current signature)\n");
    os << "  plan      " << q(o.T, Dimension::Time) << "  "
       << q(o.E, Dimension::Energy)
       << llvm::formatv("  ({0:F2}% {1} energy, limit {2})\n",
                        std::abs(o.saving), o.saving < 0 ? "more" : "less",
                        q(o.limit, Dimension::Time));
    if (o.expectedT > 0 || o.fastestExpected > 0) {
      os << "  expected  "
         << q(o.expectedT > 0 ? o.expectedT : o.T, Dimension::Time)
         << "  (the mean makespan as times and delays vary; ";
      if (limitOn == "expected")
        os << (!within(o.expectedT, o.limit)
                   ? "the limit holds it, and no plan found meets it"
                   : "the limit holds it")
           << (o.fastestExpected > 0 && !(deadlineGiven() > 0)
                   ? ", over the fastest's " +
                         q(o.fastestExpected, Dimension::Time)
                   : std::string())
           << "; planned at point makespans up to "
           << q(o.pointLimit, Dimension::Time) << ")\n";
      else
        os << "the limit holds the point makespan)\n";
    }
    if (o.switching)
      os << "  switches  " << o.switches
         << " clock switches included (the frontier point without them: "
         << q(o.pointT, Dimension::Time) << "  "
         << q(o.pointE, Dimension::Energy) << ")\n";
    if (o.gapPct >= 0)
      os << "  bound     no configuration within the limit uses less than "
         << q(o.lowerBound, Dimension::Energy)
         << llvm::formatv(" (plan within {0:F2}%)\n", o.gapPct);
  }
};

} // namespace
