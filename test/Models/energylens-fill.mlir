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
// CHECK: sched.task @run on @gpu kind "inference" {{.*}} sig <T = 1 s, d = 41.48{{0*[0-9]*}} J, sigma_d = {{1(\.0*[0-9]*)? J|999\.99[0-9]* mJ}}> attributes {energy.method = "analytical: energylens"}
sched.schedule @s {
  sched.device @gpu kind "A100" static 10 W
  sched.task @run on @gpu kind "inference" {input_tokens = 4096, max_tokens = 100, batch = 4, tp = 2, pp = 1} start 0 s for 1 s
}

// -----

// ERR: 'sched.task' op inference task needs theta input_tokens, max_tokens, batch, tp, pp (>= 1) and a duration for the energylens model
sched.schedule @s {
  sched.device @gpu kind "A100" static 10 W
  sched.task @run on @gpu kind "inference" {input_tokens = 4096, batch = 4, tp = 2, pp = 1} start 0 s for 1 s
}
