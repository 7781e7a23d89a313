//===- AtomicFile.h - write a file whole or not at all -----------*- C++
//-*-===//
//
// Every file the runtime and the tools write goes through this: the bytes go
// to a temporary file in the target's directory, are flushed to disk and
// checked, then renamed over the target; any failure (a full disk, a file
// size limit, an I/O error) removes the temporary, leaves the old file
// intact and reports why. "-" is standard output, and a name of one of the
// process's descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N) and a path that exists and is not a regular file (a
// device, a FIFO: /dev/null, /dev/full) are written in place, all with
// every write and the final flush checked. A symbolic link is followed: the
// file it names is replaced, the link stays. POSIX only;
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

  /// One run's files, so that no output replaces an input or another
  /// output of the same run (a report given the input's name, a CSV and an
  /// SVG at one path): a tool notes its inputs and claims each output
  /// before the work. A file is the same by device and inode where it
  /// exists, else by its directory's real path and its name; "-" and
  /// paths that are not regular files (/dev/null, a FIFO) are not tracked.
  static void noteInput(const std::string &path);
  /// False with `err` where `path` is an input of the run (but the file
  /// at `mayReplace`: a rewrite in place, in the input's own format; ""
  /// for none) or an output claimed before; `what` names the output in
  /// the message ("-o", "report="). Inputs noted after the claim are
  /// checked when the output is committed (outputStillFree).
  static bool claimOutput(const std::string &path, const std::string &what,
                          const std::string &mayReplace, std::string &err);
  /// False with `err` where the claimed output `path` is now an input of
  /// the run (noted after its claim: a pass's file, a folder's).
  static bool outputStillFree(const std::string &path, std::string &err);

private:
  std::string path_, temp_;
  /// Where the temporary is renamed to: `path_` through its symbolic links.
  std::string target_;
  int fd_ = -1;
  bool inPlace_ = false, committed_ = false;
  /// A descriptor's regular file, written from its offset: cut there at
  /// the commit.
  bool truncateAtCommit_ = false;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_ATOMICFILE_H
