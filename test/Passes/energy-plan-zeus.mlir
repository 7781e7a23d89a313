// objective=zeus: the frontier point of least Zeus cost eta E + (1 - eta)
// MAXPOWER T (Zeus, NSDI '23, Eq. 2) within the limit -- the knob a Zeus
// user sets, over clocks here. By hand, static 50 W, one task:
//   1410 MHz: 1 s,   E = 50 + 200 = 250 J
//   1200 MHz: 1.2 s, E = 60 + 150 = 210 J
//   1005 MHz: 1.5 s, E = 75 + 130 = 205 J
// eta 0.5, MAXPOWER 400 W: 325, 345, 402.5 -> 1410 MHz;
// eta 0.9: 265, 237, 244.5 -> 1200 MHz; eta 1 (energy): 1005 MHz.
// RUN: energy-opt %s --energy-plan="objective=zeus eta=0.5 max-power=400 max-slowdown=100" | FileCheck %s --check-prefix=HALF
// RUN: energy-opt %s --energy-plan="objective=zeus eta=0.9 max-power=400 max-slowdown=100" | FileCheck %s --check-prefix=NINE
// RUN: energy-opt %s --energy-plan="objective=zeus eta=1 max-power=400 max-slowdown=100" | FileCheck %s --check-prefix=ONE
// HALF: eta = 5.000000e-01 : f64{{.*}}max_power_W = 4.000000e+02 : f64{{.*}}objective = "zeus"
// HALF: sched.task @step {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1410>
// NINE: sched.task @step {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1200>
// ONE: sched.task @step {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1005>
// Its knob and MAXPOWER are checked, and belong to it alone.
// RUN: not energy-opt %s --energy-plan="objective=zeus max-slowdown=100" 2>&1 | FileCheck %s --check-prefix=NOMAX
// NOMAX: error: energy-plan: objective=zeus needs eta in [0, 1] and max-power=W > 0 (the job's GPUs' highest power limits summed); got eta=0.5 max-power=0
// RUN: not energy-opt %s --energy-plan="objective=zeus eta=1.5 max-power=400" 2>&1 | FileCheck %s --check-prefix=ETA
// ETA: got eta=1.5 max-power=400
// RUN: not energy-opt %s --energy-plan="max-power=400 max-slowdown=5" 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: energy-plan: eta and max-power are Zeus's cost: give them with objective=zeus
sched.schedule @job {
  sched.device @g kind "A100-SXM4" static 50 W
  sched.task @step on @g sig <T = 1 s, d = 200 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 200 J>, #energy.option<sm_mhz = 1200, T = 1.2 s, d = 150 J>, #energy.option<sm_mhz = 1005, T = 1.5 s, d = 130 J>]
}
