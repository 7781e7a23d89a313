// RUN: energy-opt --mlir-print-local-scope %s --energy-plan="max-slowdown=25" -split-input-file | FileCheck %s
// RUN: energy-opt --mlir-print-local-scope %s --energy-plan="max-slowdown=25" --energy-emit-dvfs -split-input-file | FileCheck %s --check-prefix=EMIT
// Every plan re-lowers and re-evaluates to its own E and T (1e-9); with the
// switches emitted as tasks, to its E and T with switches:
// RUN: rm -rf %t && mkdir -p %t
// RUN: energy-opt --mlir-print-local-scope %s --energy-plan="max-slowdown=25" -split-input-file -o %t/plan.mlir
// RUN: energy-opt --mlir-print-local-scope %t/plan.mlir --sched-to-energy --energy-evaluate -split-input-file -o %t/plan-re.mlir
// RUN: %python %S/plan_reevaluates.py %t/plan.mlir %t/plan-re.mlir | FileCheck %s --check-prefix=AGAIN
// RUN: energy-opt --mlir-print-local-scope %s --energy-plan="max-slowdown=25" --energy-emit-dvfs -split-input-file -o %t/emit.mlir
// RUN: energy-opt --mlir-print-local-scope %t/emit.mlir --sched-to-energy --energy-evaluate -split-input-file -o %t/emit-re.mlir
// RUN: %python %S/plan_reevaluates.py %t/emit.mlir %t/emit-re.mlir | FileCheck %s --check-prefix=AGAIN
// AGAIN: plan re-evaluates to its claim
// The plan file's time and energy are the switched ones (what the plan
// runs at, and the period run-plan's timeline repeats at); the splits'
// modules are read as one file.
// RUN: energy-translate --export-plan %t/emit.mlir -o %t/emit.json
// Exported before the switches are tasks, the file's starts would not
// hold what its T counts: refused, with the way.
// RUN: not energy-translate --export-plan %t/plan.mlir -o %t/early.json 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: 'sched.schedule' op --export-plan: @cheap's plan runs {{.*}} with its clock switches ({{.*}} without), which its tasks do not hold yet: export after --energy-emit-dvfs, which inserts them
// RUN: %python -c "import json, sys; p = {s['schedule']: s['plan'] for s in json.load(open(sys.argv[1]))['schedules']}; print(sorted(p), round(p['cheap']['T_s'], 6), round(p['cheap']['E_J'], 6))" %t/emit.json | FileCheck %s --check-prefix=FILE
// FILE: ['cheap', 'costly', 'free', 'tie', 'wrap'] 0.036 3.16
// RUN: energy-prof run-plan %t/emit.json --schedule cheap --device sim:a100 --mode timeline --dry-run -- true 2>&1 | FileCheck %s --check-prefix=TIMELINE
// TIMELINE: plan 0.036 s / 3.16 J per iteration
// Without --energy-plan there is nothing to emit, and the pass says so.
// RUN: energy-opt %s --energy-emit-dvfs -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPLAN
// NOPLAN: warning: energy-emit-dvfs: no schedule was planned (no energy.plan, no task's energy.dvfs): run --energy-plan first; nothing to emit
// The switches are in the plan (marked "kind": "dvfs-switch"), not in the
// job's clock list: they are no regions of it.
// RUN: energy-prof plan-clocks %t/emit.json --schedule cheap --plan-device g | FileCheck %s --check-prefix=CLOCKS --implicit-check-not=.switch
// CLOCKS: a 1200
// CLOCKS-NEXT: b 900
// CLOCKS-NEXT: c 1200
// RUN: %python -c "import json, sys; s = [s for s in json.load(open(sys.argv[1]))['schedules'] if s['schedule'] == 'cheap'][0]; print([t.get('kind', '-') for t in s['devices'][0]['tasks']])" %t/emit.json | FileCheck %s --check-prefix=KINDS
// KINDS: ['-', 'dvfs-switch', '-', 'dvfs-switch', '-']

// The planner weighs each candidate with what its clock switches cost. One
// device of 10 W runs @a -> @b -> @c; only @b may slow down (900 MHz:
// 14 ms, 0.7 J instead of 10 ms, 1 J). Frontier: (30 ms, 3.30 J) all at
// 1200 MHz, (34 ms, 3.04 J) with @b at 900. Limit: 30 ms x 1.25 = 37.5 ms.
//
// Without a declared switch cost: @b at 900 MHz, 3.04 J.
// CHECK-LABEL: sched.schedule @free
// CHECK-SAME: E_J = 3.04
// CHECK-NOT: switches
// CHECK: sched.task @b {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 900>
sched.schedule @free {
  sched.device @g kind "X" static 10 W
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
  sched.task @b on @g after [@a] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>]
  sched.task @c on @g after [@b] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
}

// -----

