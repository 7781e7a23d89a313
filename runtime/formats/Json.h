//===- Json.h - JSON parsing with bounded nesting --------------*- C++ -*-===//
//
// llvm::json::parse recurses once per nesting level: a hostile file of
// 100,000 '[' overflows the stack. Every reader of the tools' JSON inputs
// (signature DBs, kernels, plans, model files, fleets, composites,
// ML.ENERGY data) parses through parseJson, which first refuses nesting
// deeper than any of those formats needs, as a located error.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_JSON_H
#define RUNTIME_FORMATS_JSON_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace energy {
namespace formats {

/// The deepest nesting of arrays and objects accepted (the formats need
/// fewer than 8 levels).
constexpr unsigned kMaxJsonDepth = 256;

/// llvm::json::parse, after checking the nesting depth (strings skipped);
/// a deeper document is an error naming the line and column.
inline llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text) {
  unsigned depth = 0, line = 1, col = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "[" + std::to_string(line) + ":" + std::to_string(col) +
                "] nesting deeper than " + std::to_string(kMaxJsonDepth) +
                " levels");
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return llvm::json::parse(text);
}

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_JSON_H
