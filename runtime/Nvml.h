//===- Nvml.h - NVML loaded at run time -------------------------*- C++ -*-===//
//
// No nvml.h on these machines: the few functions the runtime needs are
// declared by hand and resolved with dlopen("libnvidia-ml.so.1"). A missing
// library, a missing symbol or an NVML error becomes a clear message.
// Read-only by default: clock changes go through Device::setSmClock, which
// callers may use only with explicit opt-in and a ClockGuard.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_NVML_H
#define RUNTIME_NVML_H

#include "runtime/Device.h"

#include <memory>

namespace energy {
namespace rt {

/// Opens NVML device `index`; null with `err` on failure.
std::unique_ptr<Device> openNvmlDevice(unsigned index, std::string &err);

/// The NVML index of CUDA device `cuda` of this process: CUDA numbers the
/// GPUs CUDA_VISIBLE_DEVICES lists, in its order (Slurm and torchrun jobs
/// see "4,5,6,7" as cuda:0..3), NVML all of the machine's. Without the
/// variable the two agree. A GPU the variable names by UUID (`GPU-...`, or
/// a prefix naming one GPU, as CUDA accepts) is found among NVML's GPUs by
/// theirs. False with `err` where it names fewer GPUs, a MIG instance
/// (NVML counts the whole GPU's energy), or a UUID no GPU has.
bool nvmlIndexOfCuda(unsigned cuda, unsigned &nvml, std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_NVML_H
