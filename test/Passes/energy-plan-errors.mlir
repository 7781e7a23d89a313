// RUN: not energy-opt %s --energy-plan="objective=speed" 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: not energy-opt %s --energy-plan="deadline=1" 2>&1 | FileCheck %s --check-prefix=DEADLINE
// RUN: not energy-opt %s --energy-plan="crash-budget=-5" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not energy-opt %s --energy-frontier="crash-budget=abc" 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not energy-opt %s --energy-frontier="class-sweep-above=-1" 2>&1 | FileCheck %s --check-prefix=CLASS
// RUN: not energy-opt %s --energy-plan="convex-above=abc" 2>&1 | FileCheck %s --check-prefix=CONVEX
// RUN: not energy-opt %s --energy-plan="quantum=-1" 2>&1 | FileCheck %s --check-prefix=QUANTUM
// RUN: not energy-opt %s --energy-plan="step=-0.1" 2>&1 | FileCheck %s --check-prefix=QUANTUM
// QUANTUM: error: energy-plan: quantum and step must be finite and non-negative (s)
// RUN: not energy-opt %s --energy-frontier="quantum=-1" 2>&1 | FileCheck %s --check-prefix=FQUANTUM
// RUN: not energy-opt %s --energy-frontier="step=inf" 2>&1 | FileCheck %s --check-prefix=FQUANTUM
// FQUANTUM: error: energy-frontier: quantum and step must be finite and non-negative (s)
// A limit just below the fastest makespan is quoted with the digits that
// tell the two apart (a limit pasted from a rounded summary).
// RUN: not energy-opt %s --energy-plan="deadline=9.9999999" 2>&1 | FileCheck %s --check-prefix=CLOSE
// CLOSE: no frontier point meets the deadline 9.9999999 s; the fastest makespan is 10 s
// RUN: not energy-opt %s --energy-plan="max-slowdown=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: energy-plan: max-slowdown=-1 must be finite and non-negative (percent)
// RUN: not energy-opt %s --energy-plan="deadline=inf" 2>&1 | FileCheck %s --check-prefix=INF
// INF: error: energy-plan: deadline=inf must be finite and non-negative (seconds)
// RUN: not energy-opt %s --energy-plan="deadline=20 max-slowdown=2" 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: energy-plan: give deadline or max-slowdown, not both
// edp/ed2p with no limit plan at the fastest makespan: said, not silent.
// RUN: energy-opt %s --energy-plan="objective=edp" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EDPNOLIMIT
// EDPNOLIMIT: warning: energy-plan: objective=edp without deadline= or max-slowdown= plans at the fastest makespan
// RUN: energy-opt %s --energy-plan="objective=edp max-slowdown=100" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EDPLIMIT
// EDPLIMIT-NOT: without deadline=
// RUN: energy-opt %s --energy-plan="deadline=20 summary=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOPTS
// NOOPTS: warning: energy-plan: no task of @s has an operating set with more than one option: the plan is the schedule as it is
// NOOPTS: (0.00% less energy
// RUN: energy-opt %energy_src/examples/attention-tp2.mlir --energy-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSCHED
// NOSCHED: warning: energy-plan: no sched.schedule in the module; nothing was planned
// CLASS: for the --class-sweep-above option: {{.*}} value invalid
// CONVEX: for the --convex-above option: {{.*}} value invalid
// BUDGET: for the --crash-budget option: {{.*}} value invalid

// OBJ: energy-plan: objective must be energy, edp, ed2p or zeus; got 'speed'
// DEADLINE: 'sched.schedule' op energy-plan: no frontier point meets the deadline 1 s; the fastest makespan is 10 s
sched.schedule @s {
  sched.device @g0 kind "X" static 1 W
  sched.task @a on @g0 sig <T = 10 s, d = 100 J>
}
// A task with an operating set but no signature is told what the signature
// is for (its baseline), not only that it lacks one.
// RUN: printf 'sched.schedule @s {\n  sched.device @d kind "A" static 60 W\n  sched.task @a on @d options [#energy.option<sm_mhz = 1410, T = 1 ms, d = 1 J>, #energy.option<sm_mhz = 1005, T = 2 ms, d = 0.5 J>]\n}\n' > %t.opts.mlir
// RUN: not energy-opt %t.opts.mlir --energy-plan=max-slowdown=10 2>&1 | FileCheck %s --check-prefix=OPTSONLY
// OPTSONLY: @a has no signature: {{.*}} (its `options` are what a plan chooses from; `sig` is what it runs now, the baseline
