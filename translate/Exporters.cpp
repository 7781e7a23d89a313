//===- Exporters.cpp - plans and frontiers out of the IR ------------------===//
//
// --export-plan: the JSON plan (docs/PLAN.md) of every planned schedule,
// read from the IR that --energy-plan (and --energy-emit-dvfs) annotated.
// --export-frontier: the `energy.frontier` of every schedule as CSV.
// --export-perfetto: timed schedules and energy trees as Chrome JSON traces.
//
//===----------------------------------------------------------------------===//

#include "translate/Translate.h"

#include "calculus/Schedule.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"
#include "runtime/Version.h"
#include "translate/KinetoTrace.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace energy;
using namespace energy::sched;

static double dictNumber(DictionaryAttr d, StringRef key) {
  if (auto f = d.getAs<FloatAttr>(key))
    return f.getValueAsDouble();
  return 0;
}

/// The file's `generator` record (runtime/Version.h): the tool, its version
/// and the module it read.
static llvm::json::Value generatorOf(StringRef tool, ModuleOp module) {
  std::vector<std::string> inputs;
  if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
    inputs.push_back(loc.getFilename().str());
  llvm::Expected<llvm::json::Value> v =
      llvm::json::parse(energy::generatorJson(tool.str(), inputs));
  if (!v) {
    llvm::consumeError(v.takeError());
    return nullptr;
  }
  return std::move(*v);
}

/// The module's schedules in order, those of nested modules too (what
/// `energy-opt -split-input-file` writes: one module per split).
static SmallVector<ScheduleOp> schedulesOf(ModuleOp module) {
  SmallVector<ScheduleOp> out;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto s = dyn_cast<ScheduleOp>(op)) {
      out.push_back(s);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return out;
}

