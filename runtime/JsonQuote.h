//===- JsonQuote.h - a JSON string literal, without LLVM --------*- C++ -*-===//
//
// For the writers that must not depend on LLVM (the runtime's shared
// library writes signature DBs and generator records): RFC 8259 section 7
// escaping. Region names come from user code and may hold quotes,
// backslashes or control characters.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_JSONQUOTE_H
#define RUNTIME_JSONQUOTE_H

#include <cstdio>
#include <string>

namespace energy {
namespace rt {

inline std::string jsonQuoted(const std::string &s) {
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

} // namespace rt
} // namespace energy

#endif // RUNTIME_JSONQUOTE_H
