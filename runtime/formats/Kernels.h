//===- Kernels.h - the kernels file: what energy-prof characterizes -*- C++
//-*-===//
//
// The one reader of kernels files (docs/SIGNATURE-DB.md, "The kernels
// file"): a JSON list of kernels (`key`, `flops`, `bytes`, optionally
// `reuses`: the kernel whose data it reads) and composites (`key`,
// `sequence` of kernel keys or [key, count]). MLIR-free (LLVM Support's
// JSON). Errors name the file and the entry: "file: kernel #i: what".
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_KERNELS_H
#define RUNTIME_FORMATS_KERNELS_H

#include "runtime/Device.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace energy {
namespace formats {

/// A composite entry of the kernels file: kernels run back to back, each
/// `count` times.
struct CompositeSpec {
  std::string key;
  std::vector<std::pair<std::string, unsigned>> parts;
};

/// Largest values a kernel may declare: 1e18 FLOP is ~17 minutes at an
/// H200's dense bf16 peak, 1e15 bytes ~58 hours at its HBM bandwidth; a
/// characterization repeats each kernel many times, so anything larger is a
/// units mistake, not a kernel.
inline constexpr double kMaxFlops = 1e18, kMaxBytes = 1e15;
inline constexpr unsigned kMaxCount = 1000000;

/// Parses a kernels file's `text` (named `file` in errors) into its kernels
/// (in file order) and, when `composites` is given, its composites. A
/// composite's parts and a kernel's `reuses` must name kernels of the same
/// file; keys are unique.
bool parseKernels(llvm::StringRef text, const std::string &file,
                  std::vector<rt::KernelSpec> &kernels,
                  std::vector<CompositeSpec> *composites, std::string &err);

/// Reads and parses the file at `path` ("-": standard input).
bool readKernels(const std::string &path, std::vector<rt::KernelSpec> &kernels,
                 std::vector<CompositeSpec> *composites, std::string &err);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_KERNELS_H
