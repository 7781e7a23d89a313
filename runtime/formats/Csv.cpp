//===- Csv.cpp - The one CSV reader, with line numbers --------------------===//

#include "runtime/formats/Csv.h"

#include "runtime/AtomicFile.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

#include "llvm/Support/MemoryBuffer.h"

namespace energy {
namespace formats {

std::optional<size_t> CsvTable::column(llvm::StringRef name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (llvm::StringRef(header[i]).trim() == name)
      return i;
  return std::nullopt;
}

std::string CsvError::str(const std::string &path) const {
  return path + (line ? ":" + std::to_string(line) : std::string()) + ": " +
         message;
}

std::string CsvTable::at(const std::string &path, size_t row,
                         size_t col) const {
  if (row >= starts.size() || col >= starts[row].size())
    return path;
  return path + ":" + std::to_string(starts[row][col].first) + ":" +
         std::to_string(starts[row][col].second);
}

bool parseCsv(llvm::StringRef text, CsvTable &out, CsvError &err) {
  out = CsvTable();
  // A JSON file (a signature DB, a kernels file) given for a CSV one would
  // otherwise read as a one-column header.
  if (llvm::StringRef start = text.ltrim();
      start.starts_with("{") || start.starts_with("[")) {
    err = {1, "a JSON document, not CSV (a CSV file begins with its header "
              "line of column names)"};
    return false;
  }
  unsigned line = 1;
  size_t lineStart = 0; // offset of the current line's first character
  size_t i = 0;
  // A UTF-8 byte-order mark (spreadsheets write one) is not the first
  // header's text; columns still count from the line's first byte.
  if (text.starts_with("\xEF\xBB\xBF"))
    i = 3;
  bool first = true;
  while (i < text.size()) {
    unsigned rowLine = line;
    std::vector<std::string> cells(1);
    std::vector<std::pair<unsigned, unsigned>> cellStarts{
        {line, unsigned(i - lineStart + 1)}};
    bool quoted = false, any = false, sawQuote = false;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (quoted) {
        if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
          cells.back() += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') {
            ++line;
            lineStart = i + 1;
          }
          cells.back() += c;
        }
        continue;
      }
      if (c == '"') {
        quoted = any = sawQuote = true;
      } else if (c == ',') {
        cells.emplace_back();
        cellStarts.push_back({line, unsigned(i + 1 - lineStart + 1)});
        any = true;
      } else if (c == '\n') {
        ++line;
        ++i;
        lineStart = i;
        break;
      } else if (c != '\r') {
        cells.back() += c;
        any = true;
      }
    }
    if (quoted) {
      err = {rowLine, "unterminated quote"};
      return false;
    }
    if (!any || (cells.size() == 1 && !sawQuote &&
                 llvm::StringRef(cells[0]).trim().empty()))
      continue; // blank (or whitespace-only) line
    if (first) {
      out.header = std::move(cells);
      out.headerLine = rowLine;
      first = false;
      continue;
    }
    if (cells.size() != out.header.size()) {
      err = {rowLine, "expected " + std::to_string(out.header.size()) +
                          " columns, got " + std::to_string(cells.size())};
      return false;
    }
    out.rows.push_back(std::move(cells));
    out.lines.push_back(rowLine);
    out.starts.push_back(std::move(cellStarts));
  }
  if (first) {
    err = {0, "empty file"};
    return false;
  }
  return true;
}

bool readCsv(const std::string &path, CsvTable &out, CsvError &err) {
  rt::AtomicFile::noteInput(path);
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf) {
    err = {0, "cannot read: " + buf.getError().message()};
    return false;
  }
  return parseCsv((*buf)->getBuffer(), out, err);
}

bool csvNumber(llvm::StringRef cell, double &value) {
  llvm::StringRef t = cell.trim();
  size_t i = 0, n = t.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && llvm::isDigit(t[i]))
      ++i;
    return i - start;
  };
  if (i < n && (t[i] == '+' || t[i] == '-'))
    ++i;
  size_t whole = digits(), fraction = 0;
  if (i < n && t[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (!whole && !fraction)
    return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-'))
      ++i;
    if (!digits())
      return false;
  }
  if (i != n)
    return false;
  return llvm::to_float(t, value) && std::isfinite(value);
}

} // namespace formats
} // namespace energy
