// RUN: energy-opt %s --sched-expand -split-input-file -verify-diagnostics | FileCheck %s
// RUN: energy-opt %s --sched-expand --sched-timing -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=TIMING

// Continuous batching: requests 0 and 1 arrive at 0 s and prefill together;
// request 2 arrives at 20 ms, joins at the next iteration boundary after its
// own prefill. Decode i's theta holds B_eff and the attended history summed
// over its outputs: (100 + 50), then (101 + 51 + 10), then request 1 has
// left after its 2 outputs: (102 + 11).
// Roofline times: prefill 1 ms + 150 / 10^4 s = 16 ms; decode
// 1 ms + (1.5e10 + 131072 x 150) / 3e12 s = 6.0065536 ms.
// Outputs: 3 + 2 + 2 = 7 useful tokens, recorded for per-token reporting.
// CHECK-LABEL: sched.schedule @inference attributes {energy.output_tokens = 7 : i64}
// CHECK:      sched.device @chat_gpu kind "H100-SXM5" static 100 W
// A prefill may not start before its requests arrive (`release`); list
// scheduling from there reproduces the simulated timeline (TIMING): decode
// 0 at 16 ms, request 2's prefill at 22.0065536 ms (it arrived at 20 ms,
// during decode 0), then 2 ms of prefill.
// CHECK-NEXT: sched.task @chat_prefill0 on @chat_gpu release 0 s kind "prefill" {requests = [0, 1], token_squares = 1.250000e+04 : f64, tokens = 150 : i64} sig <T = 16 ms, d = 6.4 J>
// CHECK-NEXT: sched.task @chat_decode0 on @chat_gpu after [@chat_prefill0] kind "decode" {batch = 2 : i64, history = 1.500000e+02 : f64, kv_bytes_per_token = 1.310720e+05 : f64, mean_history = 7.500000e+01 : f64, weight_bytes = 1.500000e+10 : f64} sig <T = 6.0065536 ms
// CHECK-NEXT: sched.task @chat_prefill1 on @chat_gpu after [@chat_decode0] release 20 ms kind "prefill" {requests = [2], token_squares = 1.000000e+02 : f64, tokens = 10 : i64}
// TIMING-LABEL: sched.schedule @inference
// TIMING: sched.task @chat_prefill0 {{.*}} start 0 s sig
// TIMING: sched.task @chat_decode0 {{.*}} start 16 ms sig
// TIMING: sched.task @chat_prefill1 {{.*}} start 22.0065536 ms sig <T = 2 ms
// TIMING: sched.task @chat_decode1 {{.*}} start 24.0065536 ms sig
// CHECK-NEXT: sched.task @chat_decode1 {{.*}} {batch = 3 : i64, history = 1.620000e+02 : f64
// CHECK-NEXT: sched.task @chat_decode2 {{.*}} {batch = 2 : i64, history = 1.130000e+02 : f64
// CHECK-NOT:  sched.task
sched.schedule @inference {
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, layers = 28, max_batch = 4, policy = "continuous", requests = [[0.0, 100, 3], [0.0, 50, 2], [0.02, 10, 2]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, dynamic_power = 400.0}
}

// -----

// Static batching with a seeded generator: groups of max_batch in arrival
// order, no joins. Without a power model the tasks carry measured-style
// durations (`for`) and no energy.
// CHECK-LABEL: sched.schedule @batchy
// CHECK: sched.task @gen_prefill0 on @gen_gpu release {{.*}} kind "prefill" {requests = [0, 1], token_squares = {{.*}} : f64, tokens = {{[0-9]+}} : i64} for {{.*}}
// CHECK: sched.task @gen_prefill1 {{.*}} {requests = [2, 3]
// CHECK: sched.task @gen_prefill2 {{.*}} {requests = [4]
sched.schedule @batchy {
  sched.serve @gen {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 2, policy = "static", num_requests = 5, arrival_rate = 10.0, prompt_min = 10, prompt_max = 100, output_min = 1, output_max = 4, seed = 7, hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0}
}

// -----

