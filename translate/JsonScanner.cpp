//===- JsonScanner.cpp - a streaming JSON reader for large traces ---------===//

#include "translate/JsonScanner.h"

#include "runtime/JsonQuote.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace energy;

void JsonScanner::ws() {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
    ++p;
}

bool JsonScanner::fail(const std::string &msg) {
  if (error.empty()) {
    error = msg;
    errorAt = p;
  }
  return false;
}

std::string JsonScanner::lineColAt(size_t offset) const {
  size_t stop = std::min(offset, size_t(end - begin));
  unsigned line = 1, col = 1;
  for (const char *q = begin; q < begin + stop; ++q) {
    if (*q == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

std::string JsonScanner::errorLineCol() const {
  // Before any error (errorAt unset) the position is the text's start.
  return lineColAt(errorAt ? size_t(errorAt - begin) : 0);
}

std::string JsonScanner::message() const {
  return errorLineCol() + ": " + error;
}

size_t JsonScanner::offset() {
  ws();
  return size_t(p - begin);
}

bool JsonScanner::expect(char c, const char *what) {
  ws();
  if (p >= end)
    return fail(std::string("unexpected end of input; expected ") + what);
  if (*p != c)
    return fail(std::string("expected ") + what + ", got '" +
                std::string(1, *p) + "'");
  ++p;
  return true;
}

JsonScanner::Kind JsonScanner::peek() {
  ws();
  if (p >= end)
    return Kind::End;
  switch (*p) {
  case '{':
    return Kind::Object;
  case '[':
    return Kind::Array;
  case '"':
    return Kind::String;
  case 't':
  case 'f':
    return Kind::Bool;
  case 'n':
    return Kind::Null;
  default:
    return (*p == '-' || (*p >= '0' && *p <= '9')) ? Kind::Number : Kind::Bad;
  }
}

namespace {
/// Counts nesting for the scope of one object or array.
struct DepthGuard {
  unsigned &depth;
  explicit DepthGuard(unsigned &d) : depth(++d) {}
  ~DepthGuard() { --depth; }
};
constexpr unsigned maxDepth = 256;
} // namespace

bool JsonScanner::object(llvm::function_ref<bool(llvm::StringRef)> member) {
  DepthGuard guard(depth);
  if (depth > maxDepth)
    return fail("nesting deeper than 256 levels");
  if (!expect('{', "'{'"))
    return false;
  ws();
  if (p < end && *p == '}') {
    ++p;
    return true;
  }
  while (true) {
    llvm::StringRef key;
    ws();
    if (p < end && *p != '"')
      return fail("expected a string key");
    if (!string(key))
      return false;
    std::string keyCopy = key.str(); // the value may reuse the scratch
    if (!expect(':', "':'"))
      return false;
    if (!member(keyCopy))
      return false;
    ws();
    if (p >= end)
      return fail("unexpected end of input in an object; expected ',' or '}'");
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == '}') {
      ++p;
      return true;
    }
    return fail(std::string("expected ',' or '}' in an object, got '") + *p +
                "'");
  }
}

bool JsonScanner::array(llvm::function_ref<bool(size_t)> element) {
  DepthGuard guard(depth);
  if (depth > maxDepth)
    return fail("nesting deeper than 256 levels");
  if (!expect('[', "'['"))
    return false;
  ws();
  if (p < end && *p == ']') {
    ++p;
    return true;
  }
  for (size_t i = 0;; ++i) {
    if (!element(i))
      return false;
    ws();
    if (p >= end)
      return fail("unexpected end of input in an array; expected ',' or ']'");
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == ']') {
      ++p;
      return true;
    }
    return fail(std::string("expected ',' or ']' in an array, got '") + *p +
                "'");
  }
}

static void appendUtf8(std::string &s, unsigned cp) {
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xC0 | (cp >> 6));
    s += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += char(0xE0 | (cp >> 12));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  } else {
    s += char(0xF0 | (cp >> 18));
    s += char(0x80 | ((cp >> 12) & 0x3F));
    s += char(0x80 | ((cp >> 6) & 0x3F));
    s += char(0x80 | (cp & 0x3F));
  }
}

bool JsonScanner::utf8Character() {
  size_t len = rt::utf8SequenceAt(p, end);
  if (len == 0) {
    char hex[8];
    snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(*p));
    return fail(std::string("byte ") + hex +
                " in a string is not UTF-8, which JSON text is (RFC 8259 "
                "section 8.1): the file is damaged or was written in "
                "another encoding");
  }
  p += len;
  return true;
}

