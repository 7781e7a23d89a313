// Real hardware: signatures and composites measured on an NVIDIA H200 by
// test/gpu/check.sh (examples/data/h200/README.md). The calculus' predictions
// from the per-kernel signatures are checked against composites measured
// separately on the same card -- data the code did not produce.
//
// RUN: energy-opt %s --energy-fill-signatures="db=%S/../../examples/data/h200/signatures.json" --energy-check-deviation="measured=%S/../../examples/data/h200/composites.json" --energy-evaluate 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err
// The C API's rank shard written on the card (capi-check, RANK=3) is a
// version-1 DB that energy-prof merge reads.
// RUN: energy-prof merge %S/../../examples/data/h200/capi-rank3.json -o %t.db.json 2>&1 | FileCheck %s --check-prefix=MERGE
// MERGE: merged 1 shards into 3 entries (device: nvml:NVIDIA H200)
//
// Sequential (section 2, Eq. 4): E = s * sum T + sum d with the card's ready
// draw s = 124.39 W: T = 0.54945 + 0.28307 + 0.35727 + 4.78754 ms =
// 5.97733 ms, static 0.74352 J, d = 185.272 + 69.518 + 62.555 + 510.513 mJ =
// 827.858 mJ, E = 1.57138 J. Measured back to back: 1.5877 J +- 7.9 mJ: the
// difference (16.3 mJ, +1.0 %) is inside Eq. 23's threshold, so the null-
// context composition holds on the hardware.
// CHECK: energy.seq @sequential {{.*}}energy.deviation = {failed = false, measured_J = 1.587700e+00 : f64, predicted_J = 1.5713{{[0-9]*}} : f64
//
// Concurrent (par, one static power over the makespan): E = s * max(T) +
// sum d = 124.39 W * 0.54945 ms + 254.790 mJ = 323.14 mJ. Measured on two
// streams: 344.3 mJ +- 1.5 mJ, and the pair ran 0.700 ms, not 0.549: the
// copy and the FMA loop contend for the SMs, and Eq. 23 flags it.
// CHECK: energy.par @concurrent {{.*}}energy.deviation = {failed = true, measured_J = 3.443000e-01 : f64, predicted_J = 0.3231{{[0-9]*}} : f64
// DIAG: remark: @concurrent deviates (Eq. 23): predicted 323.14 mJ, measured 344.3 mJ
// DIAG-NOT: device static power

energy.device @h200 kind "H200" static 124.39 W
energy.seq @sequential {
  energy.element @fma on @h200 {energy.db = "fma"}
  energy.element @copy on @h200 {energy.db = "copy"}
  energy.element @gemm on @h200 {energy.db = "gemm"}
  energy.element @attention on @h200 {energy.db = "attention"}
}
energy.par @concurrent {
  energy.element @fma2 on @h200 {energy.db = "fma"}
  energy.element @copy2 on @h200 {energy.db = "copy"}
}