// The engine idles between requests: request 1 arrives at 500 ms, long after
// request 0 is done (prefill 1 ms + 10 / 10^4 s = 2 ms, one decode step).
// Its prefill is released at 500 ms and list scheduling waits for it.
// TIMING-LABEL: sched.schedule @idle
// TIMING: sched.task @s_prefill0 {{.*}} release 0 s {{.*}} start 0 s
// TIMING: sched.task @s_prefill1 {{.*}} release 500 ms {{.*}} start 500 ms
sched.schedule @idle {
  sched.serve @s {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [[0.0, 10, 1], [0.5, 10, 1]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, dynamic_power = 400.0}
}

// -----

sched.schedule @bad {
  // expected-error @+1 {{'sched.serve' op unknown policy "fifo"; expected "static" or "continuous"}}
  sched.serve @x {weight_bytes = 1.0, kv_bytes_per_token = 1.0, max_batch = 2, policy = "fifo", requests = [[0.0, 1, 1]], hbm_bandwidth = 1.0, prefill_tokens_per_s = 1.0, iteration_overhead = 0.0, device_kind = "X", static_power = 1.0}
}

// -----

sched.schedule @bad {
  // expected-error @+1 {{'sched.serve' op request #1 needs a non-negative arrival and prompt and at least one output token}}
  sched.serve @x {weight_bytes = 1.0, kv_bytes_per_token = 1.0, max_batch = 2, policy = "static", requests = [[0.0, 1, 1], [0.5, 3, 0]], hbm_bandwidth = 1.0, prefill_tokens_per_s = 1.0, iteration_overhead = 0.0, device_kind = "X", static_power = 1.0}
}

// -----

sched.schedule @bad {
  // expected-error @+1 {{'sched.serve' op needs either `requests` or the generator (num_requests, arrival_rate, prompt_min/max, output_min/max), not both}}
  sched.serve @x {weight_bytes = 1.0, kv_bytes_per_token = 1.0, max_batch = 2, policy = "static", hbm_bandwidth = 1.0, prefill_tokens_per_s = 1.0, iteration_overhead = 0.0, device_kind = "X", static_power = 1.0}
}

// -----

sched.schedule @bad {
  // expected-error @+1 {{'sched.serve' op arrival_rate must be finite and non-negative (requests per second; 0: every request arrives at time 0, an offline batch); got -4}}
  sched.serve @x {weight_bytes = 1.0, kv_bytes_per_token = 1.0, max_batch = 2, policy = "static", num_requests = 4, arrival_rate = -4.0, prompt_min = 1, prompt_max = 2, output_min = 1, output_max = 2, seed = 1, hbm_bandwidth = 1.0, prefill_tokens_per_s = 1.0, iteration_overhead = 0.0, device_kind = "X", static_power = 1.0}
}

// -----

// Tensor parallel: four H100s in lockstep, per-GPU figures. One device
// "4xH100-SXM5" of 4 x 100 W; the rates add up: prefill 1 ms + 150 / (4 x
// 10^4) s = 4.75 ms; decode 1 ms + (1.5e10 + 131072 x 150) / (4 x 3e12) s
// = 2.2516384 ms; d = 4 x 400 W x T: 7.6 J, 3.60262144 J. (tp was ignored:
// one GPU's static power for four.)
// CHECK-LABEL: sched.schedule @tp4
// CHECK:      sched.device @chat_gpu kind "4xH100-SXM5" static 400 W
// CHECK-NEXT: sched.task @chat_prefill0 {{.*}} sig <T = 4.75 ms, d = 7.6 J>
// CHECK-NEXT: sched.task @chat_decode0 {{.*}} sig <T = 2.2516384 ms, d = 3.60262144 J>
sched.schedule @tp4 {
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [[0.0, 100, 3], [0.0, 50, 2]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, dynamic_power = 400.0, tp = 4}
}

// -----

sched.schedule @pp2 {
  // expected-error @+1 {{pp = 2: pipeline-parallel serving is not modelled step by step; granularity = "run" takes it}}
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [[0.0, 100, 3]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, pp = 2}
}

// -----

// Run granularity with pipeline parallelism: the device holds tp x pp = 4
// GPUs' static power.
// CHECK-LABEL: sched.schedule @tp2pp2
// CHECK: sched.device @chat_gpu kind "4xH100-SXM5" static 400 W
sched.schedule @tp2pp2 {
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, max_batch = 4, policy = "continuous", requests = [[0.0, 100, 3]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, tp = 2, pp = 2, granularity = "run"}
}
