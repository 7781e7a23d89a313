//===- Microbenchmarks.h - CUDA kernels for characterization ----*- C++ -*-===//

#ifndef RUNTIME_KERNELS_MICROBENCHMARKS_H
#define RUNTIME_KERNELS_MICROBENCHMARKS_H

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace energy {
namespace rt {

enum class Microbenchmark { Fma, Copy, Gemm, Attention, FlushL2 };

/// Whether CUDA has device `index` to run the kernels on, which it then
/// makes current (false, with the CUDA runtime's reason, on a machine
/// without a GPU or driver).
bool cudaDeviceUsable(unsigned index, std::string &err);

/// The GEMM microbenchmark's implementation: cuBLAS (loaded at run time
/// when present) or the tiled kernel.
const char *gemmImplementation();

/// Runs a microbenchmark once and reports its time from CUDA events.
/// `size`: FMA iterations, copy/flush bytes, or the GEMM / attention
/// dimension. Buffers are allocated and zeroed once per kernel and size and
/// kept, so that repeated runs in a measurement window launch kernels only.
/// With `reusePrevious` (and a previous run whose output is large enough)
/// it runs as the consumer of the previous run's output: its first input
/// buffer is that output, read in place, so whatever the L2 still holds of
/// it is warm. `reused` says whether it did.
bool runMicrobenchmarkChained(Microbenchmark which, size_t size,
                              bool reusePrevious, double &seconds, bool &reused,
                              std::string &err);

/// Runs the microbenchmarks once each, concurrently on separate streams,
/// and reports the set's makespan (from an event every stream waits on to
/// one that waits on every stream).
bool runMicrobenchmarksConcurrently(
    const std::vector<std::pair<Microbenchmark, size_t>> &kernels,
    double &seconds, std::string &err);

} // namespace rt
} // namespace energy

#endif // RUNTIME_KERNELS_MICROBENCHMARKS_H
