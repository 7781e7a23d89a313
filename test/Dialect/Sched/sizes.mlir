// RUN: energy-opt %s -split-input-file -verify-diagnostics
// Sizes are checked up front (docs/SCHED.md), before anything is expanded:
// a 100000 x 100000 pipeline once reached 8.4 GB in 15 s.
// RUN: not energy-translate --import-stage-profile %S/../../Translate/Inputs/tiny-profile.csv --microbatches 99999999999 --device A40 2>&1 | FileCheck %s
// CHECK: error: 'sched.pipeline' op expands into 199999999998 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 8388608 (docs/SCHED.md)

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op expands into 20000000000 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 8388608 (docs/SCHED.md)}}
  sched.pipeline @p {stages = 100000, microbatches = 100000, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// At the limit: 1 stage x 2^22 microbatches x 2 passes is 2^23 tasks; the
// closing synchronization is one more.
sched.schedule @s {
  sched.pipeline @p {stages = 1, microbatches = 4194304, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op expands into 8388609 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 8388608 (docs/SCHED.md)}}
  sched.pipeline @p {stages = 1, microbatches = 4194304, schedule = "1f1b", device_kind = "A40", static_power = 65.0, sync = 1.0e-3, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op expands into more than 2^64 tasks}}
  sched.pipeline @p {stages = 4294967296, microbatches = 4294967296, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.serve' op num_requests (100000000) x output_max (10) is above the limit of 8388608 requests and 2^31 output tokens (docs/SCHED.md)}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 16, policy = "continuous", num_requests = 100000000, arrival_rate = 4.0, prompt_min = 128, prompt_max = 2048, output_min = 1, output_max = 10, seed = 1, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 20000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 100.0}
}
