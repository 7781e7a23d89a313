// A pipeline whose stage passes name signature-DB keys: expansion and
// lowering refuse a stage that has only its key (fill it first), and the
// fill pass fills every virtual stage's operating set or names the key it
// lacks.
// RUN: not energy-opt --mlir-print-local-scope %s --sched-expand 2>&1 | FileCheck %s --check-prefix=UNFILLED
// RUN: not energy-opt --mlir-print-local-scope %s --sched-to-energy 2>&1 | FileCheck %s --check-prefix=UNFILLED
// UNFILLED: pipeline-db.mlir:[[@LINE+23]]:3: error: 'sched.pipeline' op virtual stage 0's backward has only the signature-DB key 'b'; fill it first (--energy-fill-signatures=db=PATH)
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"version": 1, "entries": [{"key": "f0", "sm_mhz": 1410, "s_W": 60, "T_s": 0.001, "d_J": 0.2, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "f0", "sm_mhz": 1005, "s_W": 60, "T_s": 0.0014, "d_J": 0.15, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "f1", "sm_mhz": 1410, "s_W": 60, "T_s": 0.002, "d_J": 0.3, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "b", "sm_mhz": 1410, "s_W": 60, "T_s": 0.003, "d_J": 0.5, "sigma_T_s": 0, "sigma_d_J": 0}]}' > %t/db.json
// RUN: energy-opt --mlir-print-local-scope %s --energy-fill-signatures=db=%t/db.json | FileCheck %s --check-prefix=FILL
// Entries of one run have no measured spread: said, naming them.
// RUN: sed 's/"sigma_d_J": 0}, {"key": "f1"/"sigma_d_J": 0, "runs": 1}, {"key": "f1"/' %t/db.json > %t/one.json
// RUN: energy-opt %s --energy-fill-signatures=db=%t/one.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=SINGLE
// SINGLE: warning: energy-fill-signatures: {{.*}}one.json: 1 entry rests on one run (f0 at 1005 MHz): no spread was measured, so their sigmas read as 0
// The given forward signature is replaced by the DB's sets; one entry is a
// set of one.
// FILL: backward_options = {{\[\[}}#energy.option<sm_mhz = 1410, T = 3 ms, d = 500 mJ>], [#energy.option<sm_mhz = 1410, T = 3 ms, d = 500 mJ>]]
// FILL-SAME: forward_options = {{\[\[}}#energy.option<sm_mhz = 1410, T = 1 ms, d = 200 mJ>, #energy.option<sm_mhz = 1005, T = 1.4 ms, d = 150 mJ>], [#energy.option<sm_mhz = 1410, T = 2 ms, d = 300 mJ>]]
// FILL-NOT: forward = #energy.sig
// Filled, it lowers: 2 stages x 2 microbatches 1F1B at the highest clocks,
// F 1/2 ms, B 3 ms: stage 1 runs F1_0 at 1-3, B1_0 3-6, F1_1 6-8, B1_1 8-11;
// stage 0's B0_1 runs 11-14: makespan 14 ms; static 2 x 60 W x 14 ms =
// 1.68 J; d = 2 x (0.2 + 0.3) + 4 x 0.5 = 3 J.
// RUN: energy-opt --mlir-print-local-scope %s --energy-fill-signatures=db=%t/db.json --sched-to-energy --energy-evaluate | FileCheck %s --check-prefix=EVAL
// EVAL: E_J = 4.680000e+00
// RUN: echo '{"version": 1, "entries": [{"key": "f0", "sm_mhz": 1410, "s_W": 60, "T_s": 0.001, "d_J": 0.2, "sigma_T_s": 0, "sigma_d_J": 0}]}' > %t/short.json
// RUN: not energy-opt --mlir-print-local-scope %s --energy-fill-signatures=db=%t/short.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: 'sched.pipeline' op signature-DB key 'f1' (forward of virtual stage 1) is not in {{.*}}short.json
sched.schedule @s {
  sched.pipeline @p {stages = 2, microbatches = 2, schedule = "1f1b", device_kind = "A100", static_power = 60.0, forward = #energy.sig<T = 9 ms, d = 9 J>, forward_db = ["f0", "f1"], backward_db = "b"}
}
// Two entries of one key at one clock would be two options at that clock:
// refused.
// RUN: echo '{"version": 1, "entries": [{"key": "f0", "sm_mhz": 1410, "s_W": 60, "T_s": 0.001, "d_J": 0.2, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "f0", "sm_mhz": 1410, "s_W": 60, "T_s": 0.002, "d_J": 0.2, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "f1", "sm_mhz": 1410, "s_W": 60, "T_s": 0.002, "d_J": 0.3, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "b", "sm_mhz": 1410, "s_W": 60, "T_s": 0.003, "d_J": 0.5, "sigma_T_s": 0, "sigma_d_J": 0}]}' > %t/dup.json
// RUN: not energy-opt --mlir-print-local-scope %s --energy-fill-signatures=db=%t/dup.json 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: error: energy-fill-signatures: {{.*}}dup.json: key 'f0' has two entries at 1410 MHz; pool them (energy-prof merge) or remove one
// A DB of another GPU model is said; every stage's static power is checked,
// at the pipeline's location only (not the whole op printed).
// RUN: echo '{"version": 1, "device": "sim:H100-SXM5 (simulated)", "entries": [{"key": "f0", "sm_mhz": 1410, "s_W": 60, "T_s": 0.001, "d_J": 0.2, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "f1", "sm_mhz": 1410, "s_W": 90, "T_s": 0.002, "d_J": 0.3, "sigma_T_s": 0, "sigma_d_J": 0}, {"key": "b", "sm_mhz": 1410, "s_W": 60, "T_s": 0.003, "d_J": 0.5, "sigma_T_s": 0, "sigma_d_J": 0}]}' > %t/h100.json
// RUN: energy-opt --mlir-print-local-scope %s --energy-fill-signatures=db=%t/h100.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: warning: device kind 'A100' is GPU model A100, but the signature DB was measured on 'sim:H100-SXM5 (simulated)' (H100)
// KIND: warning: pipeline static power 60 W (static_power x tensor_parallel) differs from the DB's 90 W for 'f1'
// KIND-NOT: see current operation
// A model prices expanded tasks; a pipeline that names DB keys needs db=.
// RUN: not energy-opt --mlir-print-local-scope %s --energy-fill-signatures=model=%energy_src/examples/serve/flop-byte-h100.json 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: error: 'sched.pipeline' op names signature-DB keys (forward_db, backward_db): fill it with db=PATH

// An energy.element's device is checked alike (only tasks and pipelines
// were): an A100 device filled from an H100 DB.
// RUN: printf 'energy.device @gpu kind "A100-SXM4" static 60 W\nenergy.element @f on @gpu {energy.db = "f0"}\n' > %t/el.mlir
// RUN: energy-opt %t/el.mlir --energy-fill-signatures=db=%t/h100.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=ELKIND
// ELKIND: warning: device kind 'A100-SXM4' is GPU model A100, but the signature DB was measured on 'sim:H100-SXM5 (simulated)' (H100)
