//===- JsonQuote.h - a JSON string literal, without LLVM --------*- C++ -*-===//
//
// For the writers that must not depend on LLVM (the runtime's shared
// library writes signature DBs and generator records): RFC 8259 section 7
// escaping. Region names come from user code and may hold quotes,
// backslashes or control characters; file names may be any bytes. JSON
// text is UTF-8 (section 8.1), so a byte that does not begin a valid
// UTF-8 sequence (Unicode 15, table 3-7: no overlong forms, surrogates or
// code points above U+10FFFF) is written as U+FFFD, one per such byte
// (file names in generator records; region names are refused at er_begin
// instead, as two names would become one key).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_JSONQUOTE_H
#define RUNTIME_JSONQUOTE_H

#include <cstddef>
#include <cstdio>
#include <string>

namespace energy {
namespace rt {

/// The length of the valid UTF-8 sequence at `p`, before `end` (1 to 4), or
/// 0.
inline size_t utf8SequenceAt(const char *p, const char *end) {
  auto at = [&](ptrdiff_t k) -> unsigned {
    return p + k < end ? static_cast<unsigned char>(p[k]) : 0x100;
  };
  unsigned c = at(0);
  auto cont = [&](ptrdiff_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return at(k) >= lo && at(k) <= hi;
  };
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/// The length of the valid UTF-8 sequence at s[i] (1 to 4), or 0.
inline size_t utf8SequenceAt(const std::string &s, size_t i) {
  return utf8SequenceAt(s.data() + i, s.data() + s.size());
}

inline std::string jsonQuoted(const std::string &s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t len = utf8SequenceAt(s, i);
      if (len == 0) {
        out += "\\ufffd";
      } else {
        out.append(s, i, len);
        i += len - 1;
      }
    } else if (c == '"' || c == '\\') {
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
