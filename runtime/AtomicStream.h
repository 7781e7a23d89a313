//===- AtomicStream.h - an llvm::raw_ostream onto an AtomicFile -*- C++ -*-===//
//
// For the tools and passes that print through LLVM streams (LLVM Support
// only, no MLIR, like runtime/db): `body` writes into a stream on the
// temporary file; the file replaces `path` only when `body` succeeds and
// every byte reached the disk. A stream error (a full disk, /dev/full) is
// reported in `err` instead of LLVM's fatal "IO failure on output stream".
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_ATOMICSTREAM_H
#define RUNTIME_ATOMICSTREAM_H

#include "runtime/AtomicFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace energy {
namespace rt {

/// False when `body` fails (it reports its own error; `err` stays empty) or
/// when the file cannot be written (`err` says why); the target is then as
/// it was.
inline bool writeAtomically(const std::string &path,
                            llvm::function_ref<bool(llvm::raw_ostream &)> body,
                            std::string &err) {
  err.clear();
  AtomicFile file;
  if (!file.open(path, err))
    return false;
  bool ok;
  {
    llvm::raw_fd_ostream os(file.fd(), /*shouldClose=*/false);
    ok = body(os);
    os.flush();
    if (os.has_error()) {
      err = (path == "-" ? std::string("standard output") : "'" + path + "'") +
            ": write failed: " + os.error().message();
      os.clear_error();
      file.abort();
      return false;
    }
  }
  if (!ok) {
    file.abort();
    return false;
  }
  return file.commit(err);
}

} // namespace rt
} // namespace energy

#endif // RUNTIME_ATOMICSTREAM_H