LogicalResult energy::exportPlan(ModuleOp module, llvm::raw_ostream &os) {
  llvm::json::Array schedules;
  llvm::StringMap<ScheduleOp> named; // run-plan picks a schedule by name
  for (ScheduleOp sched : schedulesOf(module)) {
    auto plan = sched->getAttrOfType<DictionaryAttr>(
        EnergyDialect::PlanAttrHelper::getNameStr());
    if (!plan)
      continue;
    auto [first, fresh] = named.try_emplace(sched.getSymName(), sched);
    if (!fresh)
      return sched
                 .emitOpError("--export-plan: a second planned schedule "
                              "named @")
                 .append(sched.getSymName(),
                         " (run-plan picks one by name): rename one, or "
                         "export them one at a time")
                 .attachNote(first->second.getLoc())
             << "the first";
    // A plan chosen with costly clock switches counts them in its T and E;
    // its tasks' starts hold them only once --energy-emit-dvfs inserted
    // them as tasks: exported before, the file's starts and its period
    // (run-plan --mode timeline) would disagree.
    if (auto withT = plan.getAs<FloatAttr>("T_with_switches_s"))
      if (auto T = plan.getAs<FloatAttr>("T_s");
          T && withT.getValueAsDouble() > T.getValueAsDouble() * (1 + 1e-9) &&
          llvm::none_of(sched.getBody().getOps<TaskOp>(),
                        [](TaskOp t) { return t.getKind() == "dvfs-switch"; }))
        return sched.emitOpError("--export-plan: @")
               << sched.getSymName() << "'s plan runs "
               << formatQuantity(withT.getValueAsDouble(), Dimension::Time, 6)
               << " with its clock switches ("
               << formatQuantity(T.getValueAsDouble(), Dimension::Time, 6)
               << " without), which its tasks do not hold yet: export after "
                  "--energy-emit-dvfs, which inserts them";
    std::vector<double> start; // the plan's own timing, not recorded starts
    FailureOr<SchedGraph> g = SchedGraph::buildAsPlanned(sched, start);
    if (failed(g))
      return failure();
    const calculus::Schedule &timed = g->schedule;
    // Starts count from the schedule's start, as its makespan (T_s) does:
    // its first task's start (a serving workload's first arrival).
    double origin = 0;
    if (!start.empty())
      origin = *std::min_element(start.begin(), start.end());
    llvm::json::Array devices;
    for (uint32_t dev = 0; dev < timed.devices.size(); ++dev) {
      std::vector<uint32_t> mine;
      for (uint32_t t = 0; t < timed.tasks.size(); ++t)
        if (llvm::is_contained(timed.tasks[t].devices, dev))
          mine.push_back(t);
      std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t b) {
        return start[a] < start[b] || (start[a] == start[b] && a < b);
      });
      llvm::json::Array tasks, runs;
      // The clock persists until the next energy.dvfs on the device
      // (--energy-emit-dvfs keeps it only where it changes).
      std::optional<int64_t> clock, runClock;
      // A power cap chosen with the tasks' operating points (a DB's power
      // limits) persists like the clock; run-plan holds one cap per device.
      std::optional<double> cap;
      std::set<std::optional<double>> caps;
      std::optional<double> setCap;
      if (auto c = g->deviceOps[dev]->getAttrOfType<OpPointAttr>(
              EnergyDialect::PowerCapAttrHelper::getNameStr()))
        if (auto w = c.getPowerCap())
          setCap = w->value;
      Operation *capChange = nullptr; // the first task at another cap
      int64_t runCount = 0;
      std::string runFirst;
      auto flush = [&]() {
        if (runCount)
          runs.push_back(llvm::json::Object{
              {"sm_mhz", runClock ? llvm::json::Value(*runClock) : nullptr},
              {"first", runFirst},
              {"tasks", runCount}});
      };
      double s = timed.devices[dev].staticPower;
      for (uint32_t t : mine) {
        Operation *op = g->taskOps[t];
        if (auto dvfs = op->getAttrOfType<OpPointAttr>(
                EnergyDialect::DvfsAttrHelper::getNameStr())) {
          if (auto mhz = dvfs.getSmMhz()) {
            clock = *mhz;
            // A clock the device's kind does not have: its options were
            // measured on another GPU (a DB of an H100 filled into an
            // A100's schedule); a plan file would fail only in the job.
            std::optional<KnownDevice> known =
                knownDevice(g->deviceOps[dev].getKind());
            if (known && *mhz > known->maxSmMhz)
              return op->emitError()
                     << "--export-plan: the plan runs @"
                     << SymbolTable::getSymbolName(op).getValue() << " at "
                     << *mhz << " MHz, above the highest SM clock of @"
                     << g->deviceOps[dev].getSymName() << "'s kind '"
                     << g->deviceOps[dev].getKind() << "' (" << known->maxSmMhz
                     << " MHz): were its options measured on another GPU?";
          }
          // An option without an operating point cannot be set: run as
          // planned it would run at whatever clock is in force.
          auto taskOp = dyn_cast<sched::TaskOp>(op);
          if (!dvfs.getSmMhz() && !dvfs.getPowerCap() && taskOp &&
              taskOp.getOptionsAttr() && taskOp.getOptionsAttr().size() > 1)
            return op->emitError()
                   << "--export-plan: the plan runs @"
                   << SymbolTable::getSymbolName(op).getValue()
                   << " at an option without an operating point (no sm_mhz "
                      "or power_cap): a plan file cannot set it; give each "
                      "of the task's options its operating point";
          // An operating point without a cap runs at the device's cap
          // (--energy-power-cap), else at the default limit.
          std::optional<double> w = setCap;
          if (auto c = dvfs.getPowerCap())
            w = c->value;
          cap = w;
          // Only the tasks the plan chose an operating point for say a
          // cap (a fixed signature, a transfer, runs at whatever is set).
          if (!caps.empty() && !caps.count(cap) && !capChange)
            capChange = op;
          caps.insert(cap);
        }
        // A clock switch (--energy-emit-dvfs) is where the next clock
        // begins: run-plan sets it at the switch's start, not after it.
        auto sw = dyn_cast<sched::TaskOp>(op);
        bool isSwitch = sw && sw.getKind() == "dvfs-switch";
        if (isSwitch && sw.getTheta())
          if (auto to = sw.getThetaAttr().getAs<IntegerAttr>("to_mhz"))
            clock = to.getInt();
        const calculus::ScheduleTask &task = timed.tasks[t];
        double d = task.d / task.devices.size();
        std::string name = SymbolTable::getSymbolName(op).str();
        llvm::json::Object entry{
            {"task", name},
            {"sm_mhz", clock ? llvm::json::Value(*clock) : nullptr},
            {"start_s", start[t] - origin},
            {"T_s", task.duration},
            {"d_J", d},
            {"E_J", s * task.duration + d}};
        // The switch itself is no region of the job: said, so that the
        // job's clock lists (plan-clocks) leave it out.
        if (isSwitch)
          entry["kind"] = "dvfs-switch";
        // The DB key the task was filled from: the job's region of that
        // name runs it (plan-clocks --by-key names each of its begins).
        if (auto task = dyn_cast<sched::TaskOp>(op)) {
          if (StringAttr key = task.getDbAttr(); key && !key.getValue().empty())
            entry["db_key"] = key.getValue().str();
          // A trace's region (--import-kineto --regions): the job's region
          // and which of its begins in the iteration.
          if (DictionaryAttr theta = task.getThetaAttr();
              theta && task.getKind() == "region")
            if (auto name = theta.getAs<StringAttr>("name"))
              if (auto k = theta.getAs<IntegerAttr>("occurrence");
                  k && k.getInt() >= 0) {
                entry["region"] = name.getValue().str();
                entry["occurrence"] = k.getInt();
                // How many begins the region has in the iteration.
                if (auto n = theta.getAs<IntegerAttr>("begins");
                    n && n.getInt() > k.getInt())
                  entry["begins"] = n.getInt();
              }
        }
        tasks.push_back(std::move(entry));
        if (!runCount || clock != runClock) {
          flush();
          runClock = clock;
          runCount = 0;
          runFirst = name;
        }
        ++runCount;
      }
      flush();
      sched::DeviceOp devOp = g->deviceOps[dev];
      llvm::json::Object entry{{"device", devOp.getSymName().str()},
                               {"kind", devOp.getKind().str()},
                               {"tasks", std::move(tasks)},
                               {"runs", std::move(runs)}};
      if (caps.size() > 1)
        return capChange->emitError()
               << "--export-plan: the plan changes the power cap of @"
               << devOp.getSymName()
               << " from one task to the next (at this task); a plan file "
                  "holds one cap per device, applied for the whole run (a "
                  "power limit takes effect over hundreds of "
                  "milliseconds): plan with clocks only (a DB "
                  "characterized without --power-limits, or with one), or "
                  "choose one cap with the clocks (--energy-plan="
                  "\"choose-power-cap=true ...\"), or before them "
                  "(--energy-power-cap, from the tasks' options or a table "
                  "of the job's power_limit,time,energy)";
      std::optional<double> deviceCap =
          caps.empty() ? std::nullopt : *caps.begin();
      if (auto c = devOp->getAttrOfType<OpPointAttr>(
              EnergyDialect::PowerCapAttrHelper::getNameStr()))
        if (auto w = c.getPowerCap()) {
          if (deviceCap && *deviceCap != w->value)
            return devOp.emitError()
                   << "--export-plan: @" << devOp.getSymName()
                   << "'s power cap (" << w->value << " W) and its tasks' ("
                   << *deviceCap << " W) differ";
          deviceCap = w->value;
        }
      if (deviceCap) {
        // A limit the device's kind does not have: the job would refuse the
        // plan file only when it starts (er_plan_load, run-plan).
        std::optional<KnownDevice> known = knownDevice(devOp.getKind());
        if (known && !known->powerLimitSettable(*deviceCap))
          return devOp.emitError()
                 << "--export-plan: the plan caps @" << devOp.getSymName()
                 << " at " << formatNumber(*deviceCap)
                 << " W, outside the power limits of "
                 << "its kind '" << devOp.getKind() << "' ("
                 << known->powerLimitRange()
                 << "): was the table (or the DB's caps) measured on another "
                    "GPU?";
        entry["power_cap_W"] = *deviceCap;
      }
      // A trace's regions that ran no GPU work (--import-kineto --regions):
      // no task, but the job begins them; plan-clocks gives each begin a
      // line that keeps the clock in force.
      if (auto idle =
              devOp->getAttrOfType<DictionaryAttr>("regions_without_tasks")) {
        llvm::json::Object regions;
        for (NamedAttribute r : idle)
          if (auto n = dyn_cast<IntegerAttr>(r.getValue()))
            regions[r.getName().getValue()] = n.getInt();
        entry["regions_without_tasks"] = std::move(regions);
      }
      devices.push_back(std::move(entry));
    }
    // Where devices declare what a clock switch costs, the plan runs (and
    // was chosen) with its switches: those are its time and energy, the
    // period run-plan's timeline repeats at.
    bool switched = plan.getAs<FloatAttr>("T_with_switches_s") &&
                    plan.getAs<FloatAttr>("E_with_switches_J");
    llvm::json::Object planJson{
        {"T_s", dictNumber(plan, switched ? "T_with_switches_s" : "T_s")},
        {"E_J", dictNumber(plan, switched ? "E_with_switches_J" : "E_J")},
        {"saving_pct", dictNumber(plan, "saving_pct")},
        {"exact", plan.getAs<BoolAttr>("exact") &&
                      plan.getAs<BoolAttr>("exact").getValue()},
        {"gap_pct", dictNumber(plan, "gap_pct")}};
    if (auto gap = plan.getAs<ArrayAttr>("frontier_truncated");
        gap && gap.size() == 2 && isa<FloatAttr>(gap[0]) &&
        isa<FloatAttr>(gap[1]))
      planJson["frontier_truncated_s"] =
          llvm::json::Array{cast<FloatAttr>(gap[0]).getValueAsDouble(),
                            cast<FloatAttr>(gap[1]).getValueAsDouble()};
    if (plan.getAs<FloatAttr>("expected_T_s"))
      planJson["expected_T_s"] = dictNumber(plan, "expected_T_s");
    // The limit the plan keeps, and what holds it where times or delays
    // vary (the expected makespan or the point one).
    if (plan.getAs<FloatAttr>("limit_T_s"))
      planJson["limit_T_s"] = dictNumber(plan, "limit_T_s");
    if (auto on = plan.getAs<StringAttr>("limit_on"))
      planJson["limit_on"] = on.getValue().str();
    if (auto n = plan.getAs<IntegerAttr>("switches"))
      planJson["with_switches"] =
          llvm::json::Object{{"switches", n.getInt()},
                             {"T_s", dictNumber(plan, "T_with_switches_s")},
                             {"E_J", dictNumber(plan, "E_with_switches_J")}};
    StringRef objective = "energy";
    if (auto o = plan.getAs<StringAttr>("objective"))
      objective = o.getValue();
    schedules.push_back(llvm::json::Object{
        {"schedule", sched.getSymName().str()},
        {"objective", objective.str()},
        {"baseline",
         llvm::json::Object{{"T_s", dictNumber(plan, "baseline_T_s")},
                            {"E_J", dictNumber(plan, "baseline_E_J")}}},
        {"plan", std::move(planJson)},
        {"devices", std::move(devices)}});
  }
  if (schedules.empty())
    return mlir::emitError(energy::moduleErrorLoc(module),
                           "--export-plan: no planned sched.schedule (run "
                           "--energy-plan first)");
  llvm::json::Object doc{{"version", 1}, {"schedules", std::move(schedules)}};
  doc["generator"] = generatorOf("energy-translate --export-plan", module);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(doc))) << "\n";
  return success();
}

