//===- SimGpu.cpp - The simulated GPU's physical model --------------------===//

#include "calculus/models/SimGpu.h"

#include <algorithm>
#include <cctype>

namespace energy {
namespace calculus {

bool simGpuFor(const std::string &name, SimGpu &out) {
  std::string n;
  for (char c : name)
    n += char(std::tolower(static_cast<unsigned char>(c)));
  // The models by name, exactly: "a100-pcie" or "h200-nvl" are other
  // boards, not these.
  SimGpu p;
  if (n == "a100" || n == "a100-sxm4") {
    p.name = "A100-SXM4";
  } else if (n == "a40") {
    // A40 (PCIe, GDDR6): 300 W, 1740 MHz, 149.7 dense BF16 TFLOP/s, 696
    // GB/s, 6 MB L2; power limits 100-300 W. ceff puts the busy board near
    // its TDP at the highest clock, as the A100's does.
    p.name = "A40";
    p.fmaxMhz = 1740;
    p.peakFlops = 149.7e12;
    p.memBandwidth = 0.696e12;
    p.ceff = 1.0e-7;
    p.tdp = 300;
    p.l2Bytes = 6e6;
  } else if (n == "h100" || n == "h100-sxm5" || n == "h200") {
    // The Hopper boards, H200 with HBM3e; their lowest settable SM clock
    // is 345 MHz (this project's H200 idles there:
    // examples/data/h200/README.md).
    bool h200 = n == "h200";
    p.name = h200 ? "H200" : "H100-SXM5";
    p.fmaxMhz = 1980;
    p.fminMhz = 345;
    p.peakFlops = 989e12;
    p.fp8Speedup = 2;
    p.memBandwidth = h200 ? 4.8e12 : 3.35e12;
    p.ceff = 1.6e-7;
    p.staticRef = h200 ? 95 : 90;
    p.minPowerLimit = 200;
    p.tdp = 700;
    p.l2Bytes = 50e6;
  } else if (n == "b200") {
    // HGX B200 (two dies, one GPU): 1000 W, 2.25 dense BF16 PFLOP/s (FP8:
    // 4.5), 8 TB/s HBM3e; its listed boost clock 1980 MHz. NVIDIA
    // publishes no L2 size nor V-f curve: l2Bytes, the lowest clock (as
    // Hopper's), static power and ceff (the busy board, compute and memory,
    // near its TDP at the highest clock) are modelling choices, as is the
    // power-limit range 200-1000 W.
    p.name = "B200";
    p.fmaxMhz = 1980;
    p.fminMhz = 345;
    p.peakFlops = 2.25e15;
    p.fp8Speedup = 2;
    p.memBandwidth = 8e12;
    p.ceff = 2.6e-7;
    p.staticRef = 130;
    p.minPowerLimit = 200;
    p.tdp = 1000;
    p.l2Bytes = 126e6;
  } else {
    return false;
  }
  out = p;
  return true;
}

bool simGpuForDevice(const std::string &device, SimGpu &out, std::string &err) {
  // "sim:" in any case, as the C API takes it (the name is case-insensitive
  // too).
  std::string prefix = device.substr(0, 4);
  for (char &c : prefix)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  if (prefix == "sim:" && simGpuFor(device.substr(4), out))
    return true;
  err = "unknown simulated device '" + device +
        "' (simulated: sim:a100, sim:a100-sxm4, sim:a40, sim:h100, "
        "sim:h100-sxm5, sim:h200, sim:b200)";
  return false;
}

double SimGpu::voltage(int mhz) const {
  double x = double(mhz - fminMhz) / double(fmaxMhz - fminMhz);
  return vmin + (vmax - vmin) * x;
}

double SimGpu::kernelTime(double flops, double bytes, int mhz) const {
  double compute = flops / (peakFlops * mhz / fmaxMhz);
  double memory = bytes / memBandwidth;
  return std::max(compute, memory) + launchOverhead;
}

double SimGpu::kernelDynamicEnergy(double flops, double bytes, int mhz) const {
  double T = kernelTime(flops, bytes, mhz);
  double compute = flops / (peakFlops * mhz / fmaxMhz);
  double u = T > 0 ? compute / T : 0;
  double V = voltage(mhz);
  double power = ceff * u * V * V * mhz * 1e6 +
                 memPowerPerBandwidth * (T > 0 ? bytes / T : 0);
  return power * T;
}

std::vector<int> SimGpu::clocks() const {
  std::vector<int> out;
  for (int f = fmaxMhz; f >= fminMhz; f -= stepMhz)
    out.push_back(f);
  return out;
}

} // namespace calculus
} // namespace energy
