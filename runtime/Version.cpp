//===- Version.cpp - the project's version --------------------------------===//

#include "runtime/Version.h"

#include "Version.inc"

#include <cstdio>

namespace energy {

const char *projectVersion() { return ENERGY_VERSION; }
const char *gitRevision() { return ENERGY_GIT_REVISION; }
namespace {
std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}
} // namespace

std::string generatorJson(const std::string &tool,
                          const std::vector<std::string> &inputs) {
  std::string out = "{\"tool\": " + quoted(tool) +
                    ", \"version\": " + quoted(versionString()) +
                    ", \"inputs\": [";
  for (size_t i = 0; i < inputs.size(); ++i)
    out += (i ? ", " : "") + quoted(inputs[i]);
  return out + "]}";
}

std::string versionString() {
  return std::string("energy ") + ENERGY_VERSION + " (git " +
         ENERGY_GIT_REVISION + ")";
}

} // namespace energy
