//===- Csv.h - The one CSV reader, with line numbers -------------*- C++
//-*-===//
//
// Every CSV the project reads goes through here (docs/ARCHITECTURE.md,
// "Formats"): Perseus stage profiles (--import-stage-profile), power-cap
// tables (--energy-power-cap) and the fit inputs of `energy-prof fit`. A
// header row, then data rows (RFC 4180 quoting; blank and whitespace-only
// lines skipped; every row as wide as the header -- a ragged row is an
// error, not padded or cut), each with its 1-based line number for the
// caller's located errors. MLIR-free (LLVM Support).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_CSV_H
#define RUNTIME_FORMATS_CSV_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace energy {
namespace formats {

/// A CSV file: its header, its data rows and their line numbers.
struct CsvTable {
  std::vector<std::string> header;
  unsigned headerLine = 0;
  std::vector<std::vector<std::string>> rows;
  std::vector<unsigned> lines;
  /// Where each data cell starts: (line, column), both 1-based.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> starts;
  /// Whether the text ends with a line end, as every writer ends a file: a
  /// last line without one may have been cut short.
  bool endsWithLineEnd = true;

  /// Column index of `name` (header cells compared trimmed), if present.
  std::optional<size_t> column(llvm::StringRef name) const;
  /// "path:LINE:COL" of data cell (`row`, `col`): where its errors point.
  std::string at(const std::string &path, size_t row, size_t col) const;
  /// Why `name` may be missing from the header, for its error (" (...)"):
  /// it is there in other case, or the header is one column holding
  /// another separator. Empty when neither.
  std::string missingColumnHint(llvm::StringRef name) const;
};

/// A cell as an error message quotes it: in single quotes, at most its
/// first 40 bytes, each byte that is not printable ASCII (or a quote or
/// backslash) escaped as \xHH; a longer cell says how long it is.
std::string cellForMessage(llvm::StringRef cell);

/// Where a CSV is malformed: its line (0: the file as a whole) and what.
struct CsvError {
  unsigned line = 0;
  std::string message;
  /// "path:line: message" (or "path: message").
  std::string str(const std::string &path) const;
};

/// Parses `text`; false with `err` on an unterminated quote, a row of
/// another width than the header, a header naming a column twice, or no
/// header at all ("empty file"). Lines end at LF, CR LF or a lone CR.
bool parseCsv(llvm::StringRef text, CsvTable &out, CsvError &err);

/// Reads and parses `path` ("-": standard input).
bool readCsv(const std::string &path, CsvTable &out, CsvError &err);

/// A cell's decimal number (spaces around it trimmed): [+-]digits[.digits]
/// or .digits, with an optional exponent, finite -- not empty (strtod's 0),
/// hexadecimal ("0x12c" read as 300), "inf" or "nan".
bool csvNumber(llvm::StringRef cell, double &value);

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_CSV_H
