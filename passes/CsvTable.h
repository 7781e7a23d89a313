//===- CsvTable.h - small CSV reader with line numbers ----------*- C++ -*-===//

#ifndef PASSES_CSVTABLE_H
#define PASSES_CSVTABLE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace energy {

/// A CSV file: a header row and data rows (RFC 4180 quoting), each row with
/// its 1-based line number for diagnostics.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<unsigned> lines;

  /// Column index of `name`, if present.
  std::optional<size_t> column(llvm::StringRef name) const;
  /// Reads `path`; false with "path:line: message" in `err`.
  static bool read(const std::string &path, CsvTable &out, std::string &err);
};

} // namespace energy

#endif // PASSES_CSVTABLE_H
