//===- VersionPrinter.h - the project's version in --version -----*- C++
//-*-===//

#ifndef TOOLS_VERSIONPRINTER_H
#define TOOLS_VERSIONPRINTER_H

#include "runtime/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace energy {

/// Every tool's --version prints the project's version and git revision
/// (runtime/Version.h) after LLVM's.
inline void addVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << versionString() << "\n"; });
}

} // namespace energy

#endif // TOOLS_VERSIONPRINTER_H
