// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"attention": {"E_J": 3.32, "sigma_E_J": 0.01}, "overlap": {"runs_J": [2.49, 2.51, 2.50, 2.52]}, "ghost": {"E_J": 1, "sigma_E_J": 0}}' > %t/measured.json
// RUN: energy-opt %s --energy-check-deviation="measured=%t/measured.json" 2>%t/err | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t/err
// For scripts and CI: fail-on-deviation makes a failed test an error, exit 1;
// a passing set of measurements still exits 0.
// RUN: not energy-opt %s --energy-check-deviation="measured=%t/measured.json fail-on-deviation=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT-DAG: error: @overlap deviates (Eq. 23)
// STRICT-DAG: error: energy-check-deviation: no composite or element named @ghost (measurement ignored)
// A typo in a measurement's name tests nothing: an error under the gate.
// RUN: echo '{"atention": {"E_J": 3.32, "sigma_E_J": 0.01}}' > %t/typo.json
// RUN: not energy-opt %energy_src/examples/attention-tp2.mlir --energy-check-deviation="measured=%t/typo.json fail-on-deviation=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: error: energy-check-deviation: no composite or element named @atention
// RUN: echo '{"attention": {"E_J": 3.32, "sigma_E_J": 0.01}}' > %t/agree.json
// RUN: energy-opt %energy_src/examples/attention-tp2.mlir --energy-check-deviation="measured=%t/agree.json fail-on-deviation=true" -o /dev/null
// RUN: echo '{"attention": {"E_J": 3.32}}' > %t/bad.json
// RUN: not energy-opt %s --energy-check-deviation="measured=%t/bad.json" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: echo '{"attention": {"E_J": 3.32, "sigma_E_J": 0.01, "sigma": 5}}' > %t/extra.json
// RUN: not energy-opt %s --energy-check-deviation="measured=%t/extra.json" 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: echo '{"attention": ' > %t/trunc.json
// RUN: not energy-opt %s --energy-check-deviation="measured=%t/trunc.json" 2>&1 | FileCheck %s --check-prefix=TRUNC

// The paper's layer: the measured 3.32 J +- 10 mJ agrees with the predicted
// 3.3184 J +- 10.46 mJ (|diff| = 1.6 mJ < 1.96 x 14.5 mJ). A measured mean
// is compared with the expected energy: the overlap's two 2.77 ms parts
// (sigma 15 and 20 us) end at E[max] = 2.77 ms + 25 us x phi(0) = 2.77997 ms
// (Clark, equal means), 120 W x 9.97 us = 1.197 mJ above the point
// prediction: 3.3196 J (point_J keeps the paper's 3.3184 J). The overlap
// region "measured" at 2.505 J (mean of four runs, sigma of the mean
// 6.45 mJ) against the predicted 2.2336 J (point 2.2324 J) fails Eq. 23.
energy.device @tp2 kind "2xA100-SXM4" static 120 W
// CHECK: energy.seq @attention {{.*}}energy.deviation = {failed = false, measured_J = 3.320000e+00 : f64, point_J = 3.318{{[0-9]*}} : f64, predicted_J = 3.3195{{[0-9]*}} : f64
// CHECK: energy.par @overlap {{.*}}energy.deviation = {failed = true, measured_J = 2.505{{0*e\+00|[0-9]*}} : f64, point_J = 2.232{{[0-9]*}} : f64, predicted_J = 2.2335{{[0-9]*}} : f64
// DIAG-DAG: remark: @overlap deviates (Eq. 23): predicted 2.2336 J, measured 2.505 J, threshold {{.*}}; interaction-graph candidate, likely mechanism: unknown (no mechanism declared on its devices)
// DIAG-DAG: warning: energy-check-deviation: no composite or element named @ghost (measurement ignored)
// BAD: energy-check-deviation: {{.*}}bad.json:1:15: 'attention': needs E_J and sigma_E_J, or runs_J
// EXTRA: energy-check-deviation: {{.*}}extra.json:1:57: 'attention': sigma: unknown key (expected one of E_J, sigma_E_J, runs_J, runs, device)
// TRUNC: energy-check-deviation: {{.*}}trunc.json:{{[0-9]+}}:{{[0-9]+}}: malformed JSON
energy.seq @attention {
  energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ, sigma_T = 10 us, sigma_d = 5 mJ>
  energy.par @overlap {
    energy.element @compute on @tp2 sig <T = 2.77 ms, d = 1.398 J, sigma_T = 15 us, sigma_d = 8 mJ>
    energy.element @allreduce on @tp2 sig <T = 2.77 ms, d = 502 mJ, sigma_T = 20 us, sigma_d = 4 mJ>
  }
}

// Eq. 24: a measured composite far from the composition of its parts.
// DIAG-DAG: remark: refinement inconsistent (Eq. 24): measured 5 J vs its parts' 3.3184 J differ by more than
energy.composite @measured_layer sig <T = 4.32 ms, d = 4.4816 J, sigma_d = 10 mJ> {
  energy.seq {
    energy.element @p on @tp2 sig <T = 1.55 ms, d = 900 mJ>
    energy.par {
      energy.element @c on @tp2 sig <T = 2.77 ms, d = 1.398 J>
      energy.element @a on @tp2 sig <T = 2.77 ms, d = 502 mJ>
    }
  }
}
