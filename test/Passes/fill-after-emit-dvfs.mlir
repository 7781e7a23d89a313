// --energy-emit-dvfs marks only the tasks where the clock changes (the
// setting persists): filled again from the same DB, a task it left unmarked
// keeps its chosen option (the one its signature is) rather than the DB's
// highest clock, so the plan re-evaluates to what it claims and keeps its
// figures. Three relus chosen at 1005 MHz in a row: the last two unmarked.
// By hand at 1005 MHz: 3 x (4.2 us, 0.3 mJ), static 60 W:
// E = 60 W x 12.6 us + 0.9 mJ = 0.9 mJ + 0.756 mJ = 1.656 mJ.
// RUN: energy-opt %s --energy-fill-signatures=db=%S/../Translate/Inputs/kineto-keys-db.json --energy-plan="max-slowdown=10" --energy-emit-dvfs -o %t.planned.mlir
// RUN: FileCheck %s --check-prefix=MARKS --input-file %t.planned.mlir
// MARKS: sched.task @a {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1005>
// MARKS-NOT: energy.dvfs
// RUN: energy-opt %t.planned.mlir --energy-fill-signatures=db=%S/../Translate/Inputs/kineto-keys-db.json -o %t.refilled.mlir 2>&1 | FileCheck %s --allow-empty --check-prefix=REFILL
// REFILL-NOT: dropped
// RUN: FileCheck %s --check-prefix=KEPT --input-file %t.refilled.mlir
// KEPT: energy.plan =
// KEPT-COUNT-3: sig <T = 4.2 us, d = 300 uJ> db
// RUN: energy-opt %t.refilled.mlir --sched-to-energy --energy-evaluate="summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EVAL
// EVAL: energy   1.656 mJ

sched.schedule @s {
  sched.device @g kind "A100-SXM4" static 60 W
  sched.task @a on @g db "relu"
  sched.task @b on @g after [@a] db "relu"
  sched.task @c on @g after [@b] db "relu"
}
