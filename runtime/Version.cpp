//===- Version.cpp - the project's version --------------------------------===//

#include "runtime/Version.h"
#include "runtime/JsonQuote.h"

#include "Version.inc"

namespace energy {

const char *projectVersion() { return ENERGY_VERSION; }
const char *gitRevision() { return ENERGY_GIT_REVISION; }

std::string generatorJson(const std::string &tool,
                          const std::vector<std::string> &inputs,
                          const std::vector<std::string> &sources) {
  std::string out = "{\"tool\": " + rt::jsonQuoted(tool) +
                    ", \"version\": " + rt::jsonQuoted(versionString()) +
                    ", \"inputs\": [";
  for (size_t i = 0; i < inputs.size(); ++i)
    out += (i ? ", " : "") + rt::jsonQuoted(inputs[i]);
  out += "]";
  if (!sources.empty()) {
    out += ", \"sources\": [";
    for (size_t i = 0; i < sources.size(); ++i)
      out += (i ? ", " : "") + rt::jsonQuoted(sources[i]);
    out += "]";
  }
  return out + "}";
}

std::string versionString() {
  return std::string("energy ") + ENERGY_VERSION + " (git " +
         ENERGY_GIT_REVISION + ")";
}

} // namespace energy