LogicalResult energy::exportFrontier(ModuleOp module, llvm::raw_ostream &os) {
  bool any = false;
  for (ScheduleOp sched : schedulesOf(module)) {
    auto front = sched->getAttrOfType<ArrayAttr>(
        EnergyDialect::FrontierAttrHelper::getNameStr());
    if (!front)
      continue;
    if (any)
      return sched.emitOpError("--export-frontier: more than one schedule "
                               "has a frontier; export them one at a time");
    any = true;
    // Said without the schedule's source line: that line holds the whole
    // frontier attribute.
    std::string where = "energy-translate";
    if (auto f = dyn_cast<FileLineColLoc>(sched.getLoc()))
      where = llvm::formatv("{0}:{1}:{2}", f.getFilename(), f.getLine(),
                            f.getColumn())
                  .str();
    // Say when the attribute holds a thinned frontier (docs/FRONTIER.md).
    if (auto th = sched->getAttrOfType<DictionaryAttr>(
            EnergyDialect::FrontierThinningAttrHelper::getNameStr())) {
      auto full = th.getAs<IntegerAttr>("full_points");
      auto kept = th.getAs<IntegerAttr>("kept_points");
      auto err = th.getAs<FloatAttr>("max_error");
      if (full && kept && err && kept.getInt() < full.getInt())
        llvm::WithColor::warning(llvm::errs(), where)
            << "--export-frontier: @" << sched.getSymName()
            << "'s frontier holds " << kept.getInt() << " of its "
            << full.getInt() << " points (within "
            << llvm::formatv("{0:F3}", 100 * err.getValueAsDouble())
            << "% of the full frontier's energy at every makespan); "
               "--energy-frontier=\"max-error=0\" keeps every point\n";
    }
    // Times on floored option times (Perseus's convention) are shorter than
    // any configuration runs: said, as the thinning is. The method names
    // the quantum (passes/FrontierSupport.cpp).
    if (auto method = sched->getAttrOfType<StringAttr>(
            EnergyDialect::FrontierMethodAttrHelper::getNameStr())) {
      StringRef floored = "on option times floored to the quantum ";
      size_t at = method.getValue().find(floored);
      if (at != StringRef::npos)
        llvm::WithColor::warning(llvm::errs(), where)
            << "--export-frontier: @" << sched.getSymName()
            << "'s times are on option times floored to the quantum "
            << method.getValue().drop_front(at + floored.size())
            << " (Perseus's convention): a configuration runs longer; "
               "--energy-plan re-times its plan from the real times\n";
    }
    // The certified lower bound of each point (docs/FRONTIER.md), empty
    // where the frontier has none.
    os << "time_s,energy_J,lower_bound_J\n";
    // Each point's shape was verified with the IR (DiscardableAttrs.cpp).
    for (Attribute p : front) {
      auto pt = cast<ArrayAttr>(p);
      os << formatNumber(cast<FloatAttr>(pt[0]).getValueAsDouble()) << ","
         << formatNumber(cast<FloatAttr>(pt[1]).getValueAsDouble()) << ",";
      if (pt.size() == 3)
        os << formatNumber(cast<FloatAttr>(pt[2]).getValueAsDouble());
      os << "\n";
    }
  }
  if (!any)
    return mlir::emitError(energy::moduleErrorLoc(module),
                           "--export-frontier: no sched.schedule has an "
                           "energy.frontier (run --energy-frontier first)");
  return success();
}

