//===- AtomicFile.cpp - write a file whole or not at all ------------------===//

#include "runtime/AtomicFile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace energy {
namespace rt {

namespace {
std::string why(const std::string &path, const char *what) {
  return (path == "-" ? std::string("standard output") : "'" + path + "'") +
         ": " + what + ": " + std::strerror(errno);
}

/// The process's own descriptors by name (/dev/stdout, /dev/stderr,
/// /dev/fd/N, /proc/self/fd/N, /proc/<this pid>/fd/N): N, else -1. They
/// are written through a duplicate of N, at its offset, as "-" is: a
/// temporary renamed over such a name would replace the link itself
/// (/dev/stdout for every process, when run as root) and the output would
/// go to a new file that nobody reads.
int descriptorAlias(const std::string &path) {
  if (path == "/dev/stdout")
    return STDOUT_FILENO;
  if (path == "/dev/stderr")
    return STDERR_FILENO;
  for (std::string prefix :
       {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
        "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix))
      continue;
    std::string num = path.substr(prefix.size());
    if (num.size() > 9 ||
        num.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::atoi(num.c_str());
  }
  return -1;
}

/// The file a write to `path` lands in: through symbolic links (a chain of
/// at most 40, relative ones against their own directory) to the name
/// they end at, so that the temporary is renamed over that file and the
/// links stay links; `path` itself where it is no link. A chain that
/// reaches one of the process's descriptors by name stops there, `alias`
/// that descriptor (else -1). False with `err` on a loop.
bool linkTarget(const std::string &path, std::string &target, int &alias,
                std::string &err) {
  target = path;
  alias = -1;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st;
    if (::lstat(target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return true;
    std::vector<char> buf(size_t(st.st_size > 0 ? st.st_size : 255) + 1);
    ssize_t n = ::readlink(target.c_str(), buf.data(), buf.size());
    if (n < 0 || size_t(n) >= buf.size()) {
      if (n >= 0)
        errno = ENAMETOOLONG;
      err = why(path, "cannot read the symbolic link");
      return false;
    }
    std::string next(buf.data(), size_t(n));
    if (next.empty() || next[0] != '/') {
      size_t slash = target.rfind('/');
      if (slash != std::string::npos)
        next = target.substr(0, slash + 1) + next;
    }
    target = next;
    // A link to one of the process's descriptors (a link to /dev/stdout):
    // written through the descriptor, as the name itself is.
    if ((alias = descriptorAlias(target)) >= 0)
      return true;
  }
  errno = ELOOP;
  err = why(path, "cannot write");
  return false;
}
} // namespace

AtomicFile::~AtomicFile() {
  if (!committed_)
    abort();
}

bool AtomicFile::open(const std::string &path, std::string &err) {
  path_ = path;
  committed_ = false;
  truncateAtCommit_ = false;
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    inPlace_ = true;
    return true;
  }
  int alias = descriptorAlias(path);
  if (alias < 0 && !linkTarget(path, target_, alias, err))
    return false;
  if (alias >= 0) {
    inPlace_ = true;
    fd_ = ::fcntl(alias, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) {
      err = why(path, "cannot open");
      return false;
    }
    // A regular file behind it is replaced by what is written, from the
    // descriptor's offset (truncated there at the commit), unless it
    // appends (>>): a longer old content's tail must not stay.
    struct stat st;
    int flags = ::fcntl(fd_, F_GETFL);
    truncateAtCommit_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
                        flags >= 0 && !(flags & O_APPEND);
    return true;
  }
  struct stat st;
  bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    err = why(path, "cannot write");
    return false;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    inPlace_ = true;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      err = why(path, "cannot open");
      return false;
    }
    return true;
  }
  inPlace_ = false;
  size_t slash = target_.rfind('/');
  std::string dir =
      slash == std::string::npos ? "" : target_.substr(0, slash + 1);
  std::string base =
      slash == std::string::npos ? target_ : target_.substr(slash + 1);
  temp_ = dir + "." + base + ".tmp.XXXXXX";
  fd_ = ::mkstemp(&temp_[0]);
  if (fd_ < 0) {
    err = why(path, "cannot create a temporary file beside it");
    temp_.clear();
    return false;
  }
  // The mode the file would have had: the old file's, else 0666 & ~umask.
  mode_t mode;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(fd_, mode);
  return true;
}

bool AtomicFile::write(const char *data, size_t size, std::string &err) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      err = why(path_, "write failed");
      abort();
      return false;
    }
    data += n;
    size -= size_t(n);
  }
  return true;
}

