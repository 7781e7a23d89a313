//===- SchedDialect.td - The sched dialect -----------------*- tablegen -*-===//

#ifndef SCHED_DIALECT_TD
#define SCHED_DIALECT_TD

include "mlir/IR/OpBase.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::energy::sched";
  let summary = "Training and inference schedules: tasks on devices and "
                "streams with dependencies";
  let description = [{
    A `sched.schedule` is a DAG of tasks placed on devices (CALCULUS.md
    section 6). Tasks carry their device, stream, dependencies, kind,
    workload parameters (theta), and optionally a measured start time, a
    signature and an operating set. Generator ops (`sched.pipeline`) expand
    into tasks with `--sched-expand`; `--sched-timing` assigns start times;
    `--sched-to-energy` lowers a timed schedule into the `energy` dialect.
  }];
  let dependentDialects = ["::energy::EnergyDialect"];
}

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

#endif // SCHED_DIALECT_TD
