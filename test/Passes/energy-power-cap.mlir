// Zeus's choice for bert-huge-uncased on four A100s (Perseus artifact,
// zeus_global_A100.csv): eta = 0.5, MAXPOWER = 4 x 300 W -> 275 W.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'power_limit,time,energy\n300,6.354814670704029,6819.0174444439235\n275,6.545744878274424,6516.6108518513265\n250,6.867364627343637,6298.68407407403\n225,7.572788035428082,6308.962481479954\n200,8.963011288643,6661.7613888888\n175,11.076818917274,7258.9802963\n' > %t/bert.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/bert.csv eta=0.5 max-power=1200" | FileCheck %s
// RUN: energy-opt %s --energy-power-cap="table=%t/bert.csv max-slowdown=10" | FileCheck %s --check-prefix=SLOW
// RUN: not energy-opt %s --energy-power-cap="table=%t/missing.csv max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: printf 'power_limit,time\n300,6.3\n' > %t/short.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/short.csv max-power=1" 2>&1 | FileCheck %s --check-prefix=COLS
// RUN: not energy-opt %s --energy-power-cap="table=%t/bert.csv" 2>&1 | FileCheck %s --check-prefix=MAXPOWER

// CHECK: sched.schedule @job attributes {energy.power_cap_choice = {E_J = 6516.6{{[0-9]*}} : f64, T_s = 6.5457{{[0-9]*}} : f64, eta = 5.000000e-01 : f64, max_power_W = 1.200000e+03 : f64, objective = "zeus-cost", power_cap_W = 2.750000e+02 : f64, rows = "{{.*}}bert.csv"}}
// CHECK: sched.device @gpu0 kind "A100-PCIe" static 50 W {energy.power_cap = #energy.op_point<power_cap = 275 W>}
// SLOW: power_cap_W = 2.500000e+02
// MISSING: energy-power-cap: {{.*}}missing.csv: cannot read
// A negative MAXPOWER is named as such (it read as "needs max-slowdown or
// max-power"), and a hexadecimal cell is no number.
// RUN: not energy-opt %s --energy-power-cap="table=%t/bert.csv eta=0.5 max-power=-600" 2>&1 | FileCheck %s --check-prefix=NEGPOWER
// NEGPOWER: energy-power-cap: max-power must be a positive, finite power (W); got -600
// RUN: printf 'power_limit,time,energy\n0x12c,6.35,6819\n275,6.55,6516\n' > %t/hex.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/hex.csv max-slowdown=10" 2>&1 | FileCheck %s --check-prefix=HEX
// HEX: hex.csv:2:1: the power limit must be a positive number of watts, at most 1e15
// COLS: needs columns power_limit (or power_limit_0), time and energy
// MAXPOWER: energy-power-cap: needs max-slowdown=PCT (least energy within that slowdown) or a positive max-power=W with eta in [0, 1] (Zeus's cost)
sched.schedule @job {
  sched.device @gpu0 kind "A100-PCIe" static 50 W
  sched.task @step on @gpu0 sig <T = 6 s, d = 6 kJ>
}
// Two rows of one power limit are refused, with the line.
// RUN: printf 'power_limit,time,energy\n300,6.35,6819\n275,6.54,6516\n300,6.40,6800\n' > %t/dup.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/dup.csv eta=0.5 max-power=1200" 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: dup.csv:4:1: power limit 300 W again (first on line 2)
// RUN: not energy-opt %s --energy-power-cap="table=%t/dup.csv model=x max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=NOMODEL
// NOMODEL: model=x given, but the table has no model_name column
// One objective at a time, and a slowdown that is one; bad rows with their
// lines (an empty field is not a 0).
// RUN: not energy-opt %s --energy-power-cap="table=%t/bert.csv eta=0.5 max-power=1200 max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: energy-power-cap: give max-slowdown, or eta and max-power (Zeus's cost), not both
// RUN: not energy-opt %s --energy-power-cap="table=%t/bert.csv max-slowdown=-5" 2>&1 | FileCheck %s --check-prefix=NEGSLOW
// NEGSLOW: energy-power-cap: max-slowdown must be a finite, non-negative percentage
// A row of 0 J (a counter that did not count) would win every choice: refused
// at its cell.
// RUN: printf 'power_limit,time,energy\n300,6.35,6819\n275,6.54,0\n' > %t/zero.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/zero.csv eta=0.5 max-power=1200" 2>&1 | FileCheck %s --check-prefix=ZEROJ
// ZEROJ: zero.csv:3:10: the energy must be a positive number of joules, at most 1e15
// RUN: printf 'power_limit,time,energy\n300,6.35,6819\n275,-6.54,6516\n' > %t/neg.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/neg.csv max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=NEGROW
// NEGROW: neg.csv:3:5: the time must be a positive number of seconds, at most 1e15
// RUN: printf 'power_limit,time,energy\n300,6.35,6819\n275,,6516\n' > %t/empty.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/empty.csv max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=EMPTYROW
// EMPTYROW: empty.csv:3:5: the time must be a positive number of seconds, at most 1e15
// A table of a header only: said, with its file.
// RUN: printf 'power_limit,time,energy\n' > %t/header.csv
// RUN: not energy-opt %s --energy-power-cap="table=%t/header.csv max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: header.csv: no data rows
// A table of another job (its times ten times the schedule's makespan):
// the choice is made, and the mismatch said.
// RUN: printf 'power_limit,time,energy\n300,63.5,68190\n250,68.7,62987\n' > %t/other.csv
// RUN: energy-opt %s --energy-power-cap="table=%t/other.csv max-slowdown=10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHERJOB
// OTHERJOB: warning: energy-power-cap: {{.*}}other.csv's time at its highest limit (300 W, 63.5 s) is 10.58x @job's makespan (6 s): is the table this job's (its model, parallelism and iteration)?