bool JsonScanner::string(llvm::StringRef &out) {
  if (!expect('"', "a string"))
    return false;
  const char *start = p;
  // Fast path: no escapes. Bytes above 0x7F begin a UTF-8 sequence, checked
  // whole.
  while (p < end && *p != '"' && *p != '\\') {
    if (static_cast<unsigned char>(*p) < 0x80)
      ++p;
    else if (!utf8Character())
      return false;
  }
  if (p < end && *p == '"') {
    out = llvm::StringRef(start, p - start);
    ++p;
    return true;
  }
  scratch.assign(start, p - start);
  while (p < end && *p != '"') {
    if (*p != '\\') {
      const char *from = p;
      if (static_cast<unsigned char>(*p) < 0x80)
        ++p;
      else if (!utf8Character())
        return false;
      scratch.append(from, p - from);
      continue;
    }
    if (++p >= end)
      break;
    char c = *p++;
    switch (c) {
    case '"':
    case '\\':
    case '/':
      scratch += c;
      break;
    case 'b':
      scratch += '\b';
      break;
    case 'f':
      scratch += '\f';
      break;
    case 'n':
      scratch += '\n';
      break;
    case 'r':
      scratch += '\r';
      break;
    case 't':
      scratch += '\t';
      break;
    case 'u': {
      auto hex4 = [&](unsigned &cp) {
        if (end - p < 4)
          return fail("truncated \\u escape");
        cp = 0;
        for (int i = 0; i < 4; ++i) {
          char h = *p++;
          cp <<= 4;
          if (h >= '0' && h <= '9')
            cp |= h - '0';
          else if (h >= 'a' && h <= 'f')
            cp |= h - 'a' + 10;
          else if (h >= 'A' && h <= 'F')
            cp |= h - 'A' + 10;
          else
            return fail("bad hex digit in \\u escape");
        }
        return true;
      };
      unsigned cp;
      if (!hex4(cp))
        return false;
      // A character beyond the BMP is a UTF-16 surrogate pair, two escapes
      // (RFC 8259 section 7: what Python's json.dump writes by default).
      // A lone surrogate is no character: U+FFFD, as decoders replace it.
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo = 0;
        const char *back = p;
        if (end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
          p += 2;
          if (!hex4(lo))
            return false;
        }
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else {
          p = back; // not a low surrogate: read on its own
          cp = 0xFFFD;
        }
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        cp = 0xFFFD;
      }
      appendUtf8(scratch, cp);
      break;
    }
    default:
      return fail(std::string("bad escape '\\") + c + "'");
    }
  }
  if (p >= end)
    return fail("unterminated string");
  ++p;
  out = scratch;
  return true;
}

bool JsonScanner::numberText(llvm::StringRef &out) {
  ws();
  const char *start = p;
  if (p < end && (*p == '-' || *p == '+'))
    ++p;
  while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' ||
                     *p == 'E' || *p == '-' || *p == '+'))
    ++p;
  if (p == start) {
    return fail("expected a number");
  }
  double v;
  auto res = std::from_chars(start, p, v);
  if (res.ec != std::errc() || res.ptr != p) {
    p = start;
    return fail("malformed number");
  }
  out = llvm::StringRef(start, size_t(p - start));
  return true;
}

bool JsonScanner::number(double &out) {
  llvm::StringRef text;
  if (!numberText(text))
    return false;
  std::from_chars(text.begin(), text.end(), out);
  return true;
}

bool JsonScanner::skip() {
  switch (peek()) {
  case Kind::Object:
    return object([&](llvm::StringRef) { return skip(); });
  case Kind::Array:
    return array([&](size_t) { return skip(); });
  case Kind::String: {
    llvm::StringRef s;
    return string(s);
  }
  case Kind::Number: {
    double d;
    return number(d);
  }
  case Kind::Bool:
  case Kind::Null: {
    for (const char *lit : {"true", "false", "null"}) {
      size_t n = std::strlen(lit);
      if (size_t(end - p) >= n && std::memcmp(p, lit, n) == 0) {
        p += n;
        return true;
      }
    }
    return fail("bad literal");
  }
  case Kind::End:
    return fail("unexpected end of input; expected a value");
  case Kind::Bad:
    return fail(std::string("unexpected character '") + *p + "'");
  }
  return false;
}

bool JsonScanner::finish() {
  ws();
  if (p != end)
    return fail("trailing characters after the JSON value");
  return true;
}
