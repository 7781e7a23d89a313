// RUN: energy-opt %s --sched-expand --sched-to-energy --energy-evaluate | FileCheck %s

// The serving timeline of sched-serve.mlir, lowered and evaluated: one
// device, back-to-back steps, so E = 100 W x 36.019 ms + 400 W x 36.019 ms
// (interval accounting with d = 400 W x T for every step).
// CHECK: energy.multi @inference -> sig <s = 100 W, T = 36.0{{[0-9]*}} ms
// CHECK-SAME: {E_J = 18.009{{[0-9]*}} : f64
// CHECK: energy.seq @chat_gpu
// CHECK-NEXT: energy.element @chat_prefill0
// CHECK-NEXT: energy.element @chat_decode0
// CHECK-NEXT: energy.element @chat_prefill1
sched.schedule @inference {
  sched.serve @chat {weight_bytes = 1.5e10, kv_bytes_per_token = 131072.0, layers = 28, max_batch = 4, policy = "continuous", requests = [[0.0, 100, 3], [0.0, 50, 2], [0.02, 10, 2]], hbm_bandwidth = 3.0e12, prefill_tokens_per_s = 10000.0, iteration_overhead = 0.001, device_kind = "H100-SXM5", static_power = 100.0, dynamic_power = 400.0}
}
