//===- Csv.cpp - The one CSV reader, with line numbers --------------------===//

#include "runtime/formats/Csv.h"
#include "runtime/formats/Input.h"

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

std::string cellForMessage(llvm::StringRef cell) {
  const size_t kShown = 40;
  std::string out = "'";
  for (size_t i = 0; i < cell.size() && i < kShown; ++i) {
    unsigned char c = cell[i];
    if (c == '\\' || c == '\'' || !llvm::isPrint(c) || c >= 0x80) {
      out += '\\';
      out += c == '\\' || c == '\'' ? char(c) : 'x';
      if (c != '\\' && c != '\'')
        out += llvm::hexdigit(c >> 4, true),
            out += llvm::hexdigit(c & 15, true);
    } else {
      out += char(c);
    }
  }
  out += "'";
  if (cell.size() > kShown)
    out += " (its first " + std::to_string(kShown) + " of " +
           std::to_string(cell.size()) + " bytes)";
  return out;
}

std::string CsvTable::missingColumnHint(llvm::StringRef name) const {
  for (const std::string &h : header)
    if (llvm::StringRef(h).trim().equals_insensitive(name))
      return " (the header has " + cellForMessage(llvm::StringRef(h).trim()) +
             ": column names are matched exactly, in lower case)";
  if (header.size() == 1)
    for (char sep : {';', '\t', '|'})
      if (llvm::StringRef(header[0]).contains(sep))
        return std::string(" (the header is one column holding '") +
               (sep == '\t' ? std::string("\\t") : std::string(1, sep)) +
               "': the columns must be separated by commas)";
  return "";
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
  out.endsWithLineEnd =
      text.empty() || text.ends_with("\n") || text.ends_with("\r");
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
          // A line break inside quotes is the cell's, and still a line of
          // the file (LF, CR LF, or a lone CR).
          if (c == '\n' ||
              (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
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
      } else if (c == '\n' ||
                 (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
        // A lone CR ends a line too (old Mac line ends, some exporters):
        // read as one line, such a file's header lacked every column.
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
      // A column named twice: a caller would read one of them, unsaid.
      for (size_t a = 0; a < cells.size(); ++a) {
        llvm::StringRef name = llvm::StringRef(cells[a]).trim();
        for (size_t b = a + 1; !name.empty() && b < cells.size(); ++b)
          if (llvm::StringRef(cells[b]).trim() == name) {
            err = {rowLine, "the header names column " + cellForMessage(name) +
                                " twice (columns " + std::to_string(a + 1) +
                                " and " + std::to_string(b + 1) +
                                "): which one is meant?"};
            return false;
          }
      }
      out.header = std::move(cells);
      out.headerLine = rowLine;
      first = false;
      continue;
    }
    if (cells.size() != out.header.size()) {
      err = {rowLine, "expected " + std::to_string(out.header.size()) +
                          " columns, got " + std::to_string(cells.size())};
      // A one-column header before wider rows: a title or comment line
      // above the header, or another separator than commas.
      if (out.header.size() == 1 && out.rows.empty())
        err.message += "; the header (line " + std::to_string(out.headerLine) +
                       ") is " + cellForMessage(out.header[0]) +
                       ": a CSV file begins with its header line of column "
                       "names, separated by commas";
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
  std::string why;
  std::unique_ptr<llvm::MemoryBuffer> buf = readInput(path, why);
  if (!buf) {
    err = {0, why};
    return false;
  }
  return parseCsv(buf->getBuffer(), out, err);
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
