//===- SimGpu.h - The simulated GPU's physical model ------------*- C++ -*-===//
//
// SIMULATED: a documented model, not a measurement. The noise-free physics
// of runtime/SimDevice (which adds time, temperature, noise, the energy
// counter, caches and concurrency) and of whatever predicts with it (the
// serving planner's SM clock):
//  - V-f curve: V(f) = Vmin + (Vmax - Vmin) (f - fmin) / (fmax - fmin).
//  - Kernel time at SM clock f: max(flops / (peakFlops f / fmax),
//    bytes / memBandwidth) + launchOverhead (a roofline); the compute-bound
//    share u of that time sets the activity.
//  - Power while a kernel runs: static + Ceff u V(f)^2 f (CMOS switching
//    power, P = C V^2 f) + memPowerPerBandwidth x achieved bandwidth.
//
// Parameter sets follow NVIDIA's published figures (A100-SXM4 80GB: 400 W
// TDP, 1410 MHz max SM clock, 312 dense BF16 TFLOP/s, 2.04 TB/s, 40 MB L2;
// A40: 300 W, 1740 MHz, 149.7 TFLOP/s, 696 GB/s, 6 MB L2; H100-SXM5: 700 W,
// 1980 MHz, 989 TFLOP/s (FP8: 1,979), 3.35 TB/s, 50 MB L2; H200: 700 W,
// 1980 MHz, 989 TFLOP/s (FP8: 1,979), 4.8 TB/s, 50 MB L2; HGX B200: 1000 W,
// 2,250 TFLOP/s (FP8: 4,500), 8 TB/s, its listed 1980 MHz boost clock, L2
// a modelling choice); static power and the V-f endpoints are modelling
// choices within those envelopes. The power-limit ranges (A100 100-400 W,
// A40 100-300 W, H100/H200 200-700 W, B200 200-1000 W, default = TDP) are
// modelling choices in the range nvidia-smi reports for these boards.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_SIMGPU_H
#define CALCULUS_MODELS_SIMGPU_H

#include <string>
#include <vector>

namespace energy {
namespace calculus {

struct SimGpu {
  std::string name;
  int fmaxMhz = 1410, fminMhz = 210, stepMhz = 15;
  double vmin = 0.7, vmax = 1.05; ///< V
  double peakFlops = 312e12;      ///< at fmax
  /// The dense FP8 tensor-core peak over peakFlops (1: no FP8 units, as on
  /// Ampere; 2 on Hopper: H100-SXM5 1,979 against 989 TFLOP/s dense).
  double fp8Speedup = 1;
  double memBandwidth = 2.04e12;        ///< B/s
  double ceff = 1.5e-7;                 ///< W / (V^2 Hz): effective capacitance
  double memPowerPerBandwidth = 30e-12; ///< W per B/s
  double staticRef = 60;                ///< W at ambient
  double leakage = 0.005;               ///< 1/K
  double resistance = 0.12, capacitance = 40; ///< K/W, J/K
  double ambient = 30;                        ///< degC
  double launchOverhead = 5e-6;               ///< s
  double counterPeriod = 0.1;                 ///< s between counter updates
  double timeNoise = 0.01, powerNoise = 0.01; ///< relative sigma
  double minPowerLimit = 100, tdp = 400;      ///< W (default limit = tdp)
  double l2Bytes = 40e6;                      ///< L2 capacity
  /// V(f) = vmin + (vmax - vmin) (f - fmin) / (fmax - fmin).
  double voltage(int mhz) const;
  /// A kernel of `flops` and `bytes` (DRAM) at SM clock `mhz`, noise-free:
  /// max(flops / (peakFlops f / fmax), bytes / memBandwidth) +
  /// launchOverhead.
  double kernelTime(double flops, double bytes, int mhz) const;
  /// Its dynamic energy: (ceff u V(f)^2 f + memPowerPerBandwidth x achieved
  /// bandwidth) x time, u the compute-bound share of the time.
  double kernelDynamicEnergy(double flops, double bytes, int mhz) const;
  /// The settable SM clocks, fmax down to fmin in stepMhz.
  std::vector<int> clocks() const;
};

/// Known parameter sets: "a100", "a40", "h100", "h200", "b200"
/// (case-insensitive, with
/// or without the form factor). False if unknown.
bool simGpuFor(const std::string &name, SimGpu &out);
/// A simulated device as the runtime names it, "sim:<name>": false with
/// `err` naming the known ones when `device` is none of them.
bool simGpuForDevice(const std::string &device, SimGpu &out, std::string &err);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_SIMGPU_H
