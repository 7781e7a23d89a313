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
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace energy {
namespace formats {

/// The deepest nesting of arrays and objects accepted (the formats need
/// fewer than 8 levels).
constexpr unsigned kMaxJsonDepth = 256;

/// llvm::json::parse, after checking the nesting depth, and then that no
/// object repeats a key (llvm::json keeps the last silently: a DB entry with
/// two "key"s, a measured file naming one composite twice, would read as
/// whichever came last). A deeper document or a repeated key is an error
/// naming its line and column (keys are compared as written).
inline llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text) {
  struct Level {
    bool object;
    bool expectKey;
    std::set<llvm::StringRef> keys;
  };
  std::vector<Level> levels;
  unsigned line = 1, col = 0;
  // The first repeated key, said once the text is known to be JSON (a file
  // of another format -- MLIR, with its repeated names -- is a syntax error
  // first).
  std::string duplicate;
  auto error = [&](size_t byte, const std::string &why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "[" + std::to_string(line) + ":" + std::to_string(col - 1) +
            ", byte=" + std::to_string(byte) + "]: " + why);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    }
    if (c == '"') {
      size_t from = i + 1, at = i;
      unsigned keyCol = col;
      // To the closing quote (a string holds no raw newline in JSON; one
      // that runs to the end is llvm::json's error to report).
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      col += unsigned(std::min(i, text.size()) - at);
      if (!levels.empty() && levels.back().object && levels.back().expectKey &&
          i < text.size()) {
        llvm::StringRef key = text.slice(from, i);
        levels.back().expectKey = false;
        if (!levels.back().keys.insert(key).second && duplicate.empty()) {
          std::swap(col, keyCol);
          duplicate =
              llvm::toString(error(at, "duplicate key \"" + key.str() + "\""));
          std::swap(col, keyCol);
        }
      }
    } else if (c == '[' || c == '{') {
      if (levels.size() >= kMaxJsonDepth)
        return error(i, "nesting deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels");
      levels.push_back({c == '{', c == '{', {}});
    } else if (c == ']' || c == '}') {
      if (!levels.empty())
        levels.pop_back();
    } else if (c == ',' && !levels.empty() && levels.back().object) {
      levels.back().expectKey = true;
    }
  }
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  // A file of another format (IR, a CSV) given for a JSON one: said, with
  // how it begins, beside the parser's message.
  llvm::StringRef start = text.ltrim();
  if (!value && !start.empty() && !llvm::StringRef("{[").contains(start[0])) {
    std::string why = llvm::toString(value.takeError());
    // An editor's UTF-8 byte-order mark, invisible where it is quoted.
    if (start.starts_with("\xEF\xBB\xBF"))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          why + " (the file begins with a UTF-8 byte-order mark, which JSON "
                "text does not have: save it without one)");
    // Gzip data is named; other bytes are quoted escaped (\xHH), so that
    // binary data puts no control character on the terminal.
    if (start.size() >= 2 && uint8_t(start[0]) == 0x1f &&
        uint8_t(start[1]) == 0x8b)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          why + " (gzip-compressed data: decompress it first, gunzip)");
    llvm::StringRef first =
        start.take_until([](char c) { return c == '\n' || c == '\r'; });
    std::string shown;
    llvm::raw_string_ostream os(shown);
    os.write_escaped(first.take_front(40), /*UseHexEscapes=*/true);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        why + " (not a JSON object or array: the file begins \"" + shown +
            "\")");
  }
  if (value && !duplicate.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), duplicate);
  return value;
}

/// One step into a JSON document: an object's key or an array's index.
struct JsonStep {
  JsonStep(const char *key) : key(key), isKey(true) {}
  JsonStep(llvm::StringRef key) : key(key), isKey(true) {}
  JsonStep(const std::string &key) : key(key), isKey(true) {}
  JsonStep(size_t index) : index(index), isKey(false) {}
  llvm::StringRef key;
  size_t index = 0;
  bool isKey;
};

