// A fleet in the IR (docs/ROUTING.md): two serving endpoints named like the
// models of fleet.json and the request stream to route between them.
sched.schedule @fleet attributes {energy.requests = [[0.0, 100, 20], [0.1, 50, 30], [0.2, 80, 10], [0.3, 120, 40], [0.4, 60, 25], [0.5, 90, 15]]} {
  sched.serve @small {weight_bytes = 1.6e10, kv_bytes_per_token = 131072.0, max_batch = 8, policy = "continuous", num_requests = 4, arrival_rate = 2.0, prompt_min = 16, prompt_max = 64, output_min = 4, output_max = 16, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 30000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 120.0, dynamic_power = 300.0}
  sched.serve @large {weight_bytes = 1.4e11, kv_bytes_per_token = 327680.0, max_batch = 8, policy = "continuous", num_requests = 4, arrival_rate = 2.0, prompt_min = 16, prompt_max = 64, output_min = 4, output_max = 16, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 120.0, dynamic_power = 500.0}
}
