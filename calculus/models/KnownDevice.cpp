//===- KnownDevice.cpp - What the project knows of real GPU kinds ---------===//

#include "calculus/models/KnownDevice.h"

#include <cctype>

namespace energy {
namespace calculus {

std::string KnownDevice::powerLimitRange() const {
  std::string most = std::to_string(int64_t(maxPowerLimitW)) + " W";
  return minPowerLimitW > 0
             ? std::to_string(int64_t(minPowerLimitW)) + "-" + most
             : "at most " + most;
}

std::optional<KnownDevice> knownDevice(const std::string &kind) {
  // As the user or PyTorch (torch.cuda.get_device_name, Kineto's
  // deviceProperties) names them: "NVIDIA A100-SXM4-80GB" is an A100-SXM;
  // the memory size does not change the board.
  std::string k;
  for (char c : kind)
    k += char(std::tolower(static_cast<unsigned char>(c)));
  auto startsWith = [&](const std::string &p) { return k.rfind(p, 0) == 0; };
  auto endsWith = [&](const std::string &s) {
    return k.size() >= s.size() &&
           k.compare(k.size() - s.size(), s.size(), s) == 0;
  };
  if (startsWith("nvidia "))
    k.erase(0, 7);
  if (startsWith("a100-sxm4-") && (endsWith("-40gb") || endsWith("-80gb")))
    k.resize(k.size() - 5);
  if (k == "a40")
    return KnownDevice{70.38, 1740, 100, 300};
  if (k == "a100" || k == "a100-sxm" || k == "a100-sxm4" || k == "a100_sxm")
    return KnownDevice{83.64, 1410, 100, 500};
  // Measured by this project (examples/data/h200/README.md): the ready card,
  // CUDA context open, draws 124.1-124.7 W; the midpoint.
  if (k == "h200" || k == "h200-sxm")
    return KnownDevice{124.4, 1980, 0, 700};
  return std::nullopt;
}

} // namespace calculus
} // namespace energy