/// "FILE:LINE:COL" (1-based) of the value reached from the top of `text`
/// by `path` -- where the path leaves the document (a missing key), of the
/// last value it reached; "FILE" where the text holds no value: where a
/// reader's error about that value points (the DOM keeps no positions). A
/// scan of the text, for errors only; keys are compared as written.
inline std::string jsonAt(const std::string &file, llvm::StringRef text,
                          llvm::ArrayRef<JsonStep> path) {
  const char *p = text.begin(), *end = text.end();
  auto ws = [&] {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      ++p;
  };
  auto string = [&](llvm::StringRef &out) {
    if (p >= end || *p != '"')
      return false;
    const char *from = ++p;
    for (; p < end && *p != '"'; ++p)
      if (*p == '\\' && ++p >= end)
        return false;
    if (p >= end)
      return false;
    out = llvm::StringRef(from, p - from);
    ++p;
    return true;
  };
  // Skips one value: nesting is counted, not recursed into (parseJson
  // has bounded it already, but a scan needs no stack either way).
  auto skip = [&] {
    unsigned depth = 0;
    llvm::StringRef ignored;
    do {
      ws();
      if (p >= end)
        return false;
      if (*p == '"') {
        if (!string(ignored))
          return false;
      } else if (*p == '{' || *p == '[') {
        ++depth;
        ++p;
      } else if (*p == '}' || *p == ']') {
        if (!depth)
          return false;
        --depth;
        ++p;
      } else {
        ++p; // a number, a literal, a comma or a colon inside
        while (p < end && !llvm::StringRef("{}[],:\" \t\n\r").contains(*p))
          ++p;
        if (depth && p < end && (*p == ',' || *p == ':'))
          ++p;
      }
    } while (depth);
    return true;
  };
  const char *reached = nullptr; // the last value the path reached
  auto follow = [&] {
    ws();
    if (p >= end)
      return false;
    reached = p;
    for (const JsonStep &step : path) {
      ws();
      if (p >= end || *p != (step.isKey ? '{' : '['))
        return false;
      ++p;
      for (size_t i = 0;; ++i) {
        ws();
        if (p >= end || *p == '}' || *p == ']')
          return false;
        if (step.isKey) {
          llvm::StringRef key;
          if (!string(key))
            return false;
          ws();
          if (p >= end || *p != ':')
            return false;
          ++p;
          if (key == step.key)
            break;
        } else if (i == step.index) {
          break;
        }
        if (!skip())
          return false;
        ws();
        if (p >= end || *p != ',')
          return false;
        ++p;
      }
      ws();
      if (p >= end)
        return false;
      reached = p;
    }
    return true;
  };
  follow();
  if (!reached)
    return file;
  p = reached;
  unsigned line = 1, col = 1;
  for (const char *q = text.begin(); q < p; ++q) {
    if (*q == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// The steps of a JSONPath as the readers name values in their errors,
/// "$.schedules[0].devices[2].sm_mhz" (a key holding '.' or '[' is cut
/// there: the path then stops at its object). The steps refer to `where`.
inline std::vector<JsonStep> jsonPathSteps(llvm::StringRef where) {
  std::vector<JsonStep> steps;
  where.consume_front("$");
  while (!where.empty()) {
    if (where.consume_front(".")) {
      size_t n = where.find_first_of(".[");
      steps.emplace_back(where.take_front(n));
      where = where.drop_front(std::min(n, where.size()));
    } else if (where.consume_front("[")) {
      size_t index = 0;
      if (where.consumeInteger(10, index) || !where.consume_front("]"))
        break;
      steps.emplace_back(index);
    } else {
      break;
    }
  }
  return steps;
}

/// "FILE:LINE:COL: PATH" for the value at JSONPath `where` ("FILE: PATH"
/// without the text): the head of a reader's error about that value.
inline std::string jsonLocated(const std::string &file, llvm::StringRef text,
                               const std::string &where) {
  return (text.empty() ? file : jsonAt(file, text, jsonPathSteps(where))) +
         ": " + where;
}

/// The keys a reader knows: a misspelt optional field would otherwise read
/// as absent (a plan's "power_cap_w" applied no cap). Returns the first
/// (in sorted order) key of `o` not in `allowed`, or "" where there is none,
/// with `why` the message for it ("unknown key (expected one of ...)").
inline std::string jsonUnknownKey(const llvm::json::Object &o,
                                  std::initializer_list<const char *> allowed,
                                  std::string &why) {
  std::set<std::string> ok(allowed.begin(), allowed.end());
  std::string first;
  for (const auto &kv : o)
    if (!ok.count(kv.first.str()) && (first.empty() || kv.first.str() < first))
      first = kv.first.str();
  if (first.empty())
    return "";
  why = "unknown key (expected one of ";
  bool comma = false;
  for (const char *k : allowed) {
    why += (comma ? ", " : "") + std::string(k);
    comma = true;
  }
  why += ")";
  return first;
}

/// A parse error of `file` as "FILE:LINE:COL: malformed JSON: why" (from
/// llvm::json's "[LINE:COL0, byte=N]: why", whose column counts from 0).
inline std::string jsonParseError(const std::string &file, llvm::Error e) {
  std::string msg = llvm::toString(std::move(e));
  llvm::StringRef m(msg);
  unsigned line = 0, col0 = 0;
  if (m.consume_front("[") && !m.consumeInteger(10, line) &&
      m.consume_front(":") && !m.consumeInteger(10, col0)) {
    size_t close = m.find("]: ");
    if (close != llvm::StringRef::npos)
      return file + ":" + std::to_string(line) + ":" +
             std::to_string(col0 + 1) +
             ": malformed JSON: " + m.substr(close + 3).str();
  }
  return file + ": malformed JSON: " + msg;
}

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_JSON_H
