// A 7B-class chat model (fp16, d_model 4096, 32 layers) served on one H100
// with continuous batching: 16 seeded Poisson requests at 4 req/s, prompts
// of 64-1024 tokens, 16-128 outputs; requests join while slots are free
// and leave when done. Durations come from the serving roofline (inputs
// below, illustrative); energies from a model file (see README.md here).
sched.schedule @chat {
  sched.serve @llm {weight_bytes = 1.35e10, kv_bytes_per_token = 524288.0, max_batch = 8, policy = "continuous", num_requests = 16, arrival_rate = 4.0, prompt_min = 64, prompt_max = 1024, output_min = 16, output_max = 128, seed = 2026, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 30000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 120.0}
}
