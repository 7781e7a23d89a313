//===- AtomicFile.h - write a file whole or not at all -----------*- C++
//-*-===//
//
// Every file the runtime and the tools write goes through this: the bytes go
// to a temporary file in the target's directory, are flushed to disk and
// checked, then renamed over the target; any failure (a full disk, a file
// size limit, an I/O error) removes the temporary, leaves the old file
// intact and reports why. "-" is standard output and a path that exists and
// is not a regular file (a device, a FIFO: /dev/null, /dev/full) is written
// in place, both with every write and the final flush checked. POSIX only;
// no LLVM, so that the runtime's shared library can use it.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_ATOMICFILE_H
#define RUNTIME_ATOMICFILE_H

#include <string>

namespace energy {
namespace rt {

class AtomicFile {
public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  /// Removes the temporary when not committed.
  ~AtomicFile();

  /// Opens `path` for writing; false with `err` when it cannot.
  bool open(const std::string &path, std::string &err);
  /// The descriptor to write to (valid after a successful open).
  int fd() const { return fd_; }
  /// Writes all of `data`; false with `err` on the first failure.
  bool write(const char *data, size_t size, std::string &err);
  /// Flushes, closes and (for a regular file) renames into place.
  bool commit(std::string &err);
  /// Drops what was written: the target stays as it was.
  void abort();

  /// Whether `path` could be written, checked before the work that
  /// produces it: a temporary made and removed beside a regular file or a
  /// new one; "-" and a FIFO or device (written in place) are not opened
  /// now (opening a FIFO would wait for its reader).
  static bool checkWritable(const std::string &path, std::string &err);

  /// open + write + commit.
  static bool writeWhole(const std::string &path, const std::string &data,
                         std::string &err);

private:
  std::string path_, temp_;
  int fd_ = -1;
  bool inPlace_ = false, committed_ = false;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_ATOMICFILE_H