bool AtomicFile::commit(std::string &err) {
  if (fd_ < 0) {
    errno = EBADF;
    err = why(path_, "not open");
    return false;
  }
  if (inPlace_) {
    if (truncateAtCommit_) {
      off_t end = ::lseek(fd_, 0, SEEK_CUR);
      if (end < 0 || ::ftruncate(fd_, end) != 0) {
        err = why(path_, "write failed");
        abort();
        return false;
      }
    }
    // A device or standard output: fsync means nothing to a pipe or a
    // terminal, so only its errors count.
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS &&
        errno != ENOTSUP) {
      err = why(path_, "write failed");
      abort();
      return false;
    }
    if (fd_ != STDOUT_FILENO && ::close(fd_) != 0) {
      fd_ = -1;
      err = why(path_, "write failed");
      return false;
    }
    fd_ = -1;
    committed_ = true;
    return true;
  }
  if (::fsync(fd_) != 0) {
    err = why(path_, "write failed");
    abort();
    return false;
  }
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) {
    err = why(path_, "write failed");
    abort();
    return false;
  }
  // A claimed output against the inputs noted since it was claimed (a
  // pass's file, a folder's files read after the claim).
  if (!outputStillFree(path_, err)) {
    abort();
    return false;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    err = why(path_, "cannot replace");
    abort();
    return false;
  }
  temp_.clear();
  committed_ = true;
  return true;
}

void AtomicFile::abort() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO)
    ::close(fd_);
  fd_ = -1;
  if (!temp_.empty())
    ::unlink(temp_.c_str());
  temp_.clear();
  committed_ = true; // nothing left to clean up
}

bool AtomicFile::checkWritable(const std::string &path, std::string &err) {
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) &&
      !S_ISREG(st.st_mode))
    return true;
  AtomicFile probe;
  if (!probe.open(path, err))
    return false;
  probe.abort();
  return true;
}

bool AtomicFile::writeWhole(const std::string &path, const std::string &data,
                            std::string &err) {
  AtomicFile f;
  return f.open(path, err) && f.write(data.data(), data.size(), err) &&
         f.commit(err);
}

namespace {
/// What makes two paths one file ("" for one that is not tracked).
std::string fileIdentity(const std::string &given) {
  if (given.empty() || given == "-")
    return "";
  // Through symbolic links: two dangling links to one new file are one
  // output.
  std::string path, ignored;
  int alias = -1;
  if (!linkTarget(given, path, alias, ignored))
    path = given;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    return S_ISREG(st.st_mode) ? "inode " + std::to_string(st.st_dev) + ":" +
                                     std::to_string(st.st_ino)
                               : "";
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char *real = ::realpath(dir.c_str(), nullptr);
  if (!real)
    return "path " + path;
  std::string id = std::string("path ") + real + "/" + name;
  std::free(real);
  return id;
}

struct Output {
  std::string id, what, path;
  /// The input this output may replace (a rewrite in place), "" for none.
  std::string mayReplace;
};
struct RunFiles {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<Output> outputs;
};
RunFiles &runFiles() {
  static RunFiles files;
  return files;
}
} // namespace

void AtomicFile::noteInput(const std::string &path) {
  std::string id = fileIdentity(path);
  if (id.empty())
    return;
  RunFiles &f = runFiles();
  std::lock_guard<std::mutex> lock(f.mu);
  for (const auto &[in, name] : f.inputs)
    if (in == id)
      return; // (every -split-input-file chunk reads the same files)
  f.inputs.push_back({id, path});
}

/// An input the output `id` may not replace, as `err`.
static bool replacesInput(const RunFiles &f, const std::string &id,
                          const std::string &mayReplace,
                          const std::string &path, const std::string &what,
                          std::string &err) {
  for (const auto &[in, name] : f.inputs)
    if (in == id && in != mayReplace) {
      err = "'" + path + "' (" + what + ") is " +
            (name == path ? std::string("an input")
                          : "the input '" + name + "'") +
            " of this run: writing it would replace what was read; give "
            "another path";
      return true;
    }
  return false;
}

bool AtomicFile::claimOutput(const std::string &path, const std::string &what,
                             const std::string &mayReplace, std::string &err) {
  std::string id = fileIdentity(path);
  if (id.empty())
    return true;
  std::string allowed = mayReplace.empty() ? "" : fileIdentity(mayReplace);
  RunFiles &f = runFiles();
  std::lock_guard<std::mutex> lock(f.mu);
  if (replacesInput(f, id, allowed, path, what, err))
    return false;
  for (const Output &out : f.outputs)
    if (out.id == id) {
      // The same output written again (a report per -split-input-file
      // chunk) is the caller's to decide.
      if (out.what == what)
        return true;
      err = "'" + path + "' (" + what + ") is also this run's " + out.what +
            " '" + out.path +
            "': the second would replace the first; give each its own path";
      return false;
    }
  f.outputs.push_back({id, what, path, allowed});
  return true;
}

bool AtomicFile::outputStillFree(const std::string &path, std::string &err) {
  std::string id = fileIdentity(path);
  if (id.empty())
    return true;
  RunFiles &f = runFiles();
  std::lock_guard<std::mutex> lock(f.mu);
  for (const Output &out : f.outputs)
    if (out.id == id)
      return !replacesInput(f, id, out.mayReplace, path, out.what, err);
  return true;
}

} // namespace rt
} // namespace energy
