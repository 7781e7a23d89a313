//===- Version.h - the project's version and revision -----------*- C++ -*-===//
//
// "energy 0.1.0 (git 1a2b3c4d5e6f)": printed by every tool's --version and
// recorded in the files the tools write, so that a report, DB, plan or
// frontier says what produced it. The revision is read at build time
// (cmake/version.cmake); "-dirty" marks uncommitted changes. No LLVM: the
// runtime records it too.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_VERSION_H
#define RUNTIME_VERSION_H

#include <string>
#include <vector>

namespace energy {

/// "0.1.0"
const char *projectVersion();
/// "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty" or "unknown"
const char *gitRevision();
/// "energy 0.1.0 (git 1a2b3c4d5e6f)"
std::string versionString();
/// What every written file records about its making, as a JSON object:
/// {"tool": "energy-prof characterize", "version": versionString(),
///  "inputs": [...]} (docs/REPORT.md, SIGNATURE-DB.md, PLAN.md). A
/// signature DB also names the processes whose runs it holds ("sources":
/// runtime/RestoreRecord.h's processIdentity), so that merge can refuse to
/// pool one process's runs twice.
std::string generatorJson(const std::string &tool,
                          const std::vector<std::string> &inputs,
                          const std::vector<std::string> &sources = {});

} // namespace energy

#endif // RUNTIME_VERSION_H