// Switches at 1 ms and 50 mJ: slowing @b takes two (1200 -> 900 -> 1200):
// 36 ms and 0.36 + 2.7 + 0.1 = 3.16 J, still below 3.30 J: kept, and the
// emitted switches give the same figures. The saving is counted with the
// switches: 1 - 3.16 / 3.30 = 4.24 %.
// CHECK-LABEL: sched.schedule @cheap
// CHECK-SAME: E_J = 3.04
// CHECK-SAME: E_with_switches_J = {{3.1599[0-9]*|3.16[0-9]*}}
// CHECK-SAME: T_with_switches_s = {{0.036|3.6[0-9]*e-02}}
// The gap is the switched plan's above the bound (3.04 J, without switches):
// 3.16 / 3.04 - 1 = 3.95 %.
// CHECK-SAME: gap_pct = 3.947
// CHECK-SAME: saving_pct = 4.24
// CHECK-SAME: switches = 2
// CHECK: sched.task @b {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 900>
// EMIT-LABEL: sched.schedule @cheap
// EMIT-SAME: E_with_switches_J = {{3.1599[0-9]*|3.16[0-9]*}}
// EMIT-SAME: switches = 2
// EMIT: sched.task @b.switch on @g kind "dvfs-switch"
// EMIT: sched.task @c.switch on @g kind "dvfs-switch"
sched.schedule @cheap {
  sched.device @g kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 50 mJ>}
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
  sched.task @b on @g after [@a] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>]
  sched.task @c on @g after [@b] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
}

// -----

// Switches at 1 ms and 200 mJ: slowing @b would cost 0.36 + 2.7 + 0.4 =
// 3.46 J > 3.30 J, so the plan keeps every task at 1200 MHz (no switch).
// CHECK-LABEL: sched.schedule @costly
// CHECK-SAME: E_J = 3.3
// CHECK-SAME: E_with_switches_J = 3.3
// CHECK-SAME: switches = 0
// CHECK: sched.task @b {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 1200>
sched.schedule @costly {
  sched.device @g kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 200 mJ>}
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
  sched.task @b on @g after [@a] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 14 ms, d = 700 mJ>]
  sched.task @c on @g after [@b] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>]
}

// -----

// The schedule is one period of a job that repeats it: @a at 705 MHz and
// @b at 1410 switch twice per period, back to 705 before @a as well as to
// 1410 before @b (one was counted, and run-plan made 3 switches in 2
// iterations of a plan claiming 1 each). Limit 2 s x 1.25 = 2.5 s; @a slow
// with its two 50 ms switches: 1.2 + 1 + 0.1 = 2.3 s, E = 20 W x 2.3 s +
// 40 J + 80 J + 2 x 0.1 J = 166.2 J (all at 1410: 220 J).
// CHECK-LABEL: sched.schedule @wrap
// CHECK-SAME: E_with_switches_J = 1.662000e+02
// CHECK-SAME: T_with_switches_s = 2.300000e+00
// CHECK-SAME: switches = 2
// EMIT-LABEL: sched.schedule @wrap
// EMIT: sched.task @a.switch on @g kind "dvfs-switch" {from_mhz = 1410 : i64, to_mhz = 705 : i64}
// EMIT: sched.task @a on @g
// EMIT: sched.task @b.switch on @g kind "dvfs-switch" {from_mhz = 705 : i64, to_mhz = 1410 : i64}
// The plan file's runs begin at the switches (run-plan sets the clock
// there, not after the switch's time at the old clock).
// RUN: %python -c "import json, sys; s = [s for s in json.load(open(sys.argv[1]))['schedules'] if s['schedule'] == 'wrap'][0]; print(s['plan']['with_switches']['switches'], [(r['first'], r['sm_mhz']) for r in s['devices'][0]['runs']])" %t/emit.json | FileCheck %s --check-prefix=WRAP
// WRAP: 2 [('a.switch', 705), ('b.switch', 1410)]
sched.schedule @wrap {
  sched.device @g kind "X" static 20 W {energy.switch = #energy.sig<T = 50 ms, d = 100 mJ>}
  sched.task @a on @g sig <T = 1 s, d = 100 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 100 J>, #energy.option<sm_mhz = 705, T = 1.2 s, d = 40 J>]
  sched.task @b on @g after [@a] sig <T = 1 s, d = 80 J> options [#energy.option<sm_mhz = 1410, T = 1 s, d = 80 J>, #energy.option<sm_mhz = 1005, T = 2 s, d = 79 J>]
}

// -----

// Options that tie exactly (@z: the same time and energy at both clocks, as
// a region doing no GPU work measures) take the clock their lane runs
// before them: @a, @z and @c at 900 MHz, no switch -- 12 + 1 + 12 = 25 ms
// within 21 x 1.25 = 26.25 ms, 10 W x 25 ms + 0.7 + 0.1 + 0.7 = 1.75 J. At
// @z's first option (1200) it would take two switches per iteration (27
// ms, past the limit), and the plan only one slow task (2.07 J).
// CHECK-LABEL: sched.schedule @tie
// CHECK-SAME: E_with_switches_J = 1.75
// CHECK-SAME: switches = 0
// CHECK: sched.task @a {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 900>
// CHECK: sched.task @z {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 900>
// CHECK: sched.task @c {{.*}}energy.dvfs = #energy.op_point<sm_mhz = 900>
sched.schedule @tie {
  sched.device @g kind "X" static 10 W {energy.switch = #energy.sig<T = 1 ms, d = 10 mJ>}
  sched.task @a on @g sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 12 ms, d = 700 mJ>]
  sched.task @z on @g after [@a] sig <T = 1 ms, d = 100 mJ> options [#energy.option<sm_mhz = 1200, T = 1 ms, d = 100 mJ>, #energy.option<sm_mhz = 900, T = 1 ms, d = 100 mJ>]
  sched.task @c on @g after [@z] sig <T = 10 ms, d = 1 J> options [#energy.option<sm_mhz = 1200, T = 10 ms, d = 1 J>, #energy.option<sm_mhz = 900, T = 12 ms, d = 700 mJ>]
}
