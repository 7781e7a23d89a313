//===- CudaDevice.h - a GPU that runs the microbenchmarks -------*- C++ -*-===//

#ifndef RUNTIME_KERNELS_CUDADEVICE_H
#define RUNTIME_KERNELS_CUDADEVICE_H

#include "runtime/Device.h"

#include <memory>

namespace energy {
namespace rt {

/// NVML device `index` whose kernels are the CUDA microbenchmarks.
std::unique_ptr<Device> openCudaDevice(unsigned index, std::string &err);

/// Whether the CUDA backend can run `k` (its key names a microbenchmark);
/// false with a message naming the key.
bool cudaCanRun(const KernelSpec &k, std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_KERNELS_CUDADEVICE_H
