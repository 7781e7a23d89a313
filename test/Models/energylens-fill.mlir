// RUN: not energy-opt %s --split-input-file --energy-fill-signatures="model=%S/Inputs/lens-model.json" 2>/dev/null | FileCheck %s
// RUN: not energy-opt %s --energy-fill-signatures="model=%S/Inputs/lens-model.json" --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: echo '{"version": 1, "model": "energylens", "coefficients": {}, "covariance": [1]}' > %t.short.json
// RUN: not energy-opt %s --split-input-file --energy-fill-signatures="model=%t.short.json" 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: energylens needs 12 coefficients and a 144-entry covariance
// RUN: %python -c "import json; m = json.load(open('%S/Inputs/lens-model.json')); del m['coefficients']['delta_2']; json.dump(m, open('%t.missing.json', 'w'))"
// RUN: not energy-opt %s --split-input-file --energy-fill-signatures="model=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: missing coefficient delta_2
//
// EnergyLens Eq. 4 prices a whole run. Inputs/lens-model.json holds
// phi = (0.02, 0.5, 0, -1, 0.1, 0.5, 1, 1, 1, 0.2, 3, 5) and a covariance
// whose only entry is var(delta_1) = 0.25. At N_in = 4096, N_out = 100,
// B = 4, t = 2, p = 1: prefill 0.02 * 4096 / (4^0.5 + 0) * 2^-1 = 20.48 J,
// decode 0.5 * 100 / (4 + 1) * 2 = 20 J, overhead 3 * 2 + 5 = 11 J;
// E = 51.48 J, d = E - 10 W x 1 s = 41.48 J; sigma = t * 0.5 = 1 J.
// The gradient of E in phi is recorded for the correlation between tasks
// priced by the same parameters: dE/d delta_1 = t = 2 (entry 10).
// CHECK: module attributes {energy.shared_params = {"energylens:lens-model.json" = array<f64:
// CHECK: sched.task @run on @gpu kind "inference" {{.*}} sig <T = 1 s, d = 41.48{{0*[0-9]*}} J, sigma_d = {{1(\.0*[0-9]*)? J|999\.99[0-9]* mJ}}> attributes {energy.grad = {"energylens:lens-model.json" = array<f64: {{[^,]+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, }}{{2|1\.99999[0-9]*}}, {{[^,>]+}}>}, energy.method = "analytical: energylens"}
sched.schedule @s {
  sched.device @gpu kind "A100" static 10 W
  sched.task @run on @gpu kind "inference" {input_tokens = 4096, max_tokens = 100, batch = 4, tp = 2, pp = 1} start 0 s for 1 s
}

// -----

// Two runs priced by the same parameters are fully correlated here (equal
// gradients): the composed sigma is 1 J + 1 J = 2 J, not sqrt(2) J as for
// independent elements; var_T = 0, so sigma_E = sigma_d.
// RUN: not energy-opt %s --split-input-file --energy-fill-signatures="model=%S/Inputs/lens-model.json" --sched-to-energy --energy-evaluate 2>/dev/null | FileCheck %s --check-prefix=TWO
// The root's closure carries the correlated sigma; inner compositions keep
// the independent composition of their parts.
// TWO: energy.multi @two -> sig <s = 10 W, T = 2 s, d = 82.96{{0*[0-9]*}} J, sigma_d = {{2 J|1.9999999[0-9]* J}}, sigma_E = {{2 J|1.9999999[0-9]* J}}>
// TWO-SAME: sigma_E_J = {{2.000000e\+00|1.9999999[0-9]*}} : f64, sigma_shared_J = {{2.000000e\+00|1.9999999[0-9]*}} : f64
sched.schedule @two {
  sched.device @gpu kind "A100" static 10 W
  sched.task @a on @gpu kind "inference" {input_tokens = 4096, max_tokens = 100, batch = 4, tp = 2, pp = 1} start 0 s for 1 s
  sched.task @b on @gpu after [@a] kind "inference" {input_tokens = 4096, max_tokens = 100, batch = 4, tp = 2, pp = 1} start 1 s for 1 s
}

// -----

// ERR: 'sched.task' op inference task needs theta input_tokens, max_tokens, batch, tp, pp (>= 1) and a duration for the energylens model
sched.schedule @s {
  sched.device @gpu kind "A100" static 10 W
  sched.task @run on @gpu kind "inference" {input_tokens = 4096, batch = 4, tp = 2, pp = 1} start 0 s for 1 s
}