//===----------------------------------------------------------------------===//
// --export-perfetto: the Chrome JSON trace format PyTorch's profiler writes
// (read by our own --import-kineto), opened by Perfetto and chrome://tracing.
//===----------------------------------------------------------------------===//

namespace {
/// Microseconds, the format's unit.
double us(double seconds) { return seconds * 1e6; }

/// The trace's events, written as they are made (a trace of 10^5 tasks
/// held as one JSON tree took gigabytes; written out, its text).
struct EventSink {
  llvm::json::OStream &out;
  void push_back(llvm::json::Value &&event) { out.value(event); }
};

/// One device's tracks: its process name and, over [0, makespan], the
/// planned clock, the power (static + the dynamic power of what runs) and
/// the cumulative energy, exact at every step (it integrates the power;
/// a zero-length slice's energy is a step of the counter).
struct DeviceTracks {
  std::string label;
  double staticPower = 0;
  std::map<double, double> powerSteps, energySteps;
  std::map<double, int64_t> clockSteps;
  /// A planned schedule's baseline clock (the highest of its tasks'
  /// operating sets: what every task runs at before planning), drawn next
  /// to the planned one.
  std::optional<int64_t> baselineMhz;

  /// Dynamic power d / T over [t0, t0 + T] (d at t0 when T = 0).
  void draw(double t0, double T, double d) {
    if (T > 0) {
      powerSteps[t0] += d / T;
      powerSteps[t0 + T] -= d / T;
    } else {
      energySteps[t0] += d;
    }
  }

