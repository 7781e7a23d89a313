// The passes that work on a module's schedules work on its own, as MLIR's
// module passes do; a nested module's schedule is said to be left alone
// (it was lowered, planned or left unlowered without a word), and nesting
// the pass reaches it. energy-translate reads trees in func bodies, as
// energy-opt does.
// RUN: energy-opt %s -split-input-file --sched-to-energy 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: nested-modules.mlir:[[@LINE+13]]:5: warning: sched-to-energy: @sch is in a nested module and is left alone: this pass works on its module's own schedules; nest it to reach that module's (--pass-pipeline='builtin.module(builtin.module(sched-to-energy))')
// RUN: energy-opt %s -split-input-file --energy-plan=max-slowdown=10 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: warning: energy-plan: @sch is in a nested module and is left alone
// RUN: sed -n '/^module @outer {/,/^}/p' %s > %t.one.mlir
// RUN: energy-opt %t.one.mlir --pass-pipeline='builtin.module(builtin.module(sched-to-energy))' | FileCheck %s --check-prefix=NESTED
// NESTED: module @inner {
// NESTED-NEXT: energy.device @d0 kind "A100" static 60 W
// NESTED-NEXT: energy.multi @sch {
// RUN: energy-opt %t.one.mlir --sched-to-energy --energy-evaluate -o %t.mlir 2>/dev/null
// RUN: energy-translate --export-perfetto %t.mlir -o /dev/null
// RUN: not energy-opt %s -split-input-file --sched-expand 2>&1 | FileCheck %s --check-prefix=TWO
module @outer {
  module @inner {
    sched.schedule @sch {
      sched.device @d0 kind "A100" static 60 W
      sched.task @x on @d0 sig <T = 1 ms, d = 1 J>
      sched.task @y on @d0 after [@x] sig <T = 1 ms, d = 1 J>
    }
  }
  sched.schedule @top {
    sched.device @d1 kind "A100" static 60 W
    sched.task @z on @d1 sig <T = 2 ms, d = 1 J>
  }
  func.func @f() {
    energy.seq @t {
      energy.element @b on @d2 sig <T = 2 ms, d = 1 J>
    }
    return
  }
  energy.device @d2 kind "A100" static 60 W
}

// -----

// A schedule in a nested module holding two pipelines is told so, as at the
// top level.
module @outer2 {
  module @inner {
    sched.schedule @sch {
      sched.pipeline @p1 {stages = 2, microbatches = 2, schedule = "gpipe", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 10 ms, d = 2 J>, backward = #energy.sig<T = 20 ms, d = 5 J>}
      // TWO: nested-modules.mlir:[[@LINE+1]]:7: error: 'sched.pipeline' op is the second pipeline in @sch
      sched.pipeline @p2 {stages = 2, microbatches = 2, schedule = "gpipe", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 10 ms, d = 2 J>, backward = #energy.sig<T = 20 ms, d = 5 J>}
    }
  }
}
