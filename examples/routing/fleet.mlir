// A fleet in the IR (docs/ROUTING.md#the-fleet-in-the-ir): two serving
// endpoints on H100s (roofline time model, constant powers), the request
// stream to route between them ([arrival_s, prompt, output] tokens), and in
// energy.fleet the routing model: each model's per-task energy and quality,
// the arrivals per slot, the supply per slot (a trace, cycled), the reserve
// and the policies to compare.
sched.schedule @fleet attributes {
  energy.requests = [[0.0, 100, 20], [0.1, 50, 30], [0.2, 80, 10], [0.3, 120, 40],
                     [0.4, 60, 25], [0.5, 90, 15], [0.6, 70, 35], [0.7, 40, 20],
                     [0.8, 110, 30], [0.9, 55, 12], [1.0, 95, 28], [1.1, 65, 22]],
  energy.fleet = {
    version = 1,
    models = [{name = "small", energy_per_token_J = 2.0, prefill_J = 2.0,
               output_tokens = {mean = 25, sd = 10}, quality = 0.6},
              {name = "large", energy_per_token_J = 20.0, prefill_J = 10.0,
               output_tokens = {mean = 25, sd = 10}, quality = 0.8}],
    tasks_per_slot = 4,
    supply_J = [900.0, 1100.0],
    reserve = {capacity_J = 20000.0, initial_J = 5000.0},
    policies = [{name = "even", kind = "static", fractions = {small = 0.5, large = 0.5}},
                {name = "myopic", kind = "myopic", prediction_error = -0.02},
                {name = "variance-aware", kind = "variance-aware", lambda = 0.1,
                 quality_target = {match = "myopic"}}],
    simulation = {horizon_slots = 10000, runs = 200, seed = 1}}} {
  sched.serve @small {weight_bytes = 1.6e10, kv_bytes_per_token = 131072.0, max_batch = 8, policy = "continuous", num_requests = 4, arrival_rate = 2.0, prompt_min = 16, prompt_max = 64, output_min = 4, output_max = 16, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 30000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 120.0, dynamic_power = 300.0}
  sched.serve @large {weight_bytes = 1.4e11, kv_bytes_per_token = 327680.0, max_batch = 8, policy = "continuous", num_requests = 4, arrival_rate = 2.0, prompt_min = 16, prompt_max = 64, output_min = 4, output_max = 16, hbm_bandwidth = 3.35e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.002, device_kind = "H100-SXM5", static_power = 120.0, dynamic_power = 500.0}
}