  /// The counters' final energy (J).
  double emit(EventSink &events, int64_t pid, double makespan) {
    events.push_back(
        llvm::json::Object{{"ph", "M"},
                           {"name", "process_name"},
                           {"pid", pid},
                           {"args", llvm::json::Object{{"name", label}}}});
    for (auto &[t, mhz] : clockSteps)
      events.push_back(
          llvm::json::Object{{"ph", "C"},
                             {"name", "planned SM clock"},
                             {"pid", pid},
                             {"ts", us(t)},
                             {"args", llvm::json::Object{{"MHz", mhz}}}});
    if (baselineMhz && !clockSteps.empty())
      for (double t : {0.0, makespan})
        events.push_back(llvm::json::Object{
            {"ph", "C"},
            {"name", "baseline SM clock"},
            {"pid", pid},
            {"ts", us(t)},
            {"args", llvm::json::Object{{"MHz", *baselineMhz}}}});
    std::map<double, double> &steps = powerSteps;
    steps[0] += 0;
    steps[makespan] += 0;
    for (auto &[t, dE] : energySteps)
      steps[t] += 0;
    double dyn = 0, energy = 0, last = 0, lastPower = staticPower;
    // The largest power the running sum has held or added since it was
    // last zero: its rounding is relative to that.
    double scale = 0;
    for (auto &[t, delta] : steps) {
      energy += lastPower * (t - last);
      auto jump = energySteps.find(t);
      if (jump != energySteps.end())
        energy += jump->second;
      scale = std::max({scale, std::fabs(dyn), std::fabs(delta)});
      dyn += delta;
      // Rounding of the running sum, not a power: relative to the powers
      // it summed (an absolute floor dropped a 0.5 nW task's whole power).
      if (std::fabs(dyn) < 1e-12 * scale) {
        dyn = 0;
        scale = 0;
      }
      double power = t < makespan ? staticPower + dyn : 0;
      events.push_back(
          llvm::json::Object{{"ph", "C"},
                             {"name", "power"},
                             {"pid", pid},
                             {"ts", us(t)},
                             {"args", llvm::json::Object{{"W", power}}}});
      events.push_back(
          llvm::json::Object{{"ph", "C"},
                             {"name", "energy"},
                             {"pid", pid},
                             {"ts", us(t)},
                             {"args", llvm::json::Object{{"J", energy}}}});
      last = t;
      lastPower = power;
    }
    return energy;
  }
};

/// An energy tree laid out in time by its composition (CALCULUS.md
/// section 2): a seq's parts one after another, a par's and a multi's
/// together from its start; an element or idle is a slice on its device;
/// a measured composite is one slice (its own signature) on each device its
/// parts use, its dynamic energy split evenly as a collective's is.
struct TreeLayout {
  llvm::DenseMap<Operation *, unsigned> deviceIndex; // energy.device ops
  std::vector<energy::DeviceOp> devices;
  std::vector<DeviceTracks> tracks;
  llvm::json::Array slices;
  int64_t pidBase = 0;

  unsigned device(Operation *from, FlatSymbolRefAttr sym) {
    auto dev =
        SymbolTable::lookupNearestSymbolFrom<energy::DeviceOp>(from, sym);
    auto [it, inserted] = deviceIndex.try_emplace(dev, devices.size());
    if (inserted) {
      devices.push_back(dev);
      DeviceTracks t;
      double sW = dev.getStaticPower().convertToDouble();
      t.staticPower = sW;
      t.label = ("@" + dev.getSymName() + " (" + dev.getKind() + ", static " +
                 formatNumber(sW) + " W)")
                    .str();
      tracks.push_back(std::move(t));
    }
    return it->second;
  }

  int64_t lanes = 1; ///< threads handed out (a par's later children)

  void slice(StringRef name, StringRef cat, unsigned dev, int64_t tid, double t,
             double T, llvm::json::Object args) {
    slices.push_back(llvm::json::Object{{"ph", "X"},
                                        {"cat", cat.str()},
                                        {"name", name.str()},
                                        {"pid", pidBase + int64_t(dev)},
                                        {"tid", tid},
                                        {"ts", us(t)},
                                        {"dur", us(T)},
                                        {"args", std::move(args)}});
  }

  void devicesOf(Operation *op, llvm::SetVector<unsigned> &out) {
    op->walk([&](Operation *inner) {
      if (auto el = dyn_cast<ElementOp>(inner))
        out.insert(device(el, el.getDeviceAttr()));
      else if (auto idle = dyn_cast<IdleOp>(inner))
        out.insert(device(idle, idle.getDeviceAttr()));
    });
  }

  /// Per device, the static power it draws while it waits after an
  /// element: the paper's idle element stays at the operating point its
  /// device was left in (section 3.3), as the composition pads a multi's
  /// shorter operand (calculus::Signature::exitOffset).
  using Exits = std::map<unsigned, double>;

