// RUN: not energy-opt %s --sched-expand 2>&1 | FileCheck %s --check-prefix=TWO

// Two pipelines in one schedule would declare the same devices twice.
// TWO: error: 'sched.pipeline' op is the second pipeline in @two: a schedule holds one (each names its devices stage0, stage1, ...); give it a sched.schedule of its own
// TWO: note: the first is here
sched.schedule @two {
  sched.pipeline @a {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", forward = #energy.sig<T = 1 ms, d = 1 J>, backward = #energy.sig<T = 2 ms, d = 2 J>, static_power = 60.0}
  sched.pipeline @b {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", forward = #energy.sig<T = 1 ms, d = 1 J>, backward = #energy.sig<T = 2 ms, d = 2 J>, static_power = 60.0}
}
