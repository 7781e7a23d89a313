//===- Passes.td - energy passes ---------------------------*- tablegen -*-===//

#ifndef ENERGY_PASSES_TD
#define ENERGY_PASSES_TD

include "mlir/Pass/PassBase.td"

def EnergyEvaluate : Pass<"energy-evaluate", "::mlir::ModuleOp"> {
  let summary = "Compose every energy tree: closures, totals and intervals";
  let description = [{
    Walks each energy tree once (CALCULUS.md sections 2-3). Every
    `energy.seq`/`par`/`multi` gets its closure signature (`-> sig <...>`,
    Property 5.3: every composite is an element, `s' = (E - d') / T'`).
    Every root gets `energy.total`: E, T, d, static energy, sigma_E, the
    prediction interval E +- c_alpha sigma_E at `confidence`, and Clark's
    E[makespan] as a separate refinement (`T_clark_s`, never mixed into the
    point prediction). Elements without signatures are errors naming them.
    With `report=PATH` the same numbers are written as JSON (docs/REPORT.md).
  }];
  let options = [
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write a JSON report of roots and composites to this path">,
    Option<"confidence", "confidence", "double", /*default=*/"0.95",
           "two-sided confidence of the prediction intervals, in (0, 1)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "print a human-readable summary of each root to stdout">,
  ];
}

def SchedExpand : Pass<"sched-expand", "::mlir::ModuleOp"> {
  let summary = "Expand schedule generators (sched.pipeline) into tasks";
  let description = [{
    Replaces every `sched.pipeline` with its devices, tasks and collectives
    in the enclosing `sched.schedule`: the exact per-stage instruction order
    of the chosen schedule and the dependencies F(s,m) -> F(s+1,m),
    B(s+1,m) -> B(s,m), F(S-1,m) -> B(S-1,m), W(s,m) after B(s,m)
    (docs/SCHED.md). Tasks given only an operating set get the signature of
    its highest-clock option (the default a GPU runs at; the fastest option
    when the set has no clocks) and keep the set.
  }];
  let dependentDialects = ["::energy::sched::SchedDialect"];
}

def SchedTiming : Pass<"sched-timing", "::mlir::ModuleOp"> {
  let summary = "Assign start times by list scheduling";
  let description = [{
    Every task starts as soon as its dependencies allow and its stream is
    free on each of its devices, streams executing in program order; tasks
    with a measured `start` keep it. Writes `start` on every task. A
    dependency cycle (including one formed with stream order) is an error
    naming its tasks.
  }];
}

def SchedToEnergy : Pass<"sched-to-energy", "::mlir::ModuleOp"> {
  let summary = "Lower timed schedules to energy.seq/par/multi (section 3.3.4)";
  let description = [{
    Per device, walks the timeline: gaps become `energy.idle`, back-to-back
    work chains with `energy.seq`, work that overlaps on one device (streams)
    becomes `energy.par` with one operand per stream (idle-prefixed for later
    starters, so partial overlaps are exact), and devices compose with
    `energy.multi`, each padded to the common start and end (docs/SCHED.md).
    Collectives become one element per device with an equal share of their
    dynamic energy. Tasks without `start` are list-scheduled first. The
    evaluated energy equals interval accounting: sum over devices of
    s_dev x makespan plus the sum of d.
  }];
  let options = [
    Option<"keepSchedule", "keep-schedule", "bool", /*default=*/"false",
           "keep the sched.schedule next to the energy tree">,
  ];
  let dependentDialects = ["::energy::EnergyDialect"];
}

#endif // ENERGY_PASSES_TD
