//===- Microbenchmarks.h - CUDA kernels for characterization ----*- C++ -*-===//

#ifndef RUNTIME_KERNELS_MICROBENCHMARKS_H
#define RUNTIME_KERNELS_MICROBENCHMARKS_H

#include <cstddef>
#include <string>

namespace energy {
namespace rt {

enum class Microbenchmark { Fma, Copy, Gemm, Attention, FlushL2 };

/// Runs a microbenchmark `repeats` times back to back and reports the mean
/// time per launch from CUDA events. `size`: FMA iterations, copy/flush
/// bytes, or the GEMM / attention dimension.
bool runMicrobenchmark(Microbenchmark which, size_t size, int repeats,
                       double &seconds, std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_KERNELS_MICROBENCHMARKS_H
