//===- HelpTypos.h - a misspelt option is not --help ------------*- C++ -*-===//
//
// LLVM's command-line parser reads an unknown option that begins with `h`
// (`--horizns 100`, a misspelt --horizons) as its `-h`, prints the help and
// exits 0: the command ran nothing and said it succeeded. Our tools refuse
// such an option before parsing, as the parser refuses any other unknown
// one.
//
//===----------------------------------------------------------------------===//

#ifndef TOOLS_HELPTYPOS_H
#define TOOLS_HELPTYPOS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace energy {

/// False (after saying which) when an argument of argv[first, argc) is an
/// option beginning with `h` that neither the top level nor `sub` (null:
/// none) registers.
inline bool refuseHelpTypos(int argc, char **argv, int first,
                            llvm::cl::SubCommand *sub, llvm::StringRef tool) {
  for (int i = first; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (!arg.starts_with("-"))
      continue;
    llvm::StringRef name = arg.ltrim('-').split('=').first;
    if (!name.starts_with("h") || name == "h" || name.starts_with("help"))
      continue;
    if (llvm::cl::getRegisteredOptions().count(name) ||
        (sub && llvm::cl::getRegisteredOptions(*sub).count(name)))
      continue;
    llvm::WithColor::error(llvm::errs(), tool)
        << "unknown option '" << arg << "'; " << tool << " "
        << (sub ? sub->getName().str() + " " : std::string()) << "--help "
        << "lists them\n";
    return false;
  }
  return true;
}

} // namespace energy

#endif // TOOLS_HELPTYPOS_H
