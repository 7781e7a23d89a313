// RUN: energy-opt %s -split-input-file -verify-diagnostics
// Sizes are checked up front (docs/SCHED.md), before anything is expanded:
// a 100000 x 100000 pipeline once reached 8.4 GB in 15 s.
// RUN: not energy-translate --import-stage-profile %S/../../Translate/Inputs/tiny-profile.csv --microbatches 99999999999 --device A40 2>&1 | FileCheck %s
// CHECK: tiny-profile.csv: error: --microbatches 99999999999 with 1 stage expands into 199999999998 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 4194304 (docs/SCHED.md)

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op expands into 20000000000 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 4194304 (docs/SCHED.md)}}
  sched.pipeline @p {stages = 100000, microbatches = 100000, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

// At the limit: 1 stage x 2^21 microbatches x 2 passes is 2^22 tasks; the
// closing synchronization is one more.
sched.schedule @s {
  sched.pipeline @p {stages = 1, microbatches = 2097152, schedule = "1f1b", device_kind = "A40", static_power = 65.0, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.pipeline' op expands into 4194305 tasks (stages x microbatches x chunks x data_parallel x passes, all-reduces, sync), above the limit of 4194304 (docs/SCHED.md)}}
  sched.pipeline @p {stages = 1, microbatches = 2097152, schedule = "1f1b", device_kind = "A40", static_power = 65.0, sync = 1.0e-3, forward = #energy.sig<T = 1 ms, d = 2 J>, backward = #energy.sig<T = 2 ms, d = 4 J>}
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

// -----

// One request of 2^24 output tokens at batch 1 is 2^24 decode iterations
// (it once grew past 3.5 GB; 2^31 ran out of memory).
sched.schedule @s {
  // expected-error @+1 {{'sched.serve' op the requests ask for 16777216 output tokens at max_batch 1: above the limit of 2^31 output tokens and 2^21 decode iterations (docs/SCHED.md)}}
  sched.serve @llm {weight_bytes = 1.0e9, kv_bytes_per_token = 1.0e6, max_batch = 1, policy = "static", requests = [[0.0, 10, 16777216]], hbm_bandwidth = 1.0e9, prefill_tokens_per_s = 100.0, iteration_overhead = 0.0, device_kind = "H100-SXM5", static_power = 5.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.serve' op num_requests (4096) x output_min (4096) output tokens at max_batch 1 need more than 2^21 decode iterations (docs/SCHED.md)}}
  sched.serve @llm {weight_bytes = 1.0e9, kv_bytes_per_token = 1.0e6, max_batch = 1, policy = "continuous", num_requests = 4096, arrival_rate = 0.0, prompt_min = 1, prompt_max = 10, output_min = 4096, output_max = 4096, seed = 1, hbm_bandwidth = 1.0e9, prefill_tokens_per_s = 100.0, iteration_overhead = 0.0, device_kind = "H100-SXM5", static_power = 5.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.serve' op max_batch 4611686018427387904 is above 2^23 (the most requests a workload may have; docs/SCHED.md)}}
  sched.serve @llm {weight_bytes = 1.0e9, kv_bytes_per_token = 1.0e6, max_batch = 4611686018427387904, policy = "continuous", num_requests = 100, arrival_rate = 0.0, prompt_min = 1, prompt_max = 10, output_min = 1, output_max = 5, seed = 1, hbm_bandwidth = 1.0e9, prefill_tokens_per_s = 100.0, iteration_overhead = 0.0, device_kind = "H100-SXM5", static_power = 5.0}
}

// -----

sched.schedule @s {
  // expected-error @+1 {{'sched.serve' op request #1: a prompt of 9223372036854775807 tokens is above 2^40}}
  sched.serve @llm {weight_bytes = 1.0e9, kv_bytes_per_token = 1.0e6, max_batch = 1, policy = "static", requests = [[0.0, 10, 2], [1.0, 9223372036854775807, 2]], hbm_bandwidth = 1.0e9, prefill_tokens_per_s = 100.0, iteration_overhead = 0.0, device_kind = "H100-SXM5", static_power = 5.0}
}
