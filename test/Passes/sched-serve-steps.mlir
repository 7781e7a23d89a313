// Static batching waits for each group's longest request, so a workload
// within the verifier's bound (N / max_batch decode iterations) can still
// need more than 2^21 steps: the expansion stops there with an error, in
// bounded time and memory, instead of growing without bound.
// RUN: not energy-opt %s --sched-expand -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'sched.serve' op the workload runs more than 2^21 steps (prefills and decode iterations; docs/SCHED.md)

sched.schedule @sv {
  sched.serve @llm {weight_bytes = 1.0e9, kv_bytes_per_token = 1.0e6, max_batch = 2, policy = "static", num_requests = 4096, arrival_rate = 0.0, prompt_min = 1, prompt_max = 10, output_min = 1, output_max = 524288, seed = 1, hbm_bandwidth = 1.0e9, prefill_tokens_per_s = 100.0, iteration_overhead = 0.0, device_kind = "H100-SXM5", static_power = 5.0}
}
