//===- Input.h - Reading an input file whole --------------------*- C++ -*-===//
//
// Every reader of a user's file (CSV, JSON, traces, DBs) reads it through
// readInput: the input noted (AtomicFile: no output may replace it), "-"
// standard input, and a device that is not a terminal refused before it is
// read -- /dev/zero or /dev/urandom never end, and would grow the buffer
// until memory runs out. Pipes, process substitutions and terminals are
// read to their end.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_INPUT_H
#define RUNTIME_FORMATS_INPUT_H

#include "runtime/AtomicFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace energy {
namespace formats {

/// The whole of `path`, or null with `err` ("cannot read: ..." or why the
/// path is no input).
inline std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &path,
                                                     std::string &err) {
  rt::AtomicFile::noteInput(path);
  if (path != "-") {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
      int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY);
      bool terminal = fd >= 0 && ::isatty(fd);
      if (fd >= 0)
        ::close(fd);
      if (!terminal) {
        err = "cannot read: a character device, not a file (one such as "
              "/dev/zero never ends)";
        return nullptr;
      }
    }
  }
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf) {
    err = "cannot read: " + buf.getError().message();
    return nullptr;
  }
  return std::move(*buf);
}

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_INPUT_H
