//===- KnownDevice.h - What the project knows of real GPU kinds -*- C++ -*-===//
//
// Measured or published facts about real boards, by the names users and
// PyTorch give them: the importers' static power and highest clock, and the
// power-limit ranges every plan reader checks a cap against.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_MODELS_KNOWNDEVICE_H
#define CALCULUS_MODELS_KNOWNDEVICE_H

#include <cstdint>
#include <optional>
#include <string>

namespace energy {
namespace calculus {

/// What the importers know of a device kind: its static (blocking) power,
/// W per GPU, and its highest SM clock, MHz. Static powers: Perseus
/// artifact (SOSP'24), blocking power measured per GPU: A40 70.38 W,
/// A100-SXM 83.64 W; H200 124.4 W, measured by this project with a CUDA
/// context open (examples/data/h200/README.md). No measured value of ours
/// or of a cited artifact exists yet for V100 or H100: those need
/// --static-power. Highest SM clocks (NVIDIA's data sheets, `nvidia-smi -q
/// -d SUPPORTED_CLOCKS`): A40 1740, A100-SXM 1410, H200 1980 MHz.
/// Power-limit ranges (`nvidia-smi -q -d POWER`, Min/Max Power Limit): A40
/// 100-300 W; A100-SXM 100-400 W, up to 500 W on the 80 GB boards of HGX
/// systems built for it (the name does not tell them apart: the wider
/// range); H200 at most 700 W (measured by this project,
/// examples/data/h200/README.md), its least not measured (0: unchecked).
struct KnownDevice {
  double staticPower;
  int64_t maxSmMhz;
  double minPowerLimitW, maxPowerLimitW;
  /// Whether a power limit of `watts` is one the kind can be set to.
  bool powerLimitSettable(double watts) const {
    return watts >= minPowerLimitW && watts <= maxPowerLimitW;
  }
  /// "100-300 W", or "at most 700 W" where the least is not known.
  std::string powerLimitRange() const;
};
/// nullopt if the kind is unknown (case-insensitive; "NVIDIA " and an A100's
/// memory size, "-40gb" / "-80gb", are ignored).
std::optional<KnownDevice> knownDevice(const std::string &kind);

} // namespace calculus
} // namespace energy

#endif // CALCULUS_MODELS_KNOWNDEVICE_H
