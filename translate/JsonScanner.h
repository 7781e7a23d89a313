//===- JsonScanner.h - a streaming JSON reader for large traces -*- C++ -*-===//
//
// Chrome traces run to hundreds of megabytes and millions of events; a DOM
// (llvm::json) holds every key of every event. This reader walks the text
// once, lets the caller pick the fields it needs and skips the rest, and
// reports errors with line and column.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSLATE_JSONSCANNER_H
#define TRANSLATE_JSONSCANNER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace energy {

class JsonScanner {
public:
  explicit JsonScanner(llvm::StringRef text)
      : begin(text.data()), p(text.data()), end(text.data() + text.size()) {}

  enum class Kind { Object, Array, String, Number, Bool, Null, End, Bad };
  /// Kind of the next value (after whitespace), without consuming it.
  Kind peek();

  /// Iterates an object's members: `member(key)` must consume the value.
  bool object(llvm::function_ref<bool(llvm::StringRef key)> member);
  /// Iterates an array's elements: `element(index)` must consume the value.
  bool array(llvm::function_ref<bool(size_t index)> element);
  /// A string value; the result stays valid until the next string() call.
  bool string(llvm::StringRef &out);
  bool number(double &out);
  /// A number's text as written (validated as number() does), for values a
  /// double cannot hold exactly.
  bool numberText(llvm::StringRef &out);
  /// Skips any value.
  bool skip();
  /// Fails unless only whitespace remains.
  bool finish();

  bool failed() const { return !error.empty(); }
  /// The share of the text read so far (for progress).
  double consumed() const {
    return end == begin ? 1 : double(p - begin) / double(end - begin);
  }
  /// "line:col: message" of the first error.
  std::string message() const;
  /// The first error's "line:col" and its text alone.
  std::string errorLineCol() const;
  const std::string &errorText() const { return error; }
  /// The offset of the next value (after whitespace), and the "line:col"
  /// of an offset (a scan of the text so far: for errors only).
  size_t offset();
  std::string lineColAt(size_t offset) const;
  bool fail(const std::string &msg);

private:
  void ws();
  bool expect(char c, const char *what);
  /// Steps over the UTF-8 sequence at p (a byte above 0x7F), or fails there.
  bool utf8Character();

  const char *begin, *p, *end;
  unsigned depth = 0; ///< nesting, bounded so hostile input cannot overflow
  std::string scratch;
  std::string error;
  const char *errorAt = nullptr;
};

} // namespace energy

#endif // TRANSLATE_JSONSCANNER_H
