//===- PowerCap.cpp - --energy-power-cap ----------------------------------===//

#include "passes/Passes.h"

#include "calculus/DagFrontier.h"
#include "calculus/PowerCap.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/Units.h"
#include "dialect/Sched/Sched.h"
#include "passes/FrontierSupport.h"
#include "runtime/formats/Csv.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace energy {
#define GEN_PASS_DEF_ENERGYPOWERCAP
#include "passes/Passes.h.inc"
} // namespace energy

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

struct EnergyPowerCapPass
    : public energy::impl::EnergyPowerCapBase<EnergyPowerCapPass> {
  using EnergyPowerCapBase::EnergyPowerCapBase;

  /// The pass's error, at the module.
  LogicalResult failTable(const Twine &msg) {
    mlir::emitError(moduleErrorLoc(getOperation()), "energy-power-cap: ")
        << msg;
    return failure();
  }

  /// table=PATH's rows (the job's time and energy at each power limit).
  LogicalResult readTable(std::vector<calculus::CapPoint> &points) {
    formats::CsvTable csv;
    formats::CsvError csvErr;
    if (!formats::readCsv(table, csv, csvErr))
      return failTable(csvErr.str(table));
    std::optional<size_t> cCap = csv.column("power_limit");
    const char *capColumn = "power_limit";
    if (!cCap) {
      cCap = csv.column("power_limit_0");
      capColumn = "power_limit_0";
    }
    std::optional<size_t> cT = csv.column("time"), cE = csv.column("energy");
    if (!cCap || !cT || !cE)
      return failTable(table +
                       ": needs columns power_limit (or power_limit_0), "
                       "time and energy" +
                       csv.missingColumnHint(!cCap ? "power_limit"
                                             : !cT ? "time"
                                                   : "energy"));
    // A table of several jobs: one job's rows, named.
    std::optional<size_t> cModel = csv.column("model_name");
    if (!cModel && !model.empty())
      return failTable(table + ": model=" + model +
                       " given, but the table has no "
                       "model_name column");
    if (cModel) {
      llvm::SmallVector<std::string> names;
      for (const auto &row : csv.rows)
        if (!llvm::is_contained(names, row[*cModel]))
          names.push_back(row[*cModel]);
      if (model.empty() && names.size() > 1)
        return failTable(table + ": the table holds " + Twine(names.size()) +
                         " jobs (" + llvm::join(names, ", ") +
                         "); pick one with model=NAME");
      if (!model.empty() && !llvm::is_contained(names, model))
        return failTable(table + ": no rows of model '" + model +
                         "'; it holds " + llvm::join(names, ", "));
    }
    // Zeus's per-GPU tables (power_limit_0, power_limit_1, ...): this pass
    // applies one cap to every device, so a row whose GPUs ran at
    // different limits is not one of its options.
    std::vector<size_t> perGpu;
    for (unsigned i = 1;; ++i) {
      std::optional<size_t> c = csv.column("power_limit_" + std::to_string(i));
      if (!c)
        break;
      perGpu.push_back(*c);
    }
    std::map<double, unsigned> seenCap; // power limit -> line
    for (size_t r = 0; r < csv.rows.size(); ++r) {
      double cap, t, e;
      const auto &row = csv.rows[r];
      if (cModel && !model.empty() && row[*cModel] != model)
        continue;
      auto number = [](StringRef text, double &v) {
        return formats::csvNumber(text, v);
      };
      // Each value checked where it stands: the error names its cell.
      std::string path = table;
      auto bad = [&](size_t col, const char *what) {
        return failTable(csv.at(path, r, col) + ": " + what);
      };
      if (!number(row[*cCap], cap) || !(cap > 0) || cap > 1e15)
        return bad(*cCap, "the power limit must be a positive number of "
                          "watts, at most 1e15");
      if (!number(row[*cT], t) || !(t > 0) || t > 1e15)
        return bad(*cT, "the time must be a positive number of seconds, at "
                        "most 1e15");
      // A job draws at least its static power: 0 J is a counter that did
      // not count, and would win every choice.
      if (!number(row[*cE], e) || !(e > 0) || e > 1e15)
        return bad(*cE, "the energy must be a positive number of joules, at "
                        "most 1e15");
      for (size_t i = 0; i < perGpu.size(); ++i) {
        double other;
        // 0 (or empty): the job had no such GPU (Zeus pads its per-GPU
        // columns to the largest job's count: a 4-stage job's
        // power_limit_4..7 are 0.0).
        if (StringRef(row[perGpu[i]]).trim().empty() ||
            (number(row[perGpu[i]], other) && other == 0))
          continue;
        if (!number(row[perGpu[i]], other) || other != cap)
          return failTable(csv.at(path, r, perGpu[i]) + ": power_limit_" +
                           Twine(i + 1) + " is " + row[perGpu[i]] + " W but " +
                           capColumn + " is " + row[*cCap] +
                           " W: this row ran its GPUs at different limits, and "
                           "--energy-power-cap chooses one limit for every "
                           "device (keep the rows with one limit)");
      }
      auto [it, fresh] = seenCap.try_emplace(cap, csv.lines[r]);
      if (!fresh)
        return failTable(csv.at(path, r, *cCap) + ": power limit " +
                         row[*cCap] + " W again (first on line " +
                         Twine(it->second) + ")");
      points.push_back({cap, t, e});
    }
    if (points.empty())
      return failTable(
          table + ": no data rows" +
          (model.empty() ? std::string() : " of model '" + model + "'"));
    return success();
  }

  /// A table of another job (another model or parallelism, a whole run
  /// rather than an iteration) chooses a limit for the wrong workload: its
  /// time at its highest limit against the schedule's makespan as it
  /// stands, said where they differ by more than 25 % (a limit changes the
  /// time by less than that near the top). Skipped where the schedule
  /// cannot be timed yet (its errors are the later passes').
  void checkTableIsThisJobs(ScheduleOp sched,
                            const std::vector<calculus::CapPoint> &rows) {
    if (rows.empty())
      return;
    double T = 0;
    {
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<Choices> c = Choices::build(sched, /*deviceCaps=*/false);
      if (failed(c))
        return;
      calculus::dagEnergy(c->graph.schedule, c->options, c->current, 0, &T);
    }
    const calculus::CapPoint *top = &rows.front();
    for (const calculus::CapPoint &r : rows)
      if (r.cap > top->cap)
        top = &r;
    if (!(T > 0) || !(top->T > 0))
      return;
    double ratio = top->T / T;
    if (ratio > 1.25 || ratio < 1 / 1.25)
      sched.emitWarning("energy-power-cap: ")
          << table << "'s time at its highest limit ("
          << formatQuantity(top->cap, Dimension::Power, 4) << ", "
          << formatQuantity(top->T, Dimension::Time, 5) << ") is "
          << llvm::formatv("{0:F2}", ratio) << "x @" << sched.getSymName()
          << "'s makespan (" << formatQuantity(T, Dimension::Time, 5)
          << "): is the table this job's (its model, parallelism and "
             "iteration)?";
  }

  /// Without a table: the schedule's own, from its tasks' options measured
  /// at several power caps (a DB characterized with --power-limits): at
  /// each cap every task runs at its option of that cap with the highest
  /// SM clock (the clocks the cap throttles, as the job runs under a limit
  /// with no clock locked; the fastest where no clock is named), and the
  /// schedule's makespan and energy are evaluated by interval accounting
  /// (calculus::dagEnergy). A task with no option at a cap leaves that cap
  /// out (said); tasks whose options name no cap keep their signature.
  /// `choiceOf[i]`: each task's option in `points[i]`'s row; `c`: the
  /// operating sets they index.
  LogicalResult tableOfOptions(ScheduleOp sched,
                               std::vector<calculus::CapPoint> &points,
                               std::vector<std::vector<uint32_t>> &choiceOf,
                               FailureOr<Choices> &c) {
    // Every option, whatever cap an earlier run set on the devices (this
    // one replaces it).
    c = Choices::build(sched, /*deviceCaps=*/false);
    if (failed(c))
      return failure();
    std::vector<double> caps = optionCaps(*c);
    if (caps.empty())
      return sched.emitError("energy-power-cap: no task of @")
             << sched.getSymName()
             << " has options measured at a power cap: give table=PATH (the "
                "job's power_limit,time,energy), or fill the operating sets "
                "from a DB characterized with --power-limits";
    std::vector<std::string> missing;
    for (double cap : caps) {
      size_t lacking = 0;
      std::vector<uint32_t> choice = choiceAtCap(*c, cap, lacking);
      if (choice.empty()) {
        missing.push_back(
            formatQuantity(cap, Dimension::Power, 4) + " (@" +
            c->graph.taskOps[lacking]
                ->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())
                .getValue()
                .str() +
            ")");
        continue;
      }
      double T = 0;
      double E =
          calculus::dagEnergy(c->graph.schedule, c->options, choice, 0, &T);
      points.push_back({cap, T, E});
      choiceOf.push_back(std::move(choice));
    }
    if (!missing.empty())
      mlir::emitWarning(sched.getLoc(), "energy-power-cap: ")
          << (points.empty() ? "no cap has" : "caps left out, without")
          << " an option of every task: " << llvm::join(missing, ", ");
    if (points.empty())
      return sched.emitError("energy-power-cap: no power cap of @")
             << sched.getSymName() << " has an option of every task";
    return success();
  }

  /// `summary=true`: every cap's row (as Zeus logs each limit it
  /// profiled) and the choice against the highest cap's row, on standard
  /// error.
  void printRows(ScheduleOp sched, const std::vector<calculus::CapPoint> &rows,
                 size_t chosen) {
    auto q = [](double v, Dimension d) { return formatQuantity(v, d, 5); };
    llvm::raw_ostream &os = llvm::errs();
    os << "@" << sched.getSymName() << " power caps ("
       << (table.empty() ? std::string("the tasks' options")
                         : std::string(table))
       << "; "
       << (maxSlowdown >= 0
               ? llvm::formatv("least energy within {0}% of the fastest row",
                               double(maxSlowdown))
                     .str()
               : llvm::formatv("Zeus's cost, eta {0}, MAXPOWER {1}",
                               double(eta),
                               formatQuantity(maxPower, Dimension::Power, 5))
                     .str())
       << ")\n";
    std::vector<size_t> order(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return rows[a].cap > rows[b].cap; });
    const calculus::CapPoint &top = rows[order.front()];
    for (size_t i : order) {
      const calculus::CapPoint &r = rows[i];
      os << "  " << q(r.cap, Dimension::Power) << "  "
         << q(r.T, Dimension::Time) << "  " << q(r.E, Dimension::Energy);
      if (i == chosen)
        os << llvm::formatv("  <- chosen: {0:F2}% less energy, {1:F2}% "
                            "slower than {2}",
                            100 * (1 - r.E / top.E), 100 * (r.T / top.T - 1),
                            q(top.cap, Dimension::Power));
      os << "\n";
    }
  }

  void runOnOperation() override {
    energy::warnNestedSchedules(getOperation(), "energy-power-cap");
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      mlir::emitError(moduleErrorLoc(module), "energy-power-cap: ") << msg;
      signalPassFailure();
    };
    // One objective: the slowdown bound, or Zeus's cost (eta, MAXPOWER).
    // Read from the values, not from whether an option was spelled (a
    // pass built from its options struct has every option set): -1, the
    // default, is "no slowdown bound", and Zeus's cost needs MAXPOWER > 0.
    bool slowdownGiven = maxSlowdown != -1;
    if (slowdownGiven && maxPower > 0)
      return fail("give max-slowdown, or eta and max-power (Zeus's cost), "
                  "not both");
    if (slowdownGiven && !(maxSlowdown >= 0 && std::isfinite(maxSlowdown)))
      return fail("max-slowdown must be a finite, non-negative percentage");
    if (!slowdownGiven && maxPower != 0 &&
        !(maxPower > 0 && std::isfinite(maxPower)))
      return fail("max-power must be a positive, finite power (W); got " +
                  llvm::formatv("{0}", double(maxPower)).str());
    if (!slowdownGiven && !(maxPower > 0))
      return fail("needs max-slowdown=PCT (least energy within that "
                  "slowdown) or a positive max-power=W with eta in [0, 1] "
                  "(Zeus's cost)");
    std::vector<calculus::CapPoint> points;
    if (!table.empty() && failed(readTable(points)))
      return signalPassFailure();
    if (table.empty() && !model.empty())
      return fail("model=" + model + " picks a table's rows: give table=PATH");
    calculus::CapObjective obj;
    if (maxSlowdown >= 0) {
      obj.kind = calculus::CapObjective::MinEnergyUnderSlowdown;
      obj.maxSlowdownPct = maxSlowdown;
    } else {
      obj.kind = calculus::CapObjective::ZeusCost;
      obj.eta = eta;
      obj.maxPower = maxPower;
    }
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    for (ScheduleOp sched : module.getOps<ScheduleOp>()) {
      // A schedule whose devices a generator makes (sched.pipeline) has
      // none to cap before --sched-expand: the cap would be recorded and
      // never applied.
      if (sched.getBody().getOps<sched::DeviceOp>().empty()) {
        sched.emitError("energy-power-cap: @")
            << sched.getSymName()
            << " has no sched.device to cap (a generator's devices exist "
               "after --sched-expand: run it first)";
        return signalPassFailure();
      }
      // The table's rows hold for every schedule; without one, each
      // schedule's own.
      std::vector<calculus::CapPoint> own;
      std::vector<std::vector<uint32_t>> choiceOf;
      FailureOr<Choices> c = failure();
      if (table.empty() && failed(tableOfOptions(sched, own, choiceOf, c)))
        return signalPassFailure();
      const std::vector<calculus::CapPoint> &rows =
          table.empty() ? own : points;
      if (!table.empty())
        checkTableIsThisJobs(sched, rows);
      size_t chosen = 0;
      std::string err;
      if (!calculus::choosePowerCap(rows, obj, chosen, err))
        return fail(err);
      const calculus::CapPoint &p = rows[chosen];
      if (summary)
        printRows(sched, rows, chosen);
      auto cap = OpPointAttr::get(ctx, std::nullopt, std::nullopt, Real{p.cap},
                                  std::nullopt);
      // From the tasks' options: the devices whose tasks were measured at
      // caps (a host's were not); from a table, every device.
      std::set<StringRef> capped;
      if (table.empty())
        capped = cappedDevices(*c);
      for (sched::DeviceOp dev : sched.getBody().getOps<sched::DeviceOp>())
        if (!table.empty() || capped.count(dev.getSymName()))
          dev->setAttr(EnergyDialect::PowerCapAttrHelper::getNameStr(), cap);
        else
          dev->removeAttr(EnergyDialect::PowerCapAttrHelper::getNameStr());
      // From the tasks' options: each task now runs as in the chosen row.
      if (table.empty())
        runAtChoice(*c, choiceOf[chosen]);
      // What the objective was given: the slowdown, or eta and MAXPOWER (a
      // default taken is recorded too); where the rows came from.
      llvm::SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("power_cap_W", b.getF64FloatAttr(p.cap)),
          b.getNamedAttr("T_s", b.getF64FloatAttr(p.T)),
          b.getNamedAttr("E_J", b.getF64FloatAttr(p.E)),
          b.getNamedAttr("objective",
                         b.getStringAttr(maxSlowdown >= 0
                                             ? "min-energy-under-slowdown"
                                             : "zeus-cost")),
          b.getNamedAttr("rows",
                         b.getStringAttr(table.empty() ? "the tasks' options"
                                                       : StringRef(table)))};
      if (maxSlowdown >= 0) {
        fields.push_back(
            b.getNamedAttr("max_slowdown_pct", b.getF64FloatAttr(maxSlowdown)));
      } else {
        fields.push_back(b.getNamedAttr("eta", b.getF64FloatAttr(eta)));
        fields.push_back(
            b.getNamedAttr("max_power_W", b.getF64FloatAttr(maxPower)));
      }
      sched->setAttr(EnergyDialect::PowerCapChoiceAttrHelper::getNameStr(),
                     b.getDictionaryAttr(fields));
    }
  }
};
} // namespace
