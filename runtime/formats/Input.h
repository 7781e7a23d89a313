//===- Input.h - Reading an input file whole --------------------*- C++ -*-===//
//
// Every reader of a user's file (CSV, JSON, traces, DBs) reads it through
// readInput: the input noted (AtomicFile: no output may replace it), "-"
// standard input, and a device that is not a terminal refused before it is
// read -- /dev/zero or /dev/urandom never end, and would grow the buffer
// until memory runs out. Pipes, process substitutions and terminals are
// read to their end, up to the limit of one input: 4 GiB (a Kineto trace
// of a long job is well under it), ENERGY_MAX_INPUT_MB another. A regular
// file over it is refused before it is read; a pipe is read until it ends
// or passes the limit, so that `yes | energy-opt -` stops with an error
// once it has read the limit (the buffer then freed) instead of growing
// until memory runs out. The limit bounds the text, not what a parser
// builds from it: parsed IR or a JSON tree takes up to tens of times the
// text (the Kineto reader, a scanner, stays near it).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_INPUT_H
#define RUNTIME_FORMATS_INPUT_H

#include "runtime/AtomicFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace energy {
namespace formats {

/// The limit of one input in bytes (ENERGY_MAX_INPUT_MB, default 4 GiB),
/// or 0 with `err` where the variable is no positive whole number of MiB
/// (inflated text, a gzip trace's, is held to it too).
inline uint64_t inputLimitBytes(std::string &err) {
  const uint64_t kDefault = uint64_t(4) << 30;
  const char *env = std::getenv("ENERGY_MAX_INPUT_MB");
  if (!env || !*env)
    return kDefault;
  char *end = nullptr;
  errno = 0;
  unsigned long long mb = std::strtoull(env, &end, 10);
  // Up to 2^40 MiB (1 EiB): past it the byte count would overflow.
  if (*env < '0' || *env > '9' || *end || errno || mb == 0 ||
      mb > (uint64_t(1) << 40)) {
    err = std::string("ENERGY_MAX_INPUT_MB '") + env +
          "' is not a whole number of MiB from 1 to 2^40";
    return 0;
  }
  return uint64_t(mb) << 20;
}

/// "N MiB" for a limit in bytes (whole MiB by construction).
inline std::string limitText(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

/// What every error at the limit adds: which limit, and how to set another.
inline constexpr const char *kLimitNote =
    " (the limit of one input; ENERGY_MAX_INPUT_MB sets another)";

/// A stream's bytes as a buffer, without a copy (the text is one input's
/// whole; a copy would double the peak).
class StreamBuffer : public llvm::MemoryBuffer {
public:
  StreamBuffer(std::string data, std::string name)
      : data(std::move(data)), name(std::move(name)) {
    init(this->data.data(), this->data.data() + this->data.size(),
         /*RequiresNullTerminator=*/true);
  }
  llvm::StringRef getBufferIdentifier() const override { return name; }
  BufferKind getBufferKind() const override { return MemoryBuffer_Malloc; }

private:
  std::string data, name;
};

/// The whole of `path`, or null with `err` ("cannot read: ..." or why the
/// path is no input).
inline std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &path,
                                                     std::string &err) {
  rt::AtomicFile::noteInput(path);
  uint64_t limit = inputLimitBytes(err);
  if (!limit)
    return nullptr;
  // Opened once and examined open: what is read is what was examined.
  bool own = path != "-";
  int fd = own ? ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC) : 0;
  if (fd < 0) {
    err = std::string("cannot read: ") + std::strerror(errno);
    return nullptr;
  }
  struct Closer {
    int fd;
    bool own;
    ~Closer() {
      if (own)
        ::close(fd);
    }
  } closer{fd, own};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    err = std::string("cannot read: ") + std::strerror(errno);
    return nullptr;
  }
  // /dev/null is a device that ends at once: read (as empty).
  struct stat devNull;
  bool isNull = S_ISCHR(st.st_mode) && ::stat("/dev/null", &devNull) == 0 &&
                st.st_rdev == devNull.st_rdev;
  if (S_ISCHR(st.st_mode) && !isNull && !::isatty(fd)) {
    err = "cannot read: a character device, not a file (one such as "
          "/dev/zero never ends)";
    return nullptr;
  }
  if (S_ISREG(st.st_mode) && uint64_t(st.st_size) > limit) {
    err = "cannot read: the file holds " + std::to_string(st.st_size) +
          " bytes, over " + limitText(limit) + kLimitNote;
    return nullptr;
  }
  std::string name = own ? path : "<stdin>";
  // Standard input is read from where it stands, whatever it is; a file
  // that says it is empty may not be (/proc's say so): read as a stream.
  if (own && ((S_ISREG(st.st_mode) && st.st_size > 0) || S_ISDIR(st.st_mode))) {
    auto buf = llvm::MemoryBuffer::getOpenFile(fd, name, uint64_t(st.st_size),
                                               /*RequiresNullTerminator=*/true);
    if (!buf) {
      err = "cannot read: " + buf.getError().message();
      return nullptr;
    }
    return std::move(*buf);
  }
  // A pipe, a FIFO, a terminal or standard input: read in pieces until it
  // ends, refused once it passes the limit.
  std::string data;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = std::string("cannot read: ") + std::strerror(errno);
      return nullptr;
    }
    if (n == 0)
      break;
    if (data.size() + uint64_t(n) > limit) {
      err = "cannot read: more than " + limitText(limit) + kLimitNote;
      return nullptr;
    }
    data.append(chunk, size_t(n));
  }
  return std::make_unique<StreamBuffer>(std::move(data), std::move(name));
}

} // namespace formats
} // namespace energy

#endif // RUNTIME_FORMATS_INPUT_H