  /// The dynamic energy `op` composes (a composite with a signature: its
  /// own), J.
  static double dynamicOf(Operation *op) {
    double d = 0;
    op->walk<WalkOrder::PreOrder>([&](Operation *x) {
      if (auto el = dyn_cast<ElementOp>(x)) {
        if (SignatureAttr sig = el.getSigAsAttr())
          d += sig.getD().value;
      } else if (auto c = dyn_cast<CompositeOp>(x); c && c.getSigAttr()) {
        d += c.getSigAttr().getD().value;
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    return d;
  }

  /// Lays out `op` from time t on thread `tid` (a par's children after
  /// the first get threads of their own, so that concurrent slices do not
  /// overlap on one); its end in `end`, and in `exits` where it leaves its
  /// devices.
  LogicalResult place(Operation *op, double t, int64_t tid, double &end) {
    Exits exits;
    return place(op, t, tid, end, exits);
  }
  LogicalResult place(Operation *op, double t, int64_t tid, double &end,
                      Exits &exits) {
    if (auto el = dyn_cast<ElementOp>(op)) {
      SignatureAttr sig = el.getSigAsAttr();
      if (!sig)
        return el.emitOpError("--export-perfetto: @")
               << el.getSymName()
               << " has no signature (fill it before exporting the tree)";
      unsigned dev = device(el, el.getDeviceAttr());
      double T = sig.getT().value, d = sig.getD().value;
      double sW = sig.getS() ? sig.getS()->value : tracks[dev].staticPower;
      llvm::json::Object args{{"T_s", T},
                              {"d_J", d},
                              {"E_J", sW * T + d},
                              {"static_W", sW},
                              {"sigma_T_s", sig.getSigmaT().value},
                              {"sigma_d_J", sig.getSigmaD().value},
                              {"dynamic_W", T > 0 ? d / T : 0}};
      if (OpPointAttr at = el.getOpPointAttr())
        if (std::optional<int64_t> mhz = at.getSmMhz()) {
          args["sm_mhz"] = *mhz;
          tracks[dev].clockSteps[t] = *mhz;
        }
      slice(("@" + el.getSymName()).str(), "element", dev, tid, t, T,
            std::move(args));
      // An element's own static power, where it overrides its device's, is
      // drawn while it runs.
      tracks[dev].draw(t, T, d + (sW - tracks[dev].staticPower) * T);
      end = t + T;
      exits[dev] = sW;
      return success();
    }
    if (auto idle = dyn_cast<IdleOp>(op)) {
      unsigned dev = device(idle, idle.getDeviceAttr());
      double T = idle.getDuration().convertToDouble();
      slice(
          "idle", "idle", dev, tid, t, T,
          llvm::json::Object{{"T_s", T}, {"E_J", tracks[dev].staticPower * T}});
      end = t + T;
      exits[dev] = tracks[dev].staticPower;
      return success();
    }
    if (auto comp = dyn_cast<CompositeOp>(op)) {
      SignatureAttr sig = comp.getSigAttr();
      llvm::SetVector<unsigned> devs;
      devicesOf(comp, devs);
      if (!sig || devs.empty())
        return comp.emitOpError("--export-perfetto: a composite needs its "
                                "signature and parts on devices");
      double T = sig.getT().value, d = sig.getD().value / devs.size();
      std::string name = ("@" + comp.getSymName()).str();
      for (unsigned dev : devs) {
        slice(name, "composite", dev, tid, t, T,
              llvm::json::Object{{"T_s", T},
                                 {"d_J", d},
                                 {"E_J", tracks[dev].staticPower * T + d}});
        tracks[dev].draw(t, T, d);
        // (Where its parts leave its devices is not laid out: at their
        // declared power; the composition's differs where a part overrides
        // it, and the export says so.)
        exits[dev] = tracks[dev].staticPower;
      }
      end = t + T;
      return success();
    }
    bool sequential = isa<SeqOp>(op);
    if (!sequential && !isa<ParOp, MultiOp>(op)) {
      end = t; // not part of the composition (interaction marks)
      return success();
    }
    double at = t;
    end = t;
    bool first = true;
    std::vector<std::pair<double, Exits>> parts;
    std::vector<char> emptyPart;
    for (Operation &child : op->getRegion(0).front()) {
      double childEnd, childStart = sequential ? at : t;
      Exits childExits;
      int64_t lane = sequential || first || isa<MultiOp>(op) ? tid : lanes++;
      first = false;
      if (failed(place(&child, childStart, lane, childEnd, childExits)))
        return failure();
      at = childEnd;
      end = std::max(end, childEnd);
      parts.push_back({childEnd, std::move(childExits)});
      emptyPart.push_back(childEnd == childStart && dynamicOf(&child) == 0);
    }
    if (sequential) {
      // The last part that leaves each device somewhere (an empty one --
      // no time, no energy: an empty idle, which -canonicalize drops --
      // leaves them where they were, as the composition does).
      for (size_t i = 0; i < parts.size(); ++i)
        if (!emptyPart[i] || i == 0)
          for (auto &[dev, w] : parts[i].second)
            exits[dev] = w;
    } else if (isa<ParOp>(op)) {
      // The later-ending part's (on a tie, to rounding, the higher).
      double last = 0;
      for (auto &[partEnd, ex] : parts)
        last = std::max(last, partEnd);
      for (auto &[partEnd, ex] : parts)
        if (std::fabs(partEnd - last) <= 1e-9 * std::max(last, partEnd))
          for (auto &[dev, w] : ex)
            exits[dev] = exits.count(dev) ? std::max(exits[dev], w) : w;
    } else {
      // A multi: each shorter part's devices wait for its end where that
      // part left them, drawn beyond their declared power where an
      // element's own overrides it.
      for (auto &[partEnd, ex] : parts)
        for (auto &[dev, w] : ex) {
          exits[dev] = w;
          double wait = end - partEnd;
          if (wait > 0 && w != tracks[dev].staticPower)
            tracks[dev].draw(partEnd, wait,
                             (w - tracks[dev].staticPower) * wait);
        }
    }
    if (!std::isfinite(us(end))) // the trace's microseconds
      return op->emitOpError("--export-perfetto: the composition's time is "
                             "not finite in microseconds (")
             << formatQuantity(end, Dimension::Time) << ")";
    return success();
  }
};
} // namespace

LogicalResult energy::exportPerfetto(ModuleOp module, llvm::raw_ostream &os) {
  // Written to `os` only once the whole trace is made (an error midway
  // leaves nothing half-written).
  std::string text;
  llvm::raw_string_ostream buffer(text);
  llvm::json::OStream json(buffer, 2);
  json.objectBegin();
  json.attributeBegin("traceEvents");
  json.arrayBegin();
  // An error midway returns with the array open: closed here, so that the
  // stream ends whole (its destructor asserts so); the text is dropped.
  bool eventsClosed = false;
  auto closeEvents = llvm::make_scope_exit([&] {
    if (!eventsClosed) {
      json.arrayEnd();
      json.attributeEnd();
      json.objectEnd();
    }
  });
  EventSink events{json};
  // Assumed power models (--import-kineto's --dynamic-power) the figures
  // rest on: written out, so that a re-import still says so.
  llvm::SetVector<StringRef> models;
  auto noteModel = [&](Operation *op) {
    if (auto m = op->getAttrOfType<StringAttr>(
            EnergyDialect::ModelAttrHelper::getNameStr()))
      models.insert(m.getValue());
  };
  int64_t pidBase = 0, flows = 0;
  std::vector<llvm::json::Value> scheduleDevices; // deviceProperties entries
  bool any = false;
  // Several schedules each start at time 0 in processes of their own: their
  // processes carry the schedule's name too (two schedules' @g alike).
  bool several = schedulesOf(module).size() > 1;
  for (ScheduleOp sched : schedulesOf(module)) {
    if (!sched.getBody().getOps<PipelineOp>().empty() ||
        !sched.getBody().getOps<ServeOp>().empty())
      return sched.emitOpError("--export-perfetto: expand the generators "
                               "first (--sched-expand)");
    std::vector<double> start;
    FailureOr<SchedGraph> g = SchedGraph::buildAsPlanned(sched, start);
    if (failed(g))
      return failure();
    any = true;
    noteModel(sched);
    const calculus::Schedule &s = g->schedule;
    double origin =
        start.empty() ? 0 : *std::min_element(start.begin(), start.end());
    double makespan = 0;
    for (size_t t = 0; t < s.tasks.size(); ++t)
      makespan = std::max(makespan, start[t] + s.tasks[t].duration - origin);
    if (!std::isfinite(us(makespan))) // the trace's microseconds
      return sched.emitOpError("--export-perfetto: the schedule's time is "
                               "not finite in microseconds (")
             << formatQuantity(makespan, Dimension::Time) << ")";
    size_t nDev = s.devices.size();
    // Per device: the piecewise-constant dynamic power of its tasks (d / T
    // over each task's time; a zero-length task's d is a step of energy).
    // A planned schedule's clocks: the SM clock each task runs at, per
    // device over time (the baseline runs every task at its highest clock).
    std::vector<DeviceTracks> tracks(nDev);
    for (uint32_t t = 0; t < s.tasks.size(); ++t) {
      const calculus::ScheduleTask &task = s.tasks[t];
      Operation *op = g->taskOps[t];
      StringRef symbol = SymbolTable::getSymbolName(op).getValue();
      // The slice shows the task's own name where it has one (an imported
      // trace's kernel: its theta's `name`), else its symbol; `args.task`
      // is the symbol, which the dependency flows name.
      StringRef name = symbol;
      DictionaryAttr theta;
      StringAttr kindAttr;
      if (auto taskOp = dyn_cast<TaskOp>(op)) {
        theta = taskOp.getThetaAttr();
        kindAttr = taskOp.getKindAttr();
      } else if (auto coll = dyn_cast<CollectiveOp>(op)) {
        theta = coll.getThetaAttr();
        kindAttr = coll.getKindAttr();
      }
      if (theta)
        if (auto own = theta.getAs<StringAttr>("name"))
          if (!own.getValue().empty())
            name = own.getValue();
      for (uint32_t dev : task.devices) {
        calculus::Signature share = calculus::taskShare(s, t, dev);
        double t0 = start[t] - origin;
        llvm::json::Object args{
            {"task", symbol.str()},
            {"stream", int64_t(task.stream)},
            {"T_s", share.T},
            {"d_J", share.d},
            {"E_J", share.s * share.T + share.d},
            {"dynamic_W", share.T > 0 ? share.d / share.T : 0}};
        if (kindAttr)
          args["kind"] = kindAttr.getValue().str();
        // A trace's region (--import-kineto --regions): its begin, which
        // the import reads back.
        if (theta && kindAttr && kindAttr.getValue() == "region")
          if (auto k = theta.getAs<IntegerAttr>("occurrence");
              k && k.getInt() >= 0) {
            args["occurrence"] = k.getInt();
            if (auto n = theta.getAs<IntegerAttr>("begins");
                n && n.getInt() > k.getInt())
              args["begins"] = n.getInt();
          }
        // The spreads, so that an import carries the uncertainty (not the
        // shared parameters' correlations: a trace has no place for them).
        if (share.varT > 0)
          args["sigma_T_s"] = std::sqrt(share.varT);
        if (share.varD > 0)
          args["sigma_d_J"] = std::sqrt(share.varD);
        if (auto dvfs = op->getAttrOfType<OpPointAttr>(
                EnergyDialect::DvfsAttrHelper::getNameStr()))
          if (std::optional<int64_t> mhz = dvfs.getSmMhz()) {
            args["sm_mhz"] = *mhz;
            tracks[dev].clockSteps[t0] = *mhz;
          }
        if (auto taskOp = dyn_cast<TaskOp>(op)) {
          if (ArrayAttr options = taskOp.getOptionsAttr())
            for (Attribute a : options)
              if (auto opt = dyn_cast<OptionAttr>(a))
                if (std::optional<int64_t> mhz = opt.getOpPoint().getSmMhz())
                  tracks[dev].baselineMhz =
                      std::max(tracks[dev].baselineMhz.value_or(0), *mhz);
        }
        // Kineto's categories: an imported copy or set stays one.
        StringRef cat = "kernel";
        if (kindAttr && kindAttr.getValue() == "memcpy")
          cat = "gpu_memcpy";
        else if (kindAttr && kindAttr.getValue() == "memset")
          cat = "gpu_memset";
        events.push_back(llvm::json::Object{{"ph", "X"},
                                            {"cat", cat.str()},
                                            {"name", name.str()},
                                            {"pid", pidBase + int64_t(dev)},
                                            {"tid", int64_t(task.stream)},
                                            {"ts", us(t0)},
                                            {"dur", us(share.T)},
                                            {"args", std::move(args)}});
        tracks[dev].draw(t0, share.T, share.d);
      }
    }
    // Dependencies as flow events (arrows in Perfetto; --import-kineto
    // reads them back as dependencies): each starts inside its
    // predecessor's slice (a start-to-start one at its start, a
    // finish-to-start one at its middle, so that a slice starting where it
    // ends does not claim the arrow) and ends where the task starts, on each
    // one's first device. The kind, lag, the lag's spread and both tasks'
    // symbols (their slices' `args.task`) ride on the start event.
    for (uint32_t t = 0; t < s.tasks.size(); ++t) {
      const calculus::ScheduleTask &task = s.tasks[t];
      if (task.devices.empty())
        continue;
      for (const calculus::Dependency &dep : task.deps) {
        const calculus::ScheduleTask &pred = s.tasks[dep.pred];
        if (pred.devices.empty())
          continue;
        int64_t id = ++flows;
        llvm::json::Object args{
            {"dependency",
             dep.startToStart ? "start_to_start" : "finish_to_start"},
            {"lag_s", dep.lag},
            {"from",
             SymbolTable::getSymbolName(g->taskOps[dep.pred]).getValue().str()},
            {"to", SymbolTable::getSymbolName(g->taskOps[t]).getValue().str()}};
        if (dep.varLag > 0)
          args["delay_sigma_s"] = std::sqrt(dep.varLag);
        events.push_back(llvm::json::Object{
            {"ph", "s"},
            {"cat", "dependency"},
            {"name", "dependency"},
            {"id", id},
            {"pid", pidBase + int64_t(pred.devices[0])},
            {"tid", int64_t(pred.stream)},
            {"ts", us(start[dep.pred] - origin +
                      (dep.startToStart ? 0 : pred.duration / 2))},
            {"args", std::move(args)}});
        events.push_back(
            llvm::json::Object{{"ph", "f"},
                               {"bp", "e"},
                               {"cat", "dependency"},
                               {"name", "dependency"},
                               {"id", id},
                               {"pid", pidBase + int64_t(task.devices[0])},
                               {"tid", int64_t(task.stream)},
                               {"ts", us(start[t] - origin)}});
      }
    }
    for (uint32_t dev = 0; dev < nDev; ++dev) {
      sched::DeviceOp d = g->deviceOps[dev];
      double sW = s.devices[dev].staticPower;
      tracks[dev].staticPower = sW;
      std::string owner =
          several ? ("@" + sched.getSymName() + "/").str() : std::string();
      tracks[dev].label = (owner + "@" + d.getSymName() + " (" + d.getKind() +
                           ", static " + formatNumber(sW) + " W)")
                              .str();
      tracks[dev].emit(events, pidBase + int64_t(dev), makespan);
      scheduleDevices.push_back(
          llvm::json::Object{{"id", pidBase + int64_t(dev)},
                             {"name", d.getKind().str()},
                             {"static_power_W", sW}});
    }
    pidBase += int64_t(nDev);
  }
  // Energy trees (a lowered or hand-written composition): each root from
  // time 0, its devices after the schedules'. The counters follow the
  // physical picture (a device draws its static power whenever it is held);
  // a composition that charges otherwise (contexts, a measured composite's
  // closure) is said, with both totals.
  for (Operation &op : module.getBody()->getOperations()) {
    if (!isTreeRoot(&op))
      continue;
    FailureOr<calculus::Signature> composed =
        composeTree(&op, TreeMode::Evaluate);
    if (failed(composed))
      return failure();
    TreeLayout tree;
    tree.pidBase = pidBase;
    double end;
    if (failed(tree.place(&op, 0, 0, end)))
      return failure();
    any = true;
    noteModel(&op);
    for (llvm::json::Value &e : tree.slices)
      events.push_back(std::move(e));
    double counted = 0;
    for (unsigned dev = 0; dev < tree.tracks.size(); ++dev)
      counted += tree.tracks[dev].emit(events, pidBase + int64_t(dev), end);
    double E = composed->s * composed->T + composed->d;
    if (std::fabs(counted - E) > 1e-9 * std::max(1.0, std::fabs(E)))
      mlir::emitWarning(op.getLoc(), "--export-perfetto: the counters give ")
          << formatQuantity(counted, Dimension::Energy, 6)
          << ", the composition " << formatQuantity(E, Dimension::Energy, 6)
          << " (its closure is not the sum of its parts' power over time: "
             "contexts, or a measured composite whose parts override their "
             "devices' static power, where the composition leaves the "
             "devices and the counters do not)";
    pidBase += int64_t(tree.tracks.size());
  }
  if (!any)
    return mlir::emitError(energy::moduleErrorLoc(module),
                           "--export-perfetto: no sched.schedule or energy "
                           "tree to export");
  eventsClosed = true;
  json.arrayEnd();
  json.attributeEnd();
  json.attribute("displayTimeUnit", "ms");
  // A one-device schedule is one rank's trace: its device (Kineto's
  // deviceProperties, with the static power added) lets --import-kineto
  // read it back without --static-power.
  if (scheduleDevices.size() == 1 && pidBase == 1)
    json.attribute("deviceProperties",
                   llvm::json::Array{std::move(scheduleDevices[0])});
  json.attribute("generator", generatorOf(kPerfettoExportTool, module));
  if (!models.empty())
    json.attribute("energy_model", llvm::join(models, "; "));
  json.objectEnd();
  buffer.flush();
  os << text << "\n";
  return success();
}
