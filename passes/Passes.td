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

#endif // ENERGY_PASSES_TD
