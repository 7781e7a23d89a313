//===- SignatureDbWriter.cpp - the one writer of signature DBs ------------===//
//
// Every version-1 signature DB (docs/SIGNATURE-DB.md) is written here:
// `energy-prof characterize`, `merge`, `profile`, the C API's er_flush. One
// entry per line, the fields in the documented order, numbers to 17
// significant digits (they read back exactly). No LLVM: the runtime's
// shared library writes DBs too; the reader (SignatureDb.cpp) uses LLVM's
// JSON parser.
//
//===----------------------------------------------------------------------===//

#include "runtime/JsonQuote.h"
#include "runtime/db/SignatureDb.h"

#include <cctype>
#include <sstream>

namespace energy {
namespace rt {

std::string writeSignatureDb(const SignatureDb &db) {
  std::ostringstream os;
  os.precision(17);
  os << "{\n  \"version\": 1,\n  \"device\": " << jsonQuoted(db.device);
  if (!db.generator.empty())
    os << ",\n  \"generator\": " << db.generator;
  os << ",\n  \"entries\": [";
  for (size_t i = 0; i < db.entries.size(); ++i) {
    const DbEntry &e = db.entries[i];
    os << (i ? ",\n" : "\n") << "    {\"key\": " << jsonQuoted(e.key)
       << ", \"sm_mhz\": " << e.smMhz << ", \"s_W\": " << e.s
       << ", \"T_s\": " << e.T << ", \"d_J\": " << e.d
       << ", \"sigma_T_s\": " << e.sigmaT << ", \"sigma_d_J\": " << e.sigmaD;
    if (e.runs > 0)
      os << ", \"runs\": " << e.runs;
    if (!e.method.empty())
      os << ", \"method\": " << jsonQuoted(e.method);
    // The context, as far as it was recorded.
    std::ostringstream ctx;
    ctx.precision(17);
    const char *sep = "";
    if (!e.l2.empty()) {
      ctx << "\"l2\": " << jsonQuoted(e.l2);
      sep = ", ";
    }
    if (e.entryTemperature) {
      ctx << sep << "\"entry_temperature_C\": " << *e.entryTemperature;
      sep = ", ";
    }
    if (e.powerLimit) {
      ctx << sep << "\"power_limit_W\": " << *e.powerLimit;
      sep = ", ";
    }
    if (e.defaultPowerLimit)
      ctx << sep << "\"default_power_limit_W\": " << *e.defaultPowerLimit;
    if (!ctx.str().empty())
      os << ", \"context\": {" << ctx.str() << "}";
    os << "}";
  }
  os << "\n  ]\n}\n";
  return os.str();
}

// (Here, with no LLVM: the runtime compares GPU models too.)
std::string gpuModelOf(const std::string &name) {
  std::string up;
  for (char c : name)
    up += char(std::toupper((unsigned char)c));
  // "2xA100": a lockstep group of this project's tensor parallelism.
  size_t first = 0;
  while (first < up.size() && std::isdigit((unsigned char)up[first]))
    ++first;
  first = first > 0 && first < up.size() && up[first] == 'X' ? first + 1 : 0;
  for (size_t i = first; i < up.size(); ++i) {
    if (!std::isalpha((unsigned char)up[i]) ||
        (i > first && std::isalpha((unsigned char)up[i - 1])))
      continue;
    size_t j = i;
    while (j < up.size() && std::isalpha((unsigned char)up[j]))
      ++j;
    size_t k = j;
    while (k < up.size() && std::isdigit((unsigned char)up[k]))
      ++k;
    if (k > j && j - i <= 2)
      return up.substr(i, k - i);
  }
  return "";
}

} // namespace rt
} // namespace energy
