// The closing synchronization's spread (`sync_sigma`): the sync task's
// sigma_T, so the prediction's interval carries the barriers' measured
// variation. One stage, GPipe, F = 10 ms / 2 J, B = 20 ms / 4 J, two
// microbatches, sync 3 ms with sigma 2 ms, 60 W: T = 2 x 30 ms + 3 ms =
// 63 ms, E = 12 J + 60 W x 63 ms = 15.78 J; the only variance is the
// sync's, so var_E = s^2 var_T (Axiom P1) and sigma_E = 60 W x 2 ms =
// 120 mJ, expanded first or lowered directly.
// RUN: energy-opt %s --sched-expand | FileCheck %s --check-prefix=EXPAND
// RUN: energy-opt %s --sched-expand --sched-timing --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// RUN: energy-opt %s --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// RUN: rm -rf %t && mkdir -p %t && echo '{"one": {"E_J": 16.0, "sigma_E_J": 0}}' > %t/measured.json
// RUN: energy-opt %s --sched-expand --sched-timing --sched-to-energy --energy-evaluate --energy-check-deviation=measured=%t/measured.json | FileCheck %s --check-prefix=DEV
// RUN: sed 's/, sync_sigma = 2.0e-3//' %s | energy-opt --sched-expand --sched-timing --sched-to-energy --energy-evaluate --energy-check-deviation=measured=%t/measured.json 2>/dev/null | FileCheck %s --check-prefix=NOSPREAD

// EXPAND: sched.collective @sync on [@stage0] after [@B0_0, @B0_1] kind "sync" sig <T = 3 ms, d = 0 J, sigma_T = 2 ms>
// EVAL: energy.multi @one -> sig <s = 60 W, T = 63 ms, d = 12 J, sigma_T = 2 ms, sigma_E = 120 mJ>
// EVAL-SAME: E_J = 15.78
// EVAL-SAME: sigma_E_J = 1.200000e-01

// The deviation test's threshold (Eq. 23) carries it: measured 16.0 J, one
// run (no variance of its own), c_0.95 = 1.95996: the threshold is
// 1.95996 x 0.12 J = 0.2352 J, and |15.78 - 16.0| = 0.22 J passes; without
// the spread the threshold would be 0 and the test would fail.
// DEV: energy.deviation = {failed = false, measured_J = 1.600000e+01 : f64, predicted_J = 15.78{{[0-9]*}} : f64, threshold_J = 0.2351{{[0-9]*}} : f64
// NOSPREAD: energy.deviation = {failed = true, measured_J = 1.600000e+01 : f64, predicted_J = 15.78{{[0-9]*}} : f64, threshold_J = 0.000000e+00 : f64

// -----
// Refused: a negative or non-finite spread, and a spread without a sync.
// RUN: sed 's/sync_sigma = 2.0e-3/sync_sigma = -1.0e-3/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: sed 's/sync_sigma = 2.0e-3/sync_sigma = 0x7FF8000000000000 : f64/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: sed 's/sync = 3.0e-3, //' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=NOSYNC
// NEG: <stdin>:{{[0-9]+}}:3: error: 'sched.pipeline' op sync_sigma must be finite and non-negative; got -1 ms
// NAN: <stdin>:{{[0-9]+}}:3: error: 'sched.pipeline' op sync_sigma must be finite and non-negative
// NOSYNC: <stdin>:{{[0-9]+}}:3: error: 'sched.pipeline' op sync_sigma is the spread of the closing synchronization; give its mean too (`sync` > 0)
// The point-to-point latency's spread likewise: refused negative, with a
// variance that overflows, or without a latency.
// RUN: sed 's/sync = 3.0e-3,/sync = 3.0e-3, p2p_latency = 1.0e-3, p2p_latency_sigma = -1.0e-3,/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=P2PNEG
// RUN: sed 's/sync = 3.0e-3,/sync = 3.0e-3, p2p_latency = 1.0e-3, p2p_latency_sigma = 1.0e+160,/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=P2PNEG
// RUN: sed 's/sync = 3.0e-3,/sync = 3.0e-3, p2p_latency_sigma = 1.0e-3,/' %s | not energy-opt 2>&1 | FileCheck %s --check-prefix=P2PMEAN
// P2PNEG: <stdin>:{{[0-9]+}}:3: error: 'sched.pipeline' op p2p_latency_sigma must be non-negative with a finite variance; got
// P2PMEAN: <stdin>:{{[0-9]+}}:3: error: 'sched.pipeline' op p2p_latency_sigma is the spread of the point-to-point latency; give its mean too (`p2p_latency` > 0)

sched.schedule @one {
  sched.pipeline @train {stages = 1, microbatches = 2, schedule = "gpipe",
      device_kind = "A100-SXM4", static_power = 60.0,
      sync = 3.0e-3, sync_sigma = 2.0e-3,
      forward = #energy.sig<T = 10 ms, d = 2 J>,
      backward = #energy.sig<T = 20 ms, d = 4 J>}
}
