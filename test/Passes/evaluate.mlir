// RUN: energy-opt %s --energy-evaluate -split-input-file | FileCheck %s
// The report, on the bundled example (the same layer, with uncertainties).
// RUN: energy-opt %energy_src/examples/attention-tp2.mlir --energy-evaluate="report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: energy-opt %s --energy-evaluate="confidence=0.99" -split-input-file | FileCheck %s --check-prefix=C99

// The paper's section 2.4 layer on two A100s (120 W combined static power).
// Static energy 120 W x (1.55 + 2.77) ms = 518.4 mJ, dynamic 2.80 J, total
// 3.32 J; the overlap region alone: 120 W x 2.77 ms + 1.9 J = 2.2324 J.
energy.device @tp2 kind "2xA100-SXM4" static 120 W
// CHECK-LABEL: energy.seq @attention -> sig <s = 120 W, T = 4.32 ms, d = 2.8 J,
// CHECK-SAME:    energy.total = {E_J = 3.318{{[0-9]*}} : f64
// CHECK-SAME:    static_J = {{0.5184|5.184000e-01}} : f64
// CHECK:         energy.par @overlap -> sig <s = 120 W, T = 2.77 ms, d = 1.9 J,
energy.seq @attention {
  energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ>
  energy.par @overlap {
    energy.element @compute on @tp2 sig <T = 2.77 ms, d = 1.398 J>
    energy.element @allreduce on @tp2 sig <T = 2.77 ms, d = 502 mJ>
  }
}
// JSON:      "composites": [
// JSON:        "E_J": 2.232{{[0-9]*}},
// JSON:        "name": "overlap",
// JSON-NEXT:   "op": "energy.par",
// JSON:        "E_J": 3.318{{[0-9]*}},
// JSON:        "name": "attention",
// JSON:      "confidence": 0.9{{4999+[0-9]*|5}},
// JSON:      "roots": [
// JSON:        "E_J": 3.318{{[0-9]*}},
// JSON:        "T_s": {{0.00432[0-9]*|0.0043199999[0-9]*}},
// JSON:        "d_J": {{2.8[0-9]*|2.7999999[0-9]*}},
// JSON:        "name": "attention",
// JSON:        "static_J": {{0.5184[0-9]*|0.51839999[0-9]*}}
// JSON:      "version": 1

// -----

// Cross-device padding, by interval accounting: device a is busy 2 s then
// idle 3 s at 40 W; device b busy 5 s at 60 W. E = 40*5 + 60*5 + 10 + 7 = 517 J.
energy.device @a kind "A40" static 40 W
energy.device @b kind "A40" static 60 W
// CHECK-LABEL: energy.multi @pad -> sig <s = 100 W, T = 5 s, d = 17 J, sigma_E = 0 J>
// CHECK-SAME:    E_J = 5.170000e+02
energy.multi @pad {
  energy.element @x on @a sig <T = 2 s, d = 10 J>
  energy.element @y on @b sig <T = 5 s, d = 7 J>
}

// -----

// Prediction intervals: E = 10 J, sigma_E = 1 J (s = 0 W, so only sigma_d).
// 95%: 10 -+ 1.959964 J; 99%: 10 -+ 2.575829 J.
energy.device @z kind "X" static 0 W
// CHECK-LABEL: energy.seq @interval
// CHECK-SAME:    interval_J = [8.04003601545{{[0-9]*}}, 11.95996398454{{[0-9]*}}]
// C99-LABEL:   energy.seq @interval
// C99-SAME:      confidence = {{9.900000e-01|0.98999999[0-9]*}}
// C99-SAME:      interval_J = [7.42417069645{{[0-9]*}}, 12.5758293035{{[0-9]*}}]
energy.seq @interval {
  energy.element @e on @z sig <T = 1 s, d = 10 J, sigma_d = 1 J>
}

// -----

// A measured composite contributes its own signature, not its parts'.
// Two devices of 60 W: s = 120 W; E = 120 W x 10 ms + 5 J = 6.2 J.
energy.device @g0 kind "A100" static 60 W
energy.device @g1 kind "A100" static 60 W
// CHECK-LABEL: energy.seq @wrap -> sig <s = 120 W, T = 10 ms, d = 5 J
// CHECK-SAME:    E_J = 6.2{{0*}}{{[0-9]?}}
// CHECK:         energy.composite @pair
// CHECK:           energy.seq @inner -> sig <s = 60 W, T = 1 s, d = 100 J
energy.seq @wrap {
  energy.composite @pair sig <T = 10 ms, d = 5 J> {
    energy.seq @inner {
      energy.element @p on @g0 sig <T = 1 s, d = 100 J>
    }
    energy.element @q on @g1 sig <T = 1 s, d = 100 J>
  }
}

// -----

// Clark's E[max] is reported separately; the point makespan stays max(T).
// Two iid N(1 s, (0.1 s)^2): E[max] = 1 + 0.1/sqrt(pi) = 1.0564190 s.
energy.device @c kind "X" static 10 W
// CHECK-LABEL: energy.par @clark -> sig <s = 10 W, T = 1 s
// CHECK-SAME:    T_clark_s = 1.05641895835{{[0-9]*}} : f64, T_s = 1.000000e+00
energy.par @clark {
  energy.element @u on @c sig <T = 1 s, d = 1 J, sigma_T = 100 ms>
  energy.element @v on @c sig <T = 1 s, d = 1 J, sigma_T = 100 ms>
}
