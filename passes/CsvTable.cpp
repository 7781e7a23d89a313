//===- CsvTable.cpp - small CSV reader with line numbers ------------------===//

#include "passes/CsvTable.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace energy;

std::optional<size_t> CsvTable::column(llvm::StringRef name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (llvm::StringRef(header[i]).trim() == name)
      return i;
  return std::nullopt;
}

bool CsvTable::read(const std::string &path, CsvTable &out, std::string &err) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf) {
    err = path + ": cannot read: " + buf.getError().message();
    return false;
  }
  llvm::StringRef text = (*buf)->getBuffer();
  unsigned line = 1;
  size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    unsigned rowLine = line;
    std::vector<std::string> cells(1);
    bool quoted = false, any = false;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (quoted) {
        if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
          cells.back() += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n')
            ++line;
          cells.back() += c;
        }
        continue;
      }
      if (c == '"') {
        quoted = any = true;
      } else if (c == ',') {
        cells.emplace_back();
        any = true;
      } else if (c == '\n') {
        ++line;
        ++i;
        break;
      } else if (c != '\r') {
        cells.back() += c;
        any = true;
      }
    }
    if (quoted) {
      err = path + ":" + std::to_string(rowLine) + ": unterminated quote";
      return false;
    }
    if (!any)
      continue; // blank line
    if (first) {
      out.header = std::move(cells);
      first = false;
      continue;
    }
    if (cells.size() != out.header.size()) {
      err = path + ":" + std::to_string(rowLine) + ": expected " +
            std::to_string(out.header.size()) + " columns, got " +
            std::to_string(cells.size());
      return false;
    }
    out.rows.push_back(std::move(cells));
    out.lines.push_back(rowLine);
  }
  if (first) {
    err = path + ": empty file";
    return false;
  }
  return true;
}
